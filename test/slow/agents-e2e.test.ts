// Agent conversations through the real daemon, with fake agents first on PATH (agents.md): what a
// spawn executes, and what a save, a load, a rerun and a recovery snapshot make of the conversation.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { installFakeAgents, type Invocation } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { crashDaemon, recoveryDirOf, snapshotFleet, snapshotNames } from "../harness/recovery-helpers.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OPENCODE_ID = /^ses_[0-9A-Za-z]{26}$/;

let fleet: Fleet;
let fakes: ReturnType<typeof installFakeAgents>;
function setUp(f: Fleet): void {
  fleet = f;
  fakes = installFakeAgents(fleet);
}
afterEach(async () => {
  await fleet.stop();
});

async function spawn(command: string, env: Record<string, string> = {}): Promise<number> {
  const r = await fleet.cli(["run", "--", command], { env });
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr}`);
  const id = Number(r.stdout.trim());
  await until(`task ${id} to be ready`, async () => (await fleet.peek(id)).includes(" ready "));
  return id;
}

async function send(id: number, text: string): Promise<void> {
  await fleet.ok(["send", String(id), text]);
}

async function turn(id: number): Promise<void> {
  const before = (await fleet.peek(id)).split("turn done").length;
  await send(id, "hello");
  await until(`task ${id} to finish a turn`, async () => (await fleet.peek(id)).split("turn done").length > before);
}

function startsOf(agent: string): Invocation[] {
  return fakes.invocations().filter((i) => i.agent === agent);
}

function namespaceOf(invocation: Invocation): string {
  const file = invocation.env.FLEETCOM_CAPTURE_FILE ?? invocation.env.COMMANDCODE_SCRATCHPAD_BASE!;
  return join(file, "..");
}

// Per agent: how it is typed, whether a turn is needed before its conversation is known and in the
// agent's store (only then is it resumable), and what a start's arguments look like bare and resumed.
const AGENTS = [
  {
    agent: "claude",
    typed: "claude",
    needsTurn: true,
    bare: (i: Invocation) => {
      const ns = namespaceOf(i);
      expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID), "--settings", join(ns, "claude-settings.json")]);
      return i.args[1]!;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["--settings", join(namespaceOf(i), "claude-settings.json"), "--resume", id]),
    resumeForm: (id: string) => `claude --resume '${id}'`,
  },
  {
    agent: "codex",
    typed: "codex",
    needsTurn: true,
    bare: (i: Invocation) => {
      expect(i.args).toEqual(["-c", `notify=["${join(namespaceOf(i), "codex-notify.sh")}"]`]);
      expect(i.env.FLEETCOM_NOTIFY_CHAIN).toBe("");
      return null;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["-c", `notify=["${join(namespaceOf(i), "codex-notify.sh")}"]`, "resume", id]),
    resumeForm: (id: string) => `codex resume '${id}'`,
  },
  {
    agent: "grok",
    typed: "grok",
    needsTurn: true,
    bare: (i: Invocation) => {
      expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID)]);
      return i.args[1]!;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["--resume", id]),
    resumeForm: (id: string) => `grok --resume '${id}'`,
  },
  {
    agent: "command-code",
    typed: "cmd",
    needsTurn: true,
    bare: (i: Invocation) => {
      expect(i.args).toEqual([]);
      expect(i.env.COMMANDCODE_SCRATCHPAD_BASE).toMatch(/\/agents-\d+-[^/]+\/cc-1-1$/);
      return null;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["--resume", id]),
    resumeForm: (id: string) => `cmd --resume '${id}'`,
  },
  {
    agent: "gemini",
    typed: "gemini",
    needsTurn: true,
    bare: (i: Invocation) => {
      expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID)]);
      expect(i.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).toBeNull();
      expect(i.env.GEMINI_CLI_HOME).toBe(join(namespaceOf(i), "task-1-1.gemini-home"));
      return i.args[1]!;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["--resume", id]),
    resumeForm: (id: string) => `gemini --resume '${id}'`,
  },
  {
    agent: "qwen",
    typed: "qwen",
    needsTurn: true,
    bare: (i: Invocation) => {
      expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID)]);
      expect(i.env.QWEN_CODE_SYSTEM_SETTINGS_PATH).toBe(join(namespaceOf(i), "qwen-settings.json"));
      return i.args[1]!;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["--resume", id]),
    resumeForm: (id: string) => `qwen --resume '${id}'`,
  },
  {
    agent: "opencode",
    typed: "opencode",
    needsTurn: true,
    bare: (i: Invocation) => {
      expect(i.args).toEqual([]);
      return null;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["-s", id]),
    resumeForm: (id: string) => `opencode -s '${id}'`,
  },
];

/** The conversation a fake names on its screen after a turn (`turn done <id>`). */
async function conversationOnScreen(id: number): Promise<string> {
  return /turn done (\S+)/.exec(await fleet.peek(id))![1]!;
}

describe.each(AGENTS)("$agent through the daemon", (a) => {
  beforeEach(() => setUp(new Fleet()));

  async function spawnedWithConversation(): Promise<{ id: number; conversation: string }> {
    const id = await spawn(a.typed);
    const pinned = a.bare(startsOf(a.agent).at(-1)!);
    if (a.needsTurn) await turn(id);
    // opencode is neither pinned nor captured while it runs: its conversation is matched in its database at a save.
    if (a.agent === "opencode") {
      const conversation = await conversationOnScreen(id);
      expect(conversation).toMatch(OPENCODE_ID);
      return { id, conversation };
    }
    const row = await fleet.waitForTask(id, "to know its conversation", (t) => t.conversation !== null);
    expect(row).toMatchObject({ command: a.typed, agent: a.agent });
    if (pinned) expect(row.conversation).toBe(pinned);
    return { id, conversation: row.conversation! };
  }

  test("spawned bare, it is saved in its resume form and loads back into the same conversation", async () => {
    const { conversation } = await spawnedWithConversation();
    expect(await fleet.savedCommands("agents")).toEqual([a.resumeForm(conversation)]);

    await fleet.ok(["--kill"]);
    const startsBefore = startsOf(a.agent).length;
    await fleet.ok(["load", "agents"]);
    await until("the agent to start again", () => startsOf(a.agent).length > startsBefore);
    const resumed = startsOf(a.agent).at(-1)!;
    a.resumed(resumed, conversation);
    const [row] = await fleet.ls();
    expect(row).toMatchObject({ command: a.resumeForm(conversation), agent: a.agent, conversation });
  });

  test("a rerun of the finished task resumes the conversation and the row shows the resume form", async () => {
    const { id, conversation } = await spawnedWithConversation();
    await send(id, "/exit");
    await fleet.waitForExit(id);
    await fleet.ok(["rerun", String(id)]);
    await until("the rerun to start", () => startsOf(a.agent).length === 2);
    a.resumed(startsOf(a.agent)[1]!, conversation);
    expect(await fleet.task(id)).toMatchObject({ command: a.resumeForm(conversation), conversation, state: "running" });
  });
});

// The agents of issue 28, each twice in its own directory: one used, one never used. A daemon
// SIGKILLed once the snapshot holds the used one's resume form recovers it as the same
// conversation, and the never-used one as a fresh start (Gemini writes its session file before any
// turn: resuming that file would fail with exit 42).
const NEW_AGENTS = [
  {
    agent: "gemini",
    fresh: (i: Invocation) => expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID)]),
    resumed: (id: string) => ["--resume", id],
  },
  { agent: "qwen", fresh: (i: Invocation) => expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID)]), resumed: (id: string) => ["--resume", id] },
  { agent: "opencode", fresh: (i: Invocation) => expect(i.args).toEqual([]), resumed: (id: string) => ["-s", id] },
  { agent: "grok", fresh: (i: Invocation) => expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID)]), resumed: (id: string) => ["--resume", id] },
];

describe.each(NEW_AGENTS)("$agent after the daemon is SIGKILLed", (a) => {
  beforeEach(() => setUp(snapshotFleet({ debounceMs: 100, checkMs: 200 })));

  test("recover --latest brings the used one back as the same conversation and the never-used one fresh", async () => {
    const dirs = ["used", "idle"].map((name) => join(fleet.sandbox.home, name));
    for (const dir of dirs) mkdirSync(dir, { recursive: true });
    const used = await spawnIn(a.agent, dirs[0]!);
    await spawnIn(a.agent, dirs[1]!);
    await turn(used);
    const conversation = await conversationOnScreen(used);
    const idlePin = startsOf(a.agent).find((i) => i.cwd === dirs[1])!.args[1];
    const resumeForm = `${a.agent} ${a.resumed(conversation)[0]} '${conversation}'`;
    await until("a snapshot with the resume form", () => snapshotText().includes(resumeForm));
    expect(snapshotText()).not.toContain(`'${idlePin}'`);

    await crashDaemon(fleet);
    const before = startsOf(a.agent).length;
    await fleet.ok(["recover", "--latest"]);
    await until("both to start again", () => startsOf(a.agent).length === before + 2);
    const again = startsOf(a.agent).slice(before);
    expect(again.find((i) => i.cwd === dirs[0])!.args).toEqual(a.resumed(conversation));
    const fresh = again.find((i) => i.cwd === dirs[1])!;
    a.fresh(fresh);
    if (idlePin !== undefined) expect(fresh.args[1]).not.toBe(idlePin);
    await until("the used one resumed", async () => (await fleet.peek(used)).includes(`ready ${conversation}`));
    for (const row of await fleet.ls()) expect(row.state).toBe("running");
  });
});

// A load or a recovery starts its opencodes at once, and they share one database in the home: the
// fake must wait for SQLite's lock, not die of "database is locked" (which made the recovery test
// above fail now and then; two fakes opening a new database at the same moment collided 28 times in 30).
describe("opencodes started at once", () => {
  beforeEach(() => setUp(new Fleet()));

  test("all come up on the database none of them has made yet", async () => {
    const starts = Array.from({ length: 6 }, () =>
      Bun.spawn([join(fakes.bin, "opencode")], { env: fleet.env, cwd: fleet.sandbox.home, stdin: "pipe", stdout: "pipe", stderr: "pipe" }),
    );
    // Each one's first words, or what it said as it died.
    const firstWords = async (proc: (typeof starts)[number]) => {
      const { value } = await proc.stdout.getReader().read();
      return value ? new TextDecoder().decode(value) : await new Response(proc.stderr).text();
    };
    try {
      for (const words of await Promise.all(starts.map(firstWords))) expect(words).toContain("fake opencode ready new");
    } finally {
      for (const proc of starts) proc.kill();
    }
  });
});

async function spawnIn(command: string, cwd: string): Promise<number> {
  const r = await fleet.cli(["run", "--cwd", cwd, "--", command]);
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr}`);
  const id = Number(r.stdout.trim());
  await until(`task ${id} to be ready`, async () => (await fleet.peek(id)).includes(" ready "));
  return id;
}

