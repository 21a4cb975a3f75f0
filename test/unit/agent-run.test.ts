// One agent run's decisions (src/agent-run.ts), without a daemon: what a save, a snapshot and a
// rerun make of what the run knows (resume only what the agent's store holds; a resume form that
// failed at once falls back to the program), and what is injected into a binary (only the options
// its --help lists).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentNamespace } from "../../src/agent-namespace.ts";
import { type Agent, detect } from "../../src/agent.ts";
import { AgentRun, FAILED_AT_ONCE_MS, prepareRun, type RunContext, savedCommands } from "../../src/agent-run.ts";
import { ID, ID2, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

/** An agent whose evidence the test sets: the exit hint, the store's single match, the IDs the store holds. */
function fakeAgent(world: { hint?: string | null; store?: string | null; held: Set<string> }): Agent {
  return {
    name: "fake",
    words: ["fake"],
    selector: "--resume",
    envKeys: [],
    launchFlags: () => [],
    instrument: () => null,
    captured: () => null,
    exitHint: () => world.hint ?? null,
    fromStore: () => world.store ?? null,
    holds: (id) => world.held.has(id),
  };
}

function context(spawnedAt = new Date()): RunContext {
  return { taskId: 1, run: 1, cwd: "/p", env: {}, spawnedAt, namespace: new AgentNamespace(tmp.root), flagsOf: () => null, log: () => {} };
}

function run(command: string, agent: Agent, spawnedAt?: Date): AgentRun {
  const launch = detect(command, [agent])!;
  return new AgentRun(launch, context(spawnedAt), null, launch.id);
}

describe("resume only what the store holds", () => {
  test("a known ID is saved in its resume form only once the store holds it; until then the command as typed", () => {
    const world = { hint: ID, store: ID2, held: new Set<string>() };
    const task = { command: "fake", agent: run("fake", fakeAgent(world)) };
    task.agent.exited([]);
    // The store's heuristic match (ID2) never stands in for this run's own ID.
    expect(savedCommands([task])).toEqual(["fake"]);
    world.held.add(ID);
    expect(savedCommands([task])).toEqual([`fake --resume '${ID}'`]);
  });

  test("with nothing known, the store's one match is saved (it exists by definition)", () => {
    const task = { command: "fake", agent: run("fake", fakeAgent({ store: ID, held: new Set() })) };
    expect(savedCommands([task])).toEqual([`fake --resume '${ID}'`]);
  });

  test("rerun resumes a held conversation and keeps a bare command bare", () => {
    const world = { hint: ID, held: new Set<string>() };
    const bare = run("fake", fakeAgent(world));
    bare.exited([]);
    expect(bare.rerunCommand("fake")).toEqual({ command: "fake", notice: null });
    world.held.add(ID);
    expect(bare.rerunCommand("fake")).toEqual({ command: `fake --resume '${ID}'`, notice: null });
  });

  test("a resume form that ended at once with its conversation not in the store falls back to the program, saying so", () => {
    const world = { held: new Set<string>() };
    const resumed = run(`fake --resume '${ID}'`, fakeAgent(world));
    resumed.exited([]);
    expect(resumed.rerunCommand(`fake --resume '${ID}'`)).toEqual({
      command: "fake",
      notice: `fake --resume '${ID}' ended at once and fake has no conversation ${ID}; running fake as typed`,
    });
    expect(savedCommands([{ command: `fake --resume '${ID}'`, agent: resumed }])).toEqual(["fake"]);
  });

  test("a resume form that ran for a while keeps its command, whatever the store says (a store read can miss)", () => {
    const started = new Date(Date.now() - FAILED_AT_ONCE_MS - 1_000);
    const resumed = run(`fake --resume '${ID}'`, fakeAgent({ held: new Set() }), started);
    resumed.exited([]);
    expect(resumed.rerunCommand(`fake --resume '${ID}'`)).toEqual({ command: `fake --resume '${ID}'`, notice: null });
    expect(savedCommands([{ command: `fake --resume '${ID}'`, agent: resumed }])).toEqual([`fake --resume '${ID}'`]);
  });

  test("savedFormChanged says once that the conversation became resumable", () => {
    const world = { hint: ID, held: new Set<string>() };
    const r = run("fake", fakeAgent(world));
    r.exited([]);
    expect(r.savedFormChanged()).toBe(false);
    world.held.add(ID);
    expect(r.savedFormChanged()).toBe(true);
    expect(r.savedFormChanged()).toBe(false);
  });
});

describe("inject only what the binary understands", () => {
  const ctx = (flags: string[] | null, log: string[] = []): RunContext => ({
    ...context(),
    cwd: tmp.root,
    flagsOf: () => (flags === null ? null : new Set(flags)),
    log: (l) => log.push(l),
  });

  test("claude gets its pin and overlay only when its --help lists both options", () => {
    expect(prepareRun("claude", ctx(["--session-id", "--settings", "--resume"])).executed).toMatch(/^claude --session-id '[0-9a-f-]{36}' --settings '/);
    const log: string[] = [];
    const without = prepareRun("claude", ctx(["--resume"], log));
    expect(without.executed).toBe("claude");
    expect(without.env).toEqual({});
    expect(without.run?.agent).toBe("claude");
    expect(log).toEqual(["task 1: claude runs as typed: claude --help lists no --session-id, --settings"]);
  });

  test("an unknown binary (no answer yet) runs as typed; an agent that needs no option is not asked", () => {
    expect(prepareRun("grok", ctx(null)).executed).toBe("grok");
    expect(prepareRun(`codex resume '${ID}'`, ctx(null)).executed).toBe(`codex resume '${ID}'`);
    const cmd = prepareRun("cmd", ctx(null));
    expect(cmd.env.COMMANDCODE_SCRATCHPAD_BASE).toBeDefined();
  });
});

describe("the capture channel is read when it changes, not on every look", () => {
  test("ls and event batches reuse the last read until the watcher says the files changed", () => {
    let reads = 0;
    let captured: string | null = ID;
    const agent = {
      ...fakeAgent({ held: new Set() }),
      captured: () => {
        reads += 1;
        return captured;
      },
    };
    const launch = detect("fake", [agent])!;
    const assets = { captureFile: `${tmp.root}/capture`, scratchBase: tmp.root, env: {} } as never;
    const run = new AgentRun(launch, context(), assets, null);
    for (let i = 0; i < 5; i++) expect(run.known()).toBe(ID);
    expect(reads).toBe(1);
    captured = ID2;
    run.filesChanged();
    expect(run.known()).toBe(ID2);
    expect(reads).toBe(2);
  });
});

describe("a wait whose reply the agent writes after its hook (Command Code)", () => {
  /** An agent with an events file in the namespace and a reply file it writes after the event. */
  function replyLater(reply: string): { agent: Agent; run: AgentRun; event(line: object): void; looks: number[] } {
    const looks: number[] = [];
    const namespace = new AgentNamespace(tmp.root);
    namespace.lookAgainAt = (_task, _run, ms) => void looks.push(ms);
    const agent: Agent = {
      ...fakeAgent({ held: new Set() }),
      instrument: (launch) => ({ args: [], env: {}, pinned: launch.id }),
      attentionFile: (assets) => `${assets.captureFile}.events`,
      attentionSignal: (line) => (line.includes("Stop") ? { kind: "waiting", state: "input", message: null } : { kind: "working" }),
      replyWrittenAfterHook: () => reply,
    };
    const ctx = { ...context(), namespace };
    const launch = detect(`fake --resume '${ID}'`, [agent])!;
    const assets = namespace.assetsFor(1, 1);
    const run = new AgentRun(launch, ctx, assets, ID);
    const event = (line: object) => appendFileSync(`${assets.captureFile}.events`, `${JSON.stringify(line)}\n`);
    return { agent, run, event, looks };
  }

  test("is held, and looked at again shortly, until the reply file changes after the event; what came before it is given at once", () => {
    const reply = join(tmp.root, "transcript.jsonl");
    writeFileSync(reply, "old turn\n");
    const past = new Date(Date.now() - 60_000);
    utimesSync(reply, past, past);
    const { run, event, looks } = replyLater(reply);
    event({ hook_event_name: "PreToolUse" });
    event({ hook_event_name: "Stop" });
    const now = performance.now();
    expect(run.newSignals(now)).toEqual([{ kind: "working" }]);
    expect(looks).toEqual([50]);
    expect(run.newSignals(now + 100)).toEqual([]);
    appendFileSync(reply, "the reply\n");
    expect(run.newSignals(now + 200)).toEqual([{ kind: "waiting", state: "input", message: null }]);
    expect(run.newSignals(now + 300)).toEqual([]);
  });

  test("is given anyway once the bound has passed, the reply never written", () => {
    const { run, event } = replyLater(join(tmp.root, "never.jsonl"));
    event({ hook_event_name: "Stop" });
    const now = performance.now();
    expect(run.newSignals(now)).toEqual([]);
    expect(run.newSignals(now + 1_999)).toEqual([]);
    expect(run.newSignals(now + 2_000)).toEqual([{ kind: "waiting", state: "input", message: null }]);
  });
});
