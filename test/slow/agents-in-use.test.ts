// Agents as people really run them (issue 13, shared/research/field-reports/real-agents.md). The
// fakes refuse what the real CLIs refuse: a resume of a conversation that has no transcript exits 1
// with the real message, the npm Grok CLI exits 1 on `--session-id`, Codex and Command Code take
// text and Enter in one read as a paste. Through the real daemon, fleetcom resumes only what exists
// (B1), injects only what the binary understands (B2), submits with one send (B3) and snapshots a
// newly captured conversation at once (B4).
import { isProcessAlive } from "../../src/platform.ts";
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { installFakeAgents, type Invocation } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { runFleetcom } from "../harness/helpers.ts";
import { killProcessGroups, processesWithMarker, recoveryDirOf, snapshotFleet, snapshotNames } from "../harness/recovery-helpers.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_LOGGER = resolve(import.meta.dir, "../harness/fixtures/key-logger.ts");

let fleet: Fleet;
let fakes: ReturnType<typeof installFakeAgents>;
let marker: string;

/** A fleet with the fake agents; every process its tasks start carries a marker for the final sweep. */
function setUp(
  options: { flavours?: Record<string, string>; env?: Record<string, string>; snapshots?: boolean; packaged?: Record<string, string> } = {},
): void {
  fleet = options.snapshots ? snapshotFleet({ debounceMs: 100 }) : new Fleet();
  marker = `FLEETCOM_AGENTS_IN_USE=${process.pid}-${Math.random()}`;
  fleet.env.FLEETCOM_AGENTS_IN_USE = marker.split("=")[1]!;
  Object.assign(fleet.env, options.env ?? {});
  fakes = installFakeAgents(fleet, options.flavours, options.packaged);
}

afterEach(async () => {
  await fleet.stop();
  killProcessGroups(processesWithMarker(marker));
});