function snapshotText(): string {
  const dir = recoveryDirOf(fleet);
  // The snapshots, not the history directories beside them.
  return snapshotNames(fleet)
    .map((n) => readFileSync(join(dir, n), "utf8"))
    .join("\n");
}

describe("gemini's session file, written before any turn", () => {
  beforeEach(() => setUp(new Fleet()));

  test("a Gemini that quits before a turn prints a resume hint, yet reruns fresh: resuming its empty session would exit 42", async () => {
    const id = await spawn("gemini");
    const pinned = startsOf("gemini")[0]!.args[1]!;
    await send(id, "/exit");
    await fleet.waitForExit(id);
    expect(await fleet.peek(id)).toContain(`To resume this session: gemini --resume ${pinned}`);
    expect(await fleet.savedCommands("quit")).toEqual(["gemini"]);
    await fleet.ok(["rerun", String(id)]);
    await until("the rerun to start", () => startsOf("gemini").length === 2);
    const again = startsOf("gemini")[1]!;
    expect(again.args[0]).toBe("--session-id");
    expect(again.args[1]).not.toBe(pinned);
    await until("the fresh gemini", async () => (await fleet.peek(id)).includes(`ready ${again.args[1]}`));
  });

  test("a resume form Gemini refuses with exit 42 is saved as the program and reruns as typed, saying so", async () => {
    const gone = "deadbeef-0000-4000-8000-00000000dead";
    await fleet.run(`gemini --resume '${gone}'`);
    const failed = await fleet.waitForExit(1);
    expect(failed.exitCode).toBe(42);
    expect(await fleet.peek(1)).toContain("Error resuming session: No previous sessions found for this project.");
    expect(await fleet.savedCommands("gone")).toEqual(["gemini"]);
    const reply = await fleet.ok(["rerun", "1"]);
    expect(reply.trim()).toBe(`task 1: gemini --resume '${gone}' ended at once and gemini has no conversation ${gone}; running gemini as typed`);
    await until("the rerun to start", () => startsOf("gemini").length === 2);
    expect(startsOf("gemini")[1]!.args[0]).toBe("--session-id");
  });
});

