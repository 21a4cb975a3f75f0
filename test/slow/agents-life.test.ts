// Agents as the real CLIs behave, round 4 (issue 39, shared/research/field-reports/round4-real-agents.md):
// one send submits to Gemini, whose TUI takes an Enter soon after a paste as a newline (G2); a
// crash soon after opencode's first turn still recovers its conversation (O1); a task that ignores
// SIGHUP, SIGTERM and SIGINT does not outlive a SIGKILLed daemon, and `recover` starts none twice (G5).
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { installFakeAgents, type Invocation } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { processesWhere } from "../harness/helpers.ts";
import { killProcessGroups, processesWithMarker, recoveryDirOf, snapshotFleet, snapshotNames } from "../harness/recovery-helpers.ts";

let fleet: Fleet;
let fakes: ReturnType<typeof installFakeAgents>;
let marker: string;

/** A fleet with the fake agents; every process its tasks start carries a marker for the final sweep. */
function setUp(options: { snapshots?: { debounceMs?: number; checkMs?: number }; flavours?: Record<string, string> } = {}): void {
  fleet = options.snapshots ? snapshotFleet(options.snapshots) : new Fleet();
  marker = `FLEETCOM_AGENTS_LIFE=${process.pid}-${Math.random()}`;
  fleet.env.FLEETCOM_AGENTS_LIFE = marker.split("=")[1]!;
  fakes = installFakeAgents(fleet, options.flavours);
}

/** How many Gemini launchers the tasks run. */
const launchers = () => taskProcesses().filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("fake-agent.ts\0gemini-launcher\0")).length;

/** The process is gone from /proc: exited and reaped, every descriptor of it closed. */
const gone = (pid: number) => processesWhere((read) => read("status").includes(`Pid:\t${pid}\n`)).length === 0;

/** The live processes a task of this test's daemons started (its environment names the task), by PID. */
function taskProcesses(): number[] {
  return processesWhere((read) => {
    const env = read("environ").split("\0");
    return env.includes(marker) && env.some((e) => e.startsWith("FLEETCOM_TASK_ID=")) && !read("status").includes("State:\tZ");
  });
}

afterEach(async () => {
  await fleet.stop();
  killProcessGroups(processesWithMarker(marker));
});