async function spawn(command: string, flags: string[] = [], env: Record<string, string> = {}): Promise<number> {
  const r = await fleet.cli(["run", ...flags, "--", command], { env });
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr}`);
  const id = Number(r.stdout.trim());
  await until(`task ${id} to be ready`, async () => (await fleet.peek(id)).includes(" ready"));
  return id;
}

const send = (id: number, ...args: string[]) => fleet.ok(["send", String(id), ...args]);

/**
 * The text, then Enter as a second send: what worked before `send` typed like a person (the field
 * report's workaround), so the tests of B1 and B4 do not depend on the fix of B3.
 */
async function submit(id: number, text: string): Promise<void> {
  await send(id, "--no-enter", text);
  await send(id, "");
}

async function turn(id: number, text = "hello"): Promise<void> {
  const before = (await fleet.peek(id)).split("turn done").length;
  await submit(id, text);
  await until(`task ${id} to finish a turn`, async () => (await fleet.peek(id)).split("turn done").length > before);
}

const startsOf = (agent: string): Invocation[] => fakes.invocations().filter((i) => i.agent === agent);

/** The saved commands by directory, in the recipe's order. */
async function saved(name: string): Promise<Record<string, string[]>> {
  await fleet.ok(["save", name]);
  const doc = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", `${name}.json`), "utf8"));
  const dirs = doc.dirs as Record<string, (string | { cmd: string })[]>;
  return Object.fromEntries(Object.entries(dirs).map(([dir, entries]) => [dir, entries.map((e) => (typeof e === "string" ? e : e.cmd))]));
}

function dir(name: string): string {
  const path = join(fleet.sandbox.home, name);
  mkdirSync(path, { recursive: true });
  return path;
}

function daemonLog(): string {
  const path = join(fleet.sandbox.runtime, "daemon.log");
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** How many times the daemon asked the fake `word` for its options (its log line per answer). */
const probesOf = (word: string): number =>
  daemonLog()
    .split("\n")
    .filter((l) => l.includes(` agent probe: ${join(fakes.bin, word)} --help in `)).length;

describe("resume only what exists", () => {
  test("never-used Claude, Codex and Command Code are saved as typed and load as fresh conversations; a used Claude resumes", async () => {
    setUp();
    const [used, idle, cx, cc] = [dir("used"), dir("idle"), dir("cx"), dir("cc")];
    const usedId = await spawn("claude", ["--cwd", used]);
    await turn(usedId);
    const conversation = startsOf("claude")[0]!.args[1]!;
    await spawn("claude", ["--cwd", idle]);
    const idlePin = startsOf("claude")[1]!.args[1]!;
    await spawn("codex", ["--cwd", cx]);
    await spawn("cmd", ["--cwd", cc]);
    const commands = await saved("fleet");
    expect(commands).toEqual({ "~/used": [`claude --resume '${conversation}'`], "~/idle": ["claude"], "~/cx": ["codex"], "~/cc": ["cmd"] });

    await fleet.ok(["--kill"]);
    const before = fakes.invocations().length;
    await fleet.ok(["load", "fleet"]);
    await until("all four to start again", () => fakes.invocations().length === before + 4);
    const rows = await fleet.waitForTask(4, "to be up", (t) => t.state === "running");
    expect(rows).toBeDefined();
    for (const row of await fleet.ls()) {
      await until(`task ${row.id} ready`, async () => (await fleet.peek(row.id)).includes(" ready"));
      expect((await fleet.task(row.id)).state).toBe("running");
    }
    // Brought back in its resume form, the used Claude is still called as typed (issue 24, item 2).
    expect((await fleet.ls()).find((t) => t.cwd === used)).toMatchObject({ command: `claude --resume '${conversation}'`, typed: "claude" });
    const again = fakes.invocations().slice(before);
    const at = (cwd: string) => again.find((i) => i.cwd === cwd)!;
    expect(at(used).args.slice(-2)).toEqual(["--resume", conversation]);
    expect(at(idle).args[0]).toBe("--session-id");
    expect(at(idle).args[1]).toMatch(UUID);
    expect(at(idle).args[1]).not.toBe(idlePin);
    expect(at(cx).args).not.toContain("resume");
    expect(at(cc).args).toEqual([]);
  });

  test("a Codex that exits before its first turn reruns as typed, not as the Session ID it printed", async () => {
    setUp();
    const id = await spawn("codex");
    await submit(id, "/exit");
    await fleet.waitForExit(id);
    expect(await fleet.peek(id)).toMatch(/Session ID: \S+/);
    await fleet.ok(["rerun", String(id)]);
    await until("the rerun to start", () => startsOf("codex").length === 2);
    expect(startsOf("codex")[1]!.args).not.toContain("resume");
    await until("the rerun to be ready", async () => (await fleet.peek(id)).includes(" ready"));
    expect(await fleet.task(id)).toMatchObject({ command: "codex", state: "running" });
  });

  test("a resume form that fails at once is saved as the program and reruns as typed, saying so", async () => {
    setUp();
    const gone = "deadbeef-0000-4000-8000-00000000dead";
    const recipe = join(fleet.sandbox.root, "old.json");
    writeFileSync(recipe, JSON.stringify({ version: 1, dirs: { [fleet.sandbox.home]: [`claude --resume '${gone}'`] } }));
    // The resume ends at once, and load says so when it ends within load's moment (exit 1); the task stays for the rerun.
    const loaded = await fleet.cli(["load", recipe]);
    expect(loaded.code === 0 || loaded.stderr.includes("exited 1 at once")).toBe(true);
    const failed = await fleet.waitForExit(1);
    expect(failed.exitCode).toBe(1);
    expect(await fleet.peek(1)).toContain(`No conversation found with session ID: ${gone}`);
    expect(await saved("after")).toEqual({ "~": ["claude"] });

    const reply = await fleet.ok(["rerun", "1"]);
    expect(reply.trim()).toBe(`task 1: claude --resume '${gone}' ended at once and claude has no conversation ${gone}; running claude as typed`);
    await until("the rerun to start", () => startsOf("claude").length === 2);
    expect(startsOf("claude")[1]!.args[0]).toBe("--session-id");
    await until("the fresh claude", async () => (await fleet.peek(1)).includes(" ready"));
    expect((await fleet.peek(1)).split("\n")[0]).toStartWith(`fleetcom: claude --resume '${gone}' ended at once`);
    expect(await fleet.task(1)).toMatchObject({ command: "claude", state: "running" });
  });
});

describe("inject only what the binary understands", () => {
  test("the npm Grok CLI, which has no sessions, runs exactly as typed and is saved as typed", async () => {
    setUp({ flavours: { grok: "grok-npm" } });
    const id = await spawn("grok");
    expect(startsOf("grok-npm")[0]!.args).toEqual([]);
    expect(await fleet.task(id)).toMatchObject({ command: "grok", agent: "grok", conversation: null, state: "running" });
    expect(await saved("g")).toEqual({ "~": ["grok"] });
    expect(daemonLog()).toContain("grok runs as typed: grok --help lists no --session-id");
  });

  test("a Claude whose --help lists no --session-id or --settings runs as typed", async () => {
    setUp({ flavours: { claude: "claude-old" } });
    await spawn("claude");
    expect(startsOf("claude-old")[0]!.args).toEqual([]);
    expect(startsOf("claude-old")[0]!.env.FLEETCOM_CAPTURE_FILE).toBeNull();
  });

  test("each build of a binary is asked once; the answer is kept 0600 in the cache directory, which outlives a reboot", async () => {
    setUp();
    await spawn("claude");
    await spawn("claude");
    const probes = () => probesOf("claude");
    expect(probes()).toBe(1);
    const cache = join(fleet.sandbox.home, ".cache", "fleetcom", "agent-flags.json");
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(statSync(join(cache, "..")).mode & 0o777).toBe(0o700);
    const entry = JSON.parse(readFileSync(cache, "utf8")).entries.find((e: { path: string }) => e.path === join(fakes.bin, "claude"));
    expect(entry.options).toEqual(expect.arrayContaining(["--session-id", "--settings", "--resume", "-r"]));

    // A new daemon reads the answer from the file; an upgrade (another size and mtime) is asked again.
    await fleet.ok(["--kill"]);
    await spawn("claude");
    expect(probes()).toBe(1);
    const wrapper = join(fakes.bin, "claude");
    writeFileSync(wrapper, `${readFileSync(wrapper, "utf8")}# upgraded\n`);
    chmodSync(wrapper, 0o755);
    await spawn("claude");
    expect(probes()).toBe(2);
    expect(startsOf("claude").map((i) => i.args[0])).toEqual(["--session-id", "--session-id", "--session-id", "--session-id"]);
  });

  test("a binary whose --help gives no answer within the budget runs as typed", async () => {
    setUp({ env: { FLEETCOM_AGENT_PROBE_MS: "200" } });
    await spawn("claude", [], { FAKE_HELP_HANG: "1" });
    expect(startsOf("claude")[0]!.args).toEqual([]);
    expect(daemonLog()).toContain("claude runs as typed: could not learn in time which options claude takes");
  });
});