describe("Command Code in directories whose names slugify changes", () => {
  beforeEach(() => setUp(new Fleet()));

  test("in MyApp/, R&D/ and Größe/ it is saved in its resume form and loads back into the same conversation", async () => {
    const dirs = ["MyApp", "R&D", "Größe"].map((name) => join(fleet.sandbox.home, name));
    const conversations: string[] = [];
    for (const dir of dirs) {
      mkdirSync(dir, { recursive: true });
      const id = await spawnIn("cmd", dir);
      await turn(id);
      conversations.push(await conversationOnScreen(id));
    }
    expect((await fleet.savedCommands("cc")).sort()).toEqual(conversations.map((c) => `cmd --resume '${c}'`).sort());
    await fleet.ok(["--kill"]);
    const before = startsOf("command-code").length;
    await fleet.ok(["load", "cc"]);
    await until("all three to start again", () => startsOf("command-code").length === before + 3);
    const again = startsOf("command-code").slice(before);
    expect(dirs.map((dir) => again.find((s) => s.cwd === dir)!.args)).toEqual(conversations.map((c) => ["--resume", c]));
  });
});

describe("recovery snapshots", () => {
  beforeEach(() => setUp(snapshotFleet({ debounceMs: 100, checkMs: 200 })));

  test("the periodic check writes the resume form once a conversation is captured after the spawn", async () => {
    const id = await spawn("codex");
    await until("a snapshot of the bare command", () => snapshotText().includes('"codex"'));
    await turn(id);
    const { conversation } = await fleet.waitForTask(id, "to know its conversation", (t) => t.conversation !== null);
    await until("a snapshot with the resume form", () => snapshotText().includes(`"codex resume '${conversation}'"`));
  });
});

