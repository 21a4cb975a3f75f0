// Durations run on the monotonic clock (issue 11, M5): a wall-clock step (NTP, a VM restore,
// `date -s`) neither stretches the kill grace nor flips a task between idle and active. A real task
// in a real PTY, with Date.now stepped back (or forward) an hour while the code under test runs.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { AgentNamespace } from "../../src/agent-namespace.ts";
import { Task, type TaskListener } from "../../src/daemon-task.ts";
import { DEFAULT_IDLE_SECONDS } from "../../src/settings.ts";
import { until } from "../harness/fleet.ts";
import { makeSandbox, type Sandbox } from "../harness/helpers.ts";

const HOUR = 3_600_000;
const realDateNow = Date.now;
const realPerfNow = performance.now.bind(performance);

function stepWallClock(ms: number): void {
  Date.now = () => realDateNow.call(Date) + ms;
}

function stepMonotonicClock(ms: number): void {
  performance.now = () => realPerfNow() + ms;
}

let sandbox: Sandbox;
let task: Task | null = null;
let output = "";
let exited = false;

const listener: TaskListener = {
  output: (_task, chunk) => {
    output += new TextDecoder().decode(chunk);
  },
  reply: () => {},
  exited: () => {
    exited = true;
  },
  attention: () => {},
  inputDrained: () => {},
};

function startTask(command: string): Task {
  output = "";
  exited = false;
  task = new Task(
    {
      id: 1,
      command,
      typed: command,
      worktree: null,
      cwd: sandbox.home,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.home, SHELL: "/bin/sh" },
      name: null,
      group: null,
      cols: 80,
      rows: 24,
      scrollback: 100,
      agents: new AgentNamespace(sandbox.runtime),
      probe: { flagsOf: () => null },
      log: () => {},
    },
    listener,
  );
  return task;
}

beforeEach(() => {
  sandbox = makeSandbox();
});

afterEach(async () => {
  Date.now = realDateNow;
  performance.now = realPerfNow;
  if (task?.running && task.pid) {
    try {
      process.kill(-task.pid, "SIGKILL");
    } catch {}
    await until("the task to end", () => exited);
  }
  task?.dispose();
  task = null;
  sandbox.cleanup();
});

describe("a wall-clock step", () => {
  test("back an hour during the kill grace: a TERM-ignoring task is still KILLed after the grace", async () => {
    const t = startTask("trap '' TERM; echo ready; while :; do sleep 0.05; done");
    await until("ready", () => output.includes("ready"));
    const terminated = t.terminate();
    stepWallClock(-HOUR);
    // setTimeout runs on the monotonic clock, so this bound is real time whatever Date.now says.
    const outcome = await Promise.race([terminated.then(() => "done"), new Promise((r) => setTimeout(() => r("stuck in the grace"), 20_000))]);
    expect(outcome).toBe("done");
    await until("exit", () => exited);
    expect(t.signal).toBe("SIGKILL");
  }, 30_000);

  test("does not decide idleness: only the monotonic time since the last output does", async () => {
    const t = startTask("echo hello; sleep 300");
    await until("hello", () => output.includes("hello"));
    await t.screen.flushed();
    expect(t.idle()).toBe(false);

    // The wall clock jumps an hour ahead: the task printed a moment ago, it is not idle.
    stepWallClock(HOUR);
    expect(t.idle()).toBe(false);
    expect(t.info().idle).toBe(false);

    // The wall clock goes an hour back while the task stays quiet past the threshold.
    stepWallClock(-HOUR);
    stepMonotonicClock(DEFAULT_IDLE_SECONDS * 1000 + 1_000);
    expect(t.idle()).toBe(true);
    expect(t.info().idle).toBe(true);
  });
});