describe("an agent whose first --help is slow (a cold start: after a reboot, after an update) is still instrumented", () => {
  /** The fakes at the product's probe budget; the first --help of each takes 1.5 s until its marker in the returned directory exists. */
  function coldStarts(packaged: Record<string, string> = {}): string {
    setUp({ packaged });
    const warm = join(fleet.sandbox.root, "warm");
    fleet.env.FAKE_HELP_COLD = warm;
    delete fleet.env.FLEETCOM_AGENT_PROBE_MS;
    return warm;
  }

  /** The last claude started with the flags, and its hooks report: a turn ends waiting for input. */
  async function expectInstrumented(id: number): Promise<void> {
    expect(startsOf("claude").at(-1)!.args[0]).toBe("--session-id");
    await send(id, "hello");
    await fleet.waitForTask(id, "to wait for input (its Stop hook)", (t) => t.attention?.state === "input");
  }

  test("after a reboot, the first claude is instrumented from what the same build answered before", async () => {
    const warm = coldStarts();
    // Before the reboot, a daemon with all the time it needs to ask.
    await spawn("claude", [], { FLEETCOM_AGENT_PROBE_MS: "30000" });
    await fleet.ok(["--kill"]);
    // The reboot: the runtime directory is a tmpfs, and the binary's first start is cold again.
    rmSync(fleet.sandbox.runtime, { recursive: true, force: true });
    rmSync(warm, { recursive: true, force: true });
    await expectInstrumented(await spawn("claude"));
  });

  test("the first agent of a cold daemon with a cold cache, the very command that starts the daemon, starts pinned with what its installed version is proven to take (Gemini 0.61.0, Qwen 0.24.4); a version never run is not guessed", async () => {
    coldStarts({ gemini: "0.61.0", qwen: "0.24.4", claude: "9.9.9" });
    const gem = await spawn("gemini");
    expect(startsOf("gemini")[0]!.args).toEqual(["--session-id", expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect((await fleet.task(gem)).conversation).toBe(startsOf("gemini")[0]!.args[1]!);
    await send(gem, "hello");
    await fleet.waitForTask(gem, "to wait for input (its hooks)", (t) => t.attention?.state === "input");
    await spawn("qwen");
    expect(startsOf("qwen")[0]!.args[0]).toBe("--session-id");
    // A Claude whose version was never run, at its first cold --help: as typed, as before.
    await spawn("claude");
    expect(startsOf("claude")[0]!.args).toEqual([]);
  });

  test("a daemon asks at start, and asks a new build as soon as it appears, so no spawn meets a slow --help", async () => {
    const warm = coldStarts();
    await fleet.ok(["ls"]);
    await until("the daemon to ask claude on its own", () => probesOf("claude") === 1);
    await expectInstrumented(await spawn("claude"));

    // An update while the daemon runs: another build, whose first start is cold.
    const wrapper = join(fakes.bin, "claude");
    writeFileSync(wrapper, `${readFileSync(wrapper, "utf8")}# upgraded\n`);
    rmSync(warm, { recursive: true, force: true });
    await until("the daemon to ask the new build on its own", () => probesOf("claude") === 2);
    await expectInstrumented(await spawn("claude"));
    expect(probesOf("claude")).toBe(2);
  });
});

describe("send types like a person", () => {
  test("one send submits in Codex and Command Code, which take text and Enter in one read as a paste", async () => {
    setUp();
    const cx = await spawn("codex");
    const cc = await spawn("cmd");
    await send(cx, "remember the fruit MANGO-7");
    await send(cc, "/session-file");
    await until("codex's turn", async () => (await fleet.peek(cx)).includes("turn done"));
    await until("command code's turn", async () => (await fleet.peek(cc)).includes("turn done"));
    expect(await fleet.peek(cx)).toContain('working on "remember the fruit MANGO-7"');
  });

  test("--paste sends a multi-line text as one message; without it each line is submitted", async () => {
    setUp();
    const id = await spawn("codex");
    await send(id, "--paste", "one\ntwo");
    await until("the pasted turn", async () => (await fleet.peek(id)).includes('working on "one\\ntwo"'));
    await send(id, "three\nfour");
    await until("two more turns", async () => (await fleet.peek(id)).split("turn done").length === 4);
    expect(await fleet.peek(id)).toContain('working on "three"\nturn done');
    expect(await fleet.peek(id)).toContain('working on "four"');
  });

  test("send - types what stdin holds", async () => {
    setUp();
    const id = await spawn("cmd");
    const r = await runFleetcom(["send", String(id), "-"], { env: fleet.env, stdin: "from stdin\n" });
    expect(r.code).toBe(0);
    await until("the turn", async () => (await fleet.peek(id)).includes("turn done"));
  });

  test("text goes as a bracketed paste when the task turned that mode on, and Enter as a keypress of its own", async () => {
    setUp();
    const id = await fleet.run(`'${process.execPath}' '${KEY_LOGGER}' bracketed`);
    await until("the logger", async () => (await fleet.peek(id)).includes("ready"));
    await send(id, "hi there");
    await until("two reads", async () => (await fleet.peek(id)).split("\n").filter((l) => l.startsWith("read ")).length === 2);
    expect((await fleet.peek(id)).split("\n").filter((l) => l.startsWith("read "))).toEqual(['read "\\u001b[200~hi there\\u001b[201~"', 'read "\\r"']);
  });

  test("--keys sends each named key as a keypress of its own, arrows as the task's cursor-key mode wants them", async () => {
    setUp();
    const id = await fleet.run(`'${process.execPath}' '${KEY_LOGGER}' cursor-keys`);
    await until("the logger", async () => (await fleet.peek(id)).includes("ready"));
    await send(id, "--keys", "C-c", "Enter", "Up", "F5", "M-x", "BSpace", "Tab", "Esc");
    const reads = () => fleet.peek(id).then((s) => s.split("\n").filter((l) => l.startsWith("read ")));
    await until("eight reads", async () => (await reads()).length === 8);
    expect(await reads()).toEqual(
      ['"\\u0003"', '"\\r"', '"\\u001bOA"', '"\\u001b[15~"', '"\\u001bx"', '"\\u007f"', '"\\t"', '"\\u001b"'].map((r) => `read ${r}`),
    );
  });

  test("an unknown key name is a usage error that names it, and nothing is sent", async () => {
    setUp();
    const id = await fleet.run(`'${process.execPath}' '${KEY_LOGGER}'`);
    await until("the logger", async () => (await fleet.peek(id)).includes("ready"));
    const r = await fleet.cli(["send", String(id), "--keys", "Enter", "Hyper"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown key 'Hyper'");
    await fleet.ok(["send", String(id), "--keys", "Tab"]);
    await until("the tab", async () => (await fleet.peek(id)).includes('read "\\t"'));
    expect(await fleet.peek(id)).not.toContain('read "\\r"');
  });
});

describe("a new conversation reaches the recovery snapshot at once", () => {
  test("a Codex whose daemon is SIGKILLed right after its first turn comes back as codex resume <its id>", async () => {
    setUp({ snapshots: true });
    const id = await spawn("codex");
    await turn(id);
    const { conversation } = await fleet.waitForTask(id, "to know its thread", (t) => t.conversation !== null);
    const snapshots = recoveryDirOf(fleet);
    const snapshotHas = (text: string) => snapshotNames(fleet).some((n) => readFileSync(join(snapshots, n), "utf8").includes(text));
    // The minute check is an hour away here: only a capture-triggered pass can write this.
    await until("the snapshot to hold the resume form", () => snapshotHas(`codex resume '${conversation}'`));

    const daemon = fleet.daemonPid()!;
    process.kill(daemon, "SIGKILL");
    killProcessGroups(processesWithMarker(marker));
    // The recovery follows the crash, as the other crash tests have it. A client that connects while
    // the killed daemon is still exiting meets a live process that then drops it; once it is gone,
    // the socket it may leave listening for a moment is no daemon (client.ts connectVerified).
    await until("the daemon to die", () => !isProcessAlive(daemon));
    await fleet.ok(["recover", "--latest"]);
    await until("codex to start again", () => startsOf("codex").length === 2);
    expect(startsOf("codex")[1]!.args.slice(-2)).toEqual(["resume", conversation!]);
    await until("the resumed codex", async () => (await fleet.peek(1)).includes(`ready ${conversation}`));
    expect(await fleet.task(1)).toMatchObject({ command: `codex resume '${conversation}'`, conversation, state: "running" });
  });
});

describe("Claude's live registry", () => {
  test("a Claude run as typed (no --session-id) still names its conversation, and its wait for approval shows as the preview", async () => {
    setUp({ flavours: { claude: "claude-old" } });
    const id = await spawn("claude");
    expect(startsOf("claude-old")[0]!.args).toEqual([]);
    const conversation = /ready (\S+)/.exec(await fleet.peek(id))![1]!;
    const row = await fleet.waitForTask(id, "the registry's conversation", (t) => t.conversation !== null);
    expect(row.conversation).toBe(conversation);
    await send(id, "/permission Allow Bash?");
    await fleet.waitForTask(id, "the preview of the wait", (t) => t.preview === "awaiting approval: Bash");
  });
});

describe("processes that leave the task's group", () => {
  test("kill and rm list them and leave them alone: a Codex app-server in a session of its own, not a child that stayed", async () => {
    setUp();
    const id = await spawn("codex");
    const stayed = await fleet.run("sleep 3600 & sleep 3600");
    await submit(id, "/server");
    const pid = Number(await until("the server", async () => /server (\d+)/.exec(await fleet.peek(id))?.[1]));
    const line = `1 process escaped its group: pid ${pid} codex-app-server 3600`;
    expect(await fleet.ok(["kill", String(id), String(stayed)])).toBe(`killed task ${id}; ${line}\n`);
    expect(isProcessAlive(pid)).toBe(true);
    expect(await fleet.ok(["rm", String(id)])).toBe(`removed task ${id}; ${line}\n`);
    expect(isProcessAlive(pid)).toBe(true);
    process.kill(pid, "SIGKILL");
  });
});