/** Puts a conversation in the fake Claude's store, as if it had been used. */
function claudeTranscript(id: string, cwd = fleet.sandbox.home): void {
  const dir = join(fleet.sandbox.home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${id}.jsonl`), `{"type":"user"}\n`);
}

describe("evidence precedence", () => {
  beforeEach(() => setUp(new Fleet()));
  const A = "aaaaaaaa-0000-4000-8000-000000000001";
  const H = "bbbbbbbb-0000-4000-8000-000000000002";

  test("the exit hint beats the capture, which beats the ID pinned at spawn", async () => {
    claudeTranscript(A);
    claudeTranscript(H);
    const id = await spawn("claude", { FAKE_CAPTURE_ID: A, FAKE_HINT_ID: H });
    const pinned = startsOf("claude")[0]!.args[1]!;
    expect(pinned).not.toBe(A);
    expect((await fleet.task(id)).conversation).toBe(A);
    await send(id, "/exit");
    await fleet.waitForExit(id);
    expect((await fleet.task(id)).conversation).toBe(H);
    expect(await fleet.savedCommands("p")).toEqual([`claude --resume '${H}'`]);
  });

  test("the pin stands when the capture and the hint are not UUIDs", async () => {
    const id = await spawn("grok", { FAKE_HINT_ID: "not-a-uuid" });
    const pinned = startsOf("grok")[0]!.args[1]!;
    await send(id, "/exit");
    await fleet.waitForExit(id);
    expect((await fleet.task(id)).conversation).toBe(pinned);
  });

  test("a /clear-style second SessionStart moves the capture to the new conversation", async () => {
    const id = await spawn("claude");
    const first = (await fleet.task(id)).conversation;
    await send(id, "/clear");
    const cleared = await until("the clear", async () => /cleared (\S+)/.exec(await fleet.peek(id))?.[1]);
    expect(cleared).not.toBe(first);
    expect((await fleet.task(id)).conversation).toBe(cleared);
    expect(await fleet.savedCommands("c")).toEqual([`claude --resume '${cleared}'`]);
  });

  test("codex's title-thread notify, which comes last, never replaces the real thread", async () => {
    const id = await spawn("codex");
    const real = /ready (\S+)/.exec(await fleet.peek(id))![1]!;
    await turn(id);
    await turn(id);
    const capture = readFileSync(startsOf("codex")[0]!.env.FLEETCOM_CAPTURE_FILE!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(capture.map((p) => p["thread-id"] === real)).toEqual([true, false, true, false]);
    expect((await fleet.task(id)).conversation).toBe(real);
  });
});

describe("hostile IDs never reach a command", () => {
  beforeEach(() => setUp(new Fleet()));
  const canary = `/tmp/pwned-${crypto.randomUUID()}`;
  const HOSTILE = [
    `$(touch ${canary})`,
    `'; touch ${canary}; '`,
    "C8C4A5CC-0B32-4BA0-A6B4-6ED08C218E0D",
    "c8c4a5cc-0b32-4ba0-a6b4-6ed08c218e0",
    `c8c4a5cc-0b32-4ba0-a6b4-6ed08c218e0d;touch${"\t"}${canary}`,
    "`touch /tmp/x`",
  ];

  test.each(HOSTILE)(
    "%p in capture channels and exit hints is never used: codex falls back to its store, Command Code to the command as typed",
    async (hostile) => {
      const env = { FAKE_CAPTURE_ID: hostile, FAKE_HINT_ID: hostile };
      const codexTask = await spawn("codex", env);
      const cmdTask = await spawn("cmd", env);
      const real = /ready (\S+)/.exec(await fleet.peek(codexTask))![1]!;
      await turn(codexTask);
      expect(await fleet.savedCommands("hostile")).toEqual([`codex resume '${real}'`, "cmd"]);
      // Whether ls has read Codex's store yet depends on when its watcher woke: the hostile ID never shows.
      const [codexConversation, cmdConversation] = (await fleet.ls()).map((t) => t.conversation);
      expect([null, real]).toContain(codexConversation ?? null);
      expect(cmdConversation).toBeNull();
      for (const id of [codexTask, cmdTask]) {
        await send(id, "/exit");
        await fleet.waitForExit(id);
        expect(await fleet.peek(id)).toContain(hostile.split("\t")[0]!.slice(0, 20));
        await fleet.ok(["rerun", String(id)]);
      }
      await until("both reruns to start", () => fakes.invocations().length === 4);
      expect(
        fakes
          .invocations()
          .slice(2)
          .map((i) => i.args.filter((a) => !a.startsWith("notify=") && a !== "-c")),
      ).toEqual([[], []]);
      expect((await fleet.ls()).map((t) => t.command)).toEqual(["codex", "cmd"]);
      expect(existsSync(canary)).toBe(false);
    },
  );

  test("a hostile capture and hint leave claude on its pinned ID", async () => {
    const id = await spawn("claude", { FAKE_CAPTURE_ID: HOSTILE[0]!, FAKE_HINT_ID: HOSTILE[1]! });
    const pinned = startsOf("claude")[0]!.args[1]!;
    await turn(id);
    await send(id, "/exit");
    await fleet.waitForExit(id);
    expect(await fleet.savedCommands("pin")).toEqual([`claude --resume '${pinned}'`]);
    expect(existsSync(canary)).toBe(false);
  });

  test("a command whose resume ID is not a strict UUID runs, shows and saves exactly as typed", async () => {
    const typed = `claude --resume '$(touch ${canary})'`;
    const id = await fleet.run(typed);
    // The fake, like Claude, refuses an ID it has no transcript for.
    await fleet.waitForExit(id);
    expect(await fleet.peek(id)).toContain("No conversation found with session ID: $(touch");
    const row = await fleet.task(id);
    expect(row).toMatchObject({ command: typed, agent: null, conversation: null });
    expect(await fleet.savedCommands("typed")).toEqual([typed]);
    expect(fakes.invocations()[0]!.args).toEqual(["--resume", `$(touch ${canary})`]);
  });
});

describe("codex notify chaining", () => {
  beforeEach(() => setUp(new Fleet()));

  function userNotifier(): { out: string; config: string } {
    const dir = join(fleet.sandbox.home, ".codex");
    mkdirSync(dir, { recursive: true });
    const out = join(fleet.sandbox.root, "user-notified.jsonl");
    const script = join(fleet.sandbox.root, "user notifier.sh");
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$#:$1:$2" >> '${out}'\n`);
    chmodSync(script, 0o755);
    return { out, config: join(dir, "config.toml") };
  }

  test("the user's one-line notifier still runs, with its own arguments and the payload, after fleetcom's", async () => {
    const { out, config } = userNotifier();
    writeFileSync(config, `model = "o3"\nnotify = ["${join(fleet.sandbox.root, "user notifier.sh")}", "--from-codex"] # mine\n\n[tui]\nnotifications = true\n`);
    const id = await spawn("codex");
    expect(startsOf("codex")[0]!.env.FLEETCOM_NOTIFY_CHAIN).toBe(`${join(fleet.sandbox.root, "user notifier.sh")}\n--from-codex`);
    await turn(id);
    const real = (await fleet.waitForTask(id, "to capture", (t) => t.conversation !== null)).conversation!;
    const calls = await until("the user's notifier", () => existsSync(out) && readFileSync(out, "utf8").trim().split("\n"));
    expect(calls).toHaveLength(2);
    expect(calls[0]).toStartWith("2:--from-codex:{");
    expect(JSON.parse(calls[0]!.slice("2:--from-codex:".length))["thread-id"]).toBe(real);
  });

  test.each([
    ["a multi-line notify", `notify = [\n  "/bin/true",\n]\n`],
    ["two notify assignments", `notify = ["/bin/true"]\nnotify = ["/bin/false"]\n`],
    ["escapes in the notify strings", `notify = ["/bin/echo", "a\\"b"]\n`],
    ["a notify inside a table", `[profiles.work]\nnotify = ["/bin/true"]\n`],
  ])("%s disables injection and leaves the user's notifier alone", async (_what, text) => {
    const { config } = userNotifier();
    writeFileSync(config, text);
    await spawn("codex");
    const start = startsOf("codex")[0]!;
    expect(start.args).toEqual([]);
    expect(start.env.FLEETCOM_CAPTURE_FILE).toBeNull();
    expect(start.env.FLEETCOM_NOTIFY_CHAIN).toBeNull();
    expect((await fleet.ls())[0]).toMatchObject({ command: "codex", agent: "codex" });
  });
});