async function spawn(command: string): Promise<number> {
  const r = await fleet.cli(["run", "--", command]);
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr}`);
  const id = Number(r.stdout.trim());
  await until(`task ${id} to be ready`, async () => (await fleet.peek(id)).includes(" ready "));
  return id;
}

const turnsOf = async (id: number) => (await fleet.peek(id)).split("turn done").length - 1;
const startsOf = (agent: string): Invocation[] => fakes.invocations().filter((i) => i.agent === agent);

describe("one send submits to every agent", () => {
  test("Gemini, which takes an Enter soon after a paste as a newline, runs a turn per send", async () => {
    setUp();
    const id = await spawn("gemini");
    for (const [i, text] of ["remember the fruit MANGO-7", "and the word KIWI-5", "which fruit?"].entries()) {
      await fleet.ok(["send", String(id), text]);
      await until(`turn ${i + 1}`, async () => (await turnsOf(id)) === i + 1, 10_000);
    }
    // Nothing was left in the input box as a newline.
    expect(await fleet.peek(id)).not.toContain("⏎");
  });
});

// How each is learnt: claude, grok, gemini and qwen are pinned; codex and Command Code captured;
// opencode neither (only its store says, which the minute check alone used to read).
const EVERY_AGENT = ["opencode", "claude", "codex", "grok", "cmd", "gemini", "qwen"];

describe.each(EVERY_AGENT)("a new conversation reaches the recovery snapshot within seconds: %s", (word) => {
  test("its daemon SIGKILLed 5 s after the first turn, recover --latest resumes that conversation", async () => {
    // The product's debounce; the minute check an hour away, so only the turn can bring the pass.
    setUp({ snapshots: { debounceMs: 2_000 } });
    const id = await spawn(word);
    // The spawn's own pass is over (it holds the bare command) before the turn, as when a user types a while later.
    await until("the spawn's snapshot", () => snapshotText().includes(`"${word}"`));
    await fleet.ok(["send", String(id), "remember the fruit FIG-4"]);
    await until("the first turn", async () => (await turnsOf(id)) === 1);
    const conversation = /turn done (\S+)/.exec(await fleet.peek(id))![1]!;
    // The field report's case: the crash comes a few seconds after the turn, long before the minute check.
    await Bun.sleep(5_000);
    const daemon = fleet.daemonPid()!;
    process.kill(daemon, "SIGKILL");
    killProcessGroups(processesWithMarker(marker));
    await until("the daemon to die", () => gone(daemon));
    await fleet.ok(["recover", "--latest"]);
    await until("the resumed agent", async () => (await fleet.peek(1)).includes(`ready ${conversation}`));
    expect((await fleet.task(1)).command).toContain(`'${conversation}'`);
  });
});

describe("a task's processes end with its daemon", () => {
  test("a Gemini whose launcher and child ignore SIGHUP, SIGTERM and SIGINT is gone within 5 s of a SIGKILL of the daemon, and recover starts it once", async () => {
    setUp({ snapshots: { debounceMs: 100 }, flavours: { gemini: "gemini-launcher" } });
    const id = await spawn("gemini");
    const conversation = startsOf("gemini-launcher")[0]!.args[1]!;
    await fleet.ok(["send", String(id), "remember the fruit MANGO-7"]);
    await until("the first turn", async () => (await turnsOf(id)) === 1);
    await until("the snapshot to hold the resume form", () => snapshotText().includes(`gemini --resume '${conversation}'`));
    const before = taskProcesses();
    // The launcher and its child.
    expect(before.length).toBeGreaterThanOrEqual(2);

    const daemon = fleet.daemonPid()!;
    process.kill(daemon, "SIGKILL");
    await until("every process of the dead daemon's tasks to end", () => taskProcesses().length === 0, 5_000);
    // Its tasks can end while it is still exiting, its socket still taking connections into its
    // backlog: a recover then would meet that socket, not start a daemon of its own.
    await until("the daemon to die", () => gone(daemon));

    await fleet.ok(["recover", "--latest"]);
    await until("gemini to start again", () => startsOf("gemini-launcher").length === 2);
    await until("the resumed gemini", async () => (await fleet.peek(1)).includes(`ready ${conversation}`));
    expect(startsOf("gemini-launcher")[1]!.args).toEqual(["--resume", conversation]);
    expect((await fleet.ls()).map((t) => t.command)).toEqual([`gemini --resume '${conversation}'`]);
    // Only the recovered run's processes: none of the old ones, no second launcher.
    expect(taskProcesses().filter((pid) => before.includes(pid))).toEqual([]);
    expect(launchers()).toBe(1);
  });
});

describe("the daemon's task watcher", () => {
  test("one killed while the daemon lives is replaced at the next task and told every task, so all end with the daemon", async () => {
    setUp();
    const immune = "trap '' HUP TERM INT; sleep 300; :";
    await fleet.run(immune);
    const daemon = fleet.daemonPid()!;
    const watchers = () => processesWhere((read) => read("cmdline").includes("fleetcom-task-reaper") && read("status").includes(`PPid:\t${daemon}\n`));
    const first = await until("the watcher", () => watchers()[0]);
    process.kill(first, "SIGKILL");
    await until("it to be gone", () => watchers().length === 0);
    await fleet.run(immune);
    await until("a new watcher", () => watchers().length === 1);
    await until("both tasks up, a shell and a sleep each", () => taskProcesses().length === 4);
    process.kill(daemon, "SIGKILL");
    await until("both tasks' processes to end", () => taskProcesses().length === 0, 5_000);
  });
});

describe("recover ends what a dead daemon's tasks left running before it starts the fleet again", () => {
  test("with the daemon's watcher gone too, recover ends the old Gemini by PID, says so, and starts it once", async () => {
    setUp({ snapshots: { debounceMs: 100 }, flavours: { gemini: "gemini-launcher" } });
    const id = await spawn("gemini");
    const conversation = startsOf("gemini-launcher")[0]!.args[1]!;
    await fleet.ok(["send", String(id), "remember the fruit MANGO-7"]);
    await until("the first turn", async () => (await turnsOf(id)) === 1);
    await until("the snapshot to hold the resume form", () => snapshotText().includes(`gemini --resume '${conversation}'`));
    const daemon = fleet.daemonPid()!;
    // As with a daemon from before the watcher, or a watcher killed with the daemon.
    const [watcher] = processesWhere((read) => read("cmdline").includes("fleetcom-task-reaper") && read("status").includes(`PPid:\t${daemon}\n`));
    expect(watcher).toBeDefined();
    process.kill(watcher!, "SIGKILL");
    process.kill(daemon, "SIGKILL");
    await until("the daemon to die", () => gone(daemon));
    const survivors = taskProcesses();
    expect(survivors.length).toBeGreaterThanOrEqual(2);
    // Look-alikes recover must leave alone: another user's process naming this runtime directory and
    // a dead daemon (root reads its environment, so only its owner tells), one of this runtime
    // directory's whose daemon is alive and older than it, and one of another runtime directory.
    const dead = String(2 ** 22 + 1);
    const decoys = [
      decoy(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"], { FLEETCOM_RUNTIME_DIR: fleet.sandbox.runtime, FLEETCOM_DAEMON_PID: dead }),
      decoy([], { FLEETCOM_RUNTIME_DIR: fleet.sandbox.runtime, FLEETCOM_DAEMON_PID: String(process.pid) }),
      decoy([], { FLEETCOM_RUNTIME_DIR: `${fleet.sandbox.runtime}-other`, FLEETCOM_DAEMON_PID: dead }),
    ];

    const r = await fleet.cli(["recover", "--latest"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(`ended ${survivors.length} process(es) the dead daemon's tasks left running: pid ${survivors[0]} `);
    for (const pid of survivors) expect(r.stdout).toContain(`pid ${pid} `);
    await until("the resumed gemini", async () => (await fleet.peek(1)).includes(`ready ${conversation}`));
    expect(startsOf("gemini-launcher").length).toBe(2);
    expect(taskProcesses().filter((pid) => survivors.includes(pid))).toEqual([]);
    expect(launchers()).toBe(1);
    for (const d of decoys) expect(d.exitCode).toBeNull();
    for (const d of decoys) expect(r.stdout).not.toContain(`pid ${d.pid} `);
  });
});

/** A `sleep` that carries a task's evidence in its environment, started through `prefix`; killed after the test. */
function decoy(prefix: string[], env: Record<string, string>): ReturnType<typeof Bun.spawn> {
  const proc = Bun.spawn([...prefix, "sleep", "300"], {
    env: { PATH: process.env.PATH!, FLEETCOM_TASK_ID: "1", [marker.split("=")[0]!]: marker.split("=")[1]!, ...env },
  });
  spawnedDecoys.push(proc);
  return proc;
}
const spawnedDecoys: ReturnType<typeof Bun.spawn>[] = [];
afterEach(() => {
  for (const proc of spawnedDecoys.splice(0)) proc.kill("SIGKILL");
});

function snapshotText(): string {
  const dir = recoveryDirOf(fleet);
  return snapshotNames(fleet)
    .map((n) => readFileSync(join(dir, n), "utf8"))
    .join("\n");
}