describe("the capture namespace", () => {
  beforeEach(() => setUp(new Fleet()));

  test("is private to this supervisor: a 0700 directory with 0600 files and 0700 scripts, one capture file per run, gone with the task", async () => {
    const id = await spawn("claude");
    await spawn("codex");
    const [claudeStart, codexStart] = fakes.invocations();
    const ns = namespaceOf(claudeStart!);
    expect(ns).toMatch(new RegExp(`^${fleet.sandbox.runtime}/agents-${fleet.daemonPid()}-`));
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(ns)).toBe(0o700);
    expect(mode(join(ns, "claude-settings.json"))).toBe(0o600);
    expect(mode(join(ns, "codex-notify.sh"))).toBe(0o700);
    expect(mode(claudeStart!.env.FLEETCOM_CAPTURE_FILE!)).toBe(0o600);
    expect([claudeStart!.env.FLEETCOM_CAPTURE_FILE, codexStart!.env.FLEETCOM_CAPTURE_FILE]).toEqual([join(ns, "task-1-1.json"), join(ns, "task-2-1.json")]);

    await send(id, "/exit");
    await fleet.waitForExit(id);
    await fleet.ok(["rerun", String(id)]);
    await until("the rerun", () => startsOf("claude").length === 2);
    expect(startsOf("claude")[1]!.env.FLEETCOM_CAPTURE_FILE).toBe(join(ns, "task-1-2.json"));
    await fleet.ok(["kill", String(id)]);
    await fleet.waitForExit(id);
    await fleet.ok(["rm", String(id)]);
    expect(readdirSync(ns).filter((n) => n.startsWith("task-1-"))).toEqual([]);
    expect(readdirSync(ns)).toContain("codex-notify.sh");
    await fleet.ok(["--kill"]);
    expect(existsSync(ns)).toBe(false);
  });

  test("a Gemini run's overlay home goes with its task and with the supervisor; the user's Gemini folder it links stays whole", async () => {
    const id = await spawn("gemini");
    await turn(id);
    const overlay = startsOf("gemini")[0]!.env.GEMINI_CLI_HOME!;
    expect(statSync(overlay).mode & 0o777).toBe(0o700);
    const dot = join(fleet.sandbox.home, ".gemini");
    const chats = () => readdirSync(join(dot, "tmp"), { recursive: true }).filter((n) => String(n).endsWith(".jsonl"));
    expect(chats()).toHaveLength(1);
    await send(id, "/exit");
    await fleet.waitForExit(id);
    await fleet.ok(["rm", String(id)]);
    expect(existsSync(overlay)).toBe(false);
    expect(chats()).toHaveLength(1);
    const again = await spawn("gemini");
    await turn(again);
    await fleet.ok(["--kill"]);
    expect(existsSync(startsOf("gemini")[1]!.env.GEMINI_CLI_HOME!)).toBe(false);
    expect(chats()).toHaveLength(2);
  });

  test("Command Code's scratch base is kept while the task exists and removed with it", async () => {
    const id = await spawn("cmd");
    const base = startsOf("command-code")[0]!.env.COMMANDCODE_SCRATCHPAD_BASE!;
    await send(id, "/exit");
    await fleet.waitForExit(id);
    expect(existsSync(base)).toBe(true);
    await fleet.ok(["rm", String(id)]);
    expect(existsSync(base)).toBe(false);
  });
});

describe("homes the CLIs let users move", () => {
  beforeEach(() => setUp(new Fleet()));

  test("QWEN_HOME and QWEN_RUNTIME_DIR, OPENCODE_DB, GEMINI_CLI_HOME: each conversation is found where the CLI keeps it, and saved in its resume form", async () => {
    const moved = (name: string) => join(fleet.sandbox.root, name);
    const qwen = await spawn("qwen", { QWEN_HOME: moved("qwen-home"), QWEN_RUNTIME_DIR: moved("qwen-runtime") });
    const opencode = await spawn("opencode", { OPENCODE_DB: moved("oc.db") });
    const gemini = await spawn("gemini", { GEMINI_CLI_HOME: moved("gemini-home") });
    for (const id of [qwen, opencode, gemini]) await turn(id);
    expect(readdirSync(moved("qwen-runtime/projects"), { recursive: true }).some((n) => String(n).endsWith(".jsonl"))).toBe(true);
    expect(existsSync(moved("oc.db"))).toBe(true);
    const [q, o, g] = await fleet.savedCommands("moved");
    expect(q).toMatch(/^qwen --resume '[0-9a-f-]{36}'$/);
    expect(o).toMatch(/^opencode -s 'ses_[0-9A-Za-z]{26}'$/);
    expect(g).toMatch(/^gemini --resume '[0-9a-f-]{36}'$/);
  });
});
