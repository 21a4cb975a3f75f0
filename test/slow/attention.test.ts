// Attention through the real daemon (agents.md, "Attention"): the fake agents' hooks and notify, BEL
// in any task's output, clearing on input (not on attach), `wait`, FLEETCOM_NOTIFY, and the notice an
// attached client gets when another task starts waiting.
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installFakeAgents } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";

let fleet: Fleet;
let fakes: ReturnType<typeof installFakeAgents>;
const notifierPids: number[] = [];
afterEach(async () => {
  for (const pid of notifierPids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  await fleet.stop();
});

/**
 * The PID on the notifier log's first line (`PID TASK`), once that line is whole: the shell's `>>`
 * makes the file before its echo writes, and an empty line read as PID 0 would have the SIGKILL
 * after the test hit this test worker's own process group (it did, in a CI run).
 */
function notifierPidIn(log: string): number | undefined {
  const first = existsSync(log) ? readFileSync(log, "utf8").split("\n")[0]! : "";
  const pid = Number(/^(\d+) \d+$/.exec(first)?.[1]);
  return pid > 0 ? pid : undefined;
}

function newFleet(env: Record<string, string> = {}): Fleet {
  fleet = new Fleet();
  Object.assign(fleet.env, env);
  fakes = installFakeAgents(fleet);
  return fleet;
}

async function spawnAgent(command: string): Promise<number> {
  const id = await fleet.run(command);
  await until(`task ${id} to be ready`, async () => (await fleet.peek(id)).includes(" ready "));
  return id;
}

const send = (id: number, text: string) => fleet.ok(["send", String(id), text]);

/** How many `event` payloads Claude's hooks have written for task `id`'s first run (its events file). */
function hookPayloads(id: number, event: string): number {
  const dir = readdirSync(fleet.sandbox.runtime).find((name) => name.startsWith("agents-"));
  const file = dir === undefined ? null : join(fleet.sandbox.runtime, dir, `task-${id}-1.events`);
  if (file === null || !existsSync(file)) return 0;
  const named = new RegExp(`"hook_event_name":\\s*"${event}"`);
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => named.test(line)).length;
}
const attentionOf = async (id: number) => (await fleet.task(id)).attention;
const waitForAttention = (id: number, what: string, test: (a: TaskInfo["attention"]) => boolean) => fleet.waitForTask(id, what, (t) => test(t.attention));

/** A notifier that appends `id state message` per invocation to a file. */
function recordingNotifier(): { calls(): string[] } {
  const root = fleet.sandbox.root;
  const log = join(root, "notified.log");
  const script = join(root, "notify.sh");
  writeFileSync(
    script,
    `#!/bin/sh\nprintf '%s %s %s|%s\\n' "$FLEETCOM_TASK_ID" "$FLEETCOM_ATTENTION" "$FLEETCOM_TASK_LABEL" "$FLEETCOM_MESSAGE" >> '${log}'\n`,
    { mode: 0o755 },
  );
  fleet.env.FLEETCOM_NOTIFY = `'${script}'`;
  return {
    calls: () =>
      existsSync(log)
        ? readFileSync(log, "utf8")
            .split("\n")
            .filter((l) => l !== "")
        : [],
  };
}

describe("claude's hooks", () => {
  test("working → waiting for input → attached (still waiting) → typed into (cleared) → working → waiting again", async () => {
    newFleet();
    const id = await spawnAgent("claude");
    expect(await attentionOf(id)).toBeNull();
    await send(id, "fix the bug");
    const waiting = await waitForAttention(id, "to wait for input", (a) => a?.state === "input");
    // The Stop payload's last_assistant_message is Claude's reply.
    expect(waiting.attention).toEqual({ state: "input", since: expect.any(String), message: expect.stringMatching(/^turn done [0-9a-f-]{36}$/) });
    expect(Date.parse(waiting.attention!.since)).toBeGreaterThan(0);
    const ls = await fleet.ok(["ls"]);
    expect(ls).toMatch(new RegExp(`^${id}\\s+!\\s+claude .*waiting: input`, "m"));

    const client = fleet.spawnClient(["attach", String(id)]);
    await client.waitForScreen("the attached screen", (s) => s.includes("turn done"));
    // Looking is not answering: the attach reply came before the screen, and the mark is still there.
    expect((await attentionOf(id))?.state).toBe("input");

    await client.waitForRawMode();
    client.write("next step\r");
    await client.waitForScreen("the prompt to be worked on", (s) => s.includes("working on next step"));
    const again = await waitForAttention(id, "to wait again after the turn", (a) => a?.state === "input");
    expect(Date.parse(again.attention!.since)).toBeGreaterThanOrEqual(Date.parse(waiting.attention!.since));
  });

  test("a permission notification carries its message; an idle one waits for input", async () => {
    newFleet();
    const id = await spawnAgent("claude");
    await send(id, "/permission Claude needs your permission to use Bash");
    const asked = await waitForAttention(id, "to ask for permission", (a) => a?.state === "permission");
    expect(asked.attention!.message).toBe("Claude needs your permission to use Bash");
    await send(id, "/idle");
    const idle = await waitForAttention(id, "to wait for input", (a) => a?.state === "input");
    expect(idle.attention!.message).toBe("Claude is waiting for your input");
  });

  test("SessionEnd and the exit clear it", async () => {
    newFleet();
    const id = await spawnAgent("claude");
    await send(id, "/stop");
    await waitForAttention(id, "to wait", (a) => a !== null);
    await send(id, "/exit");
    const done = await fleet.waitForExit(id);
    expect(done.attention).toBeNull();
  });

  test("a hook event the directory watcher never reports still raises attention", async () => {
    newFleet();
    const id = await spawnAgent("claude");
    await send(id, "fix the bug");
    await waitForAttention(id, "to wait for input", (a) => a?.state === "input");
    // Bun's fs.watch drops an event now and then; a write through a second name outside the
    // watched directory is one no watcher reports.
    const dir = readdirSync(fleet.sandbox.runtime).find((name) => name.startsWith("agents-"))!;
    const elsewhere = join(fleet.sandbox.root, "unwatched.events");
    linkSync(join(fleet.sandbox.runtime, dir, `task-${id}-1.events`), elsewhere);
    const payload = { hook_event_name: "Notification", message: "Claude needs your permission to use Bash", notification_type: "permission_prompt" };
    appendFileSync(elsewhere, `${JSON.stringify(payload)}\n`);
    const asked = await waitForAttention(id, "to ask for permission", (a) => a?.state === "permission");
    expect(asked.attention!.message).toBe("Claude needs your permission to use Bash");
  });
});

describe("gemini's hooks", () => {
  test("AfterAgent waits for input with Gemini's reply, a tool permission asks, the exit clears it; Gemini shows no security warning", async () => {
    newFleet();
    const id = await spawnAgent("gemini");
    expect(await attentionOf(id)).toBeNull();
    await send(id, "fix the bug");
    const waiting = await waitForAttention(id, "to wait for input", (a) => a?.state === "input");
    expect(waiting.attention!.message).toBe("FAKE-GEMINI fix the bug");
    await send(id, "/permission Allow execution of: rm -rf build?");
    const asked = await waitForAttention(id, "to ask for permission", (a) => a?.state === "permission");
    expect(asked.attention!.message).toBe("Allow execution of: rm -rf build?");
    expect(await fleet.peek(id)).not.toContain("Security Warning");
    await send(id, "/exit");
    expect((await fleet.waitForExit(id)).attention).toBeNull();
  });

  test("under the user's own GEMINI_CLI_HOME, with settings, an extension and hooks of their own: their hooks still run, their files are unchanged, the conversation is where they keep it", async () => {
    newFleet();
    const geminiHome = join(fleet.sandbox.root, "gemini-home");
    fleet.env.GEMINI_CLI_HOME = geminiHome;
    const dot = join(geminiHome, ".gemini");
    const theirs = join(fleet.sandbox.root, "their-hook.log");
    const theirHook = { hooks: { AfterAgent: [{ hooks: [{ type: "command", command: `cat >> '${theirs}'` }] }] } };
    mkdirSync(join(dot, "extensions", "their-ext", "hooks"), { recursive: true });
    writeFileSync(join(dot, "settings.json"), `// their comment\n${JSON.stringify({ ui: { theme: "Dracula" }, ...theirHook }, null, 2)}\n`);
    writeFileSync(join(dot, "extensions", "their-ext", "gemini-extension.json"), JSON.stringify({ name: "their-ext", version: "1.0.0" }));
    writeFileSync(join(dot, "extensions", "their-ext", "hooks", "hooks.json"), JSON.stringify(theirHook));
    writeFileSync(join(dot, "projects.json"), JSON.stringify({ projects: {} }));
    const before = snapshotFiles(dot);
    const id = await spawnAgent("gemini");
    await send(id, "hello");
    expect((await waitForAttention(id, "to wait for input", (a) => a?.state === "input")).attention!.message).toBe("FAKE-GEMINI hello");
    // Their settings hook and their extension's hook, once each.
    await until("their own hooks", () => existsSync(theirs) && readFileSync(theirs, "utf8").split('"AfterAgent"').length === 3);
    const after = snapshotFiles(dot);
    for (const [path, content] of Object.entries(before)) expect(after[path]).toBe(content);
    // The conversation is in their store, and a save resumes it.
    const stored = Object.entries(snapshotFiles(join(dot, "tmp"))).filter(([path, text]) => path.includes("/chats/") && text.includes("FAKE-GEMINI hello"));
    expect(stored).toHaveLength(1);
    const [saved] = await fleet.savedCommands("gem");
    expect(saved).toMatch(/^gemini --resume '[0-9a-f-]{36}'$/);
  });
});

describe("qwen's hooks", () => {
  test("Stop waits for input with Qwen's reply, a permission prompt asks, the exit clears it; the user's own hooks still run", async () => {
    newFleet();
    const theirs = join(fleet.sandbox.root, "their-qwen-hook.log");
    mkdirSync(join(fleet.sandbox.home, ".qwen"), { recursive: true });
    const settings = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: `cat >> '${theirs}'` }] }] } });
    writeFileSync(join(fleet.sandbox.home, ".qwen", "settings.json"), settings);
    const id = await spawnAgent("qwen");
    expect(await attentionOf(id)).toBeNull();
    await send(id, "fix the bug");
    const waiting = await waitForAttention(id, "to wait for input", (a) => a?.state === "input");
    expect(waiting.attention!.message).toBe("FAKE-QWEN fix the bug");
    expect(readFileSync(theirs, "utf8")).toContain("FAKE-QWEN fix the bug");
    expect(readFileSync(join(fleet.sandbox.home, ".qwen", "settings.json"), "utf8")).toBe(settings);
    await send(id, "/permission Allow shell command: make?");
    const asked = await waitForAttention(id, "to ask for permission", (a) => a?.state === "permission");
    expect(asked.attention!.message).toBe("Allow shell command: make?");
    await send(id, "/exit");
    expect((await fleet.waitForExit(id)).attention).toBeNull();
  });
});

describe("opencode's plugin", () => {
  test("a session gone idle waits for input with its last reply, a permission asked waits for it with the tool and pattern, the exit clears it; the user's own inline config and plugins are kept", async () => {
    newFleet();
    const theirs = join(fleet.sandbox.root, "their-plugin.mjs");
    const seen = join(fleet.sandbox.root, "their-plugin.log");
    writeFileSync(
      theirs,
      `import { appendFileSync } from "node:fs";\nexport const Theirs = async () => ({ event: async ({ event }) => appendFileSync(${JSON.stringify(seen)}, event.type + "\\n") });\n`,
    );
    fleet.env.OPENCODE_CONFIG_CONTENT = JSON.stringify({ theme: "mine", plugin: [`file://${theirs}`] });
    const id = await spawnAgent("opencode");
    expect(await attentionOf(id)).toBeNull();
    await send(id, "fix the bug");
    const waiting = await waitForAttention(id, "to wait for input", (a) => a?.state === "input");
    expect(waiting.attention!.message).toBe("FAKE-OPENCODE fix the bug");
    expect(readFileSync(seen, "utf8")).toContain("session.idle");
    await send(id, "/permission make");
    const asked = await waitForAttention(id, "to ask for permission", (a) => a?.state === "permission");
    expect(asked.attention!.message).toBe("bash: make");
    const start = fakes.invocations().find((i) => i.agent === "opencode")!;
    expect(JSON.parse(start.env.OPENCODE_CONFIG_CONTENT!)).toMatchObject({
      theme: "mine",
      plugin: [`file://${theirs}`, expect.stringMatching(/^file:\/\/.*\/opencode-attention\.js$/)],
    });
    await send(id, "/exit");
    expect((await fleet.waitForExit(id)).attention).toBeNull();
  });
});

/** Every regular file below a directory (symlinks not followed), by relative path, with its content. */
function snapshotFiles(dir: string, prefix = ""): Record<string, string> {
  const found: Record<string, string> = {};
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === "" ? e.name : join(prefix, e.name);
    if (e.isDirectory()) Object.assign(found, snapshotFiles(dir, rel));
    else if (e.isFile()) found[rel] = readFileSync(join(dir, rel), "utf8");
  }
  return found;
}

describe("codex's notify", () => {
  test("a turn completed on the real thread waits for input with the last message", async () => {
    newFleet();
    const id = await spawnAgent("codex");
    await send(id, "hello");
    const waiting = await waitForAttention(id, "to wait for input", (a) => a?.state === "input");
    expect(waiting.attention!.message).toBe("done with hello");
  });

  test("the title thread's notify never raises attention", async () => {
    newFleet();
    const id = await spawnAgent("codex");
    await send(id, "/title");
    await until("the title notify", async () => (await fleet.peek(id)).includes("title sent"));
    const r = await fleet.cli(["wait", String(id), "--for", "waiting", "--timeout", "1"]);
    expect(r.code).toBe(124);
    expect(await attentionOf(id)).toBeNull();
  });
});

describe("a resumed agent", () => {
  test("a conversation brought back by a load sits at its prompt: it waits for input, with its last reply (Codex, Command Code, Gemini, Qwen) or the screen's last line as the message", async () => {
    newFleet();
    const claude = await spawnAgent("claude");
    const codex = await spawnAgent("codex");
    const cc = await spawnAgent("cmd");
    const gemini = await spawnAgent("gemini");
    const qwen = await spawnAgent("qwen");
    for (const id of [claude, codex, gemini, qwen]) {
      await send(id, "hello");
      await waitForAttention(id, "the turn", (a) => a?.state === "input");
    }
    await send(cc, "hello");
    await until("the Command Code turn", async () => (await fleet.peek(cc)).includes("turn done"));
    await fleet.ok(["save", "all"]);
    await fleet.ok(["--kill"]);
    await fleet.ok(["load", "all"]);
    for (const id of [1, 2, 3, 4, 5]) {
      const r = await fleet.cli(["wait", String(id), "--for", "waiting", "--timeout", "30"]);
      expect(r.code).toBe(0);
    }
    const [c, x, m, g, q] = await fleet.ls();
    expect(c!.command).toStartWith("claude --resume");
    expect(m!.command).toStartWith("cmd --resume");
    expect(c!.attention).toMatchObject({ state: "input", message: `fake claude ready ${c!.conversation}` });
    // Not the composer's placeholder or the footer the screen ends with (the field report's `› Ask Codex to do anything`).
    expect(x!.attention).toMatchObject({ state: "input", message: "done with hello" });
    expect(m!.attention).toMatchObject({ state: "input", message: "FAKE-CC-REPLY to hello" });
    expect(g!.attention).toMatchObject({ state: "input", message: "FAKE-GEMINI hello" });
    expect(q!.attention).toMatchObject({ state: "input", message: "FAKE-QWEN hello" });
  });
});

describe("command code's Stop hook", () => {
  test("with the hook agents.md gives in ~/.commandcode/settings.json, a turn ends waiting for input with its reply; without it, nothing", async () => {
    newFleet();
    const bare = await spawnAgent("cmd");
    await send(bare, "first");
    await until("the turn", async () => (await fleet.peek(bare)).includes("turn done"));
    const settings = join(fleet.sandbox.home, ".commandcode", "settings.json");
    mkdirSync(join(settings, ".."), { recursive: true });
    // The lines docs/agents.md gives, as a user would copy them.
    const docs = readFileSync(join(import.meta.dir, "../../docs/agents.md"), "utf8");
    writeFileSync(settings, /```json\n([^`]*"Stop"[^`]*)```/.exec(docs)![1]!);
    const hooked = await spawnAgent("cmd");
    await send(hooked, "second");
    const waiting = await waitForAttention(hooked, "to wait for input", (a) => a?.state === "input");
    expect(waiting.attention!.message).toBe("FAKE-CC-REPLY to second");
    expect(await attentionOf(bare)).toBeNull();
  });
});

describe("the bell", () => {
  test("a BEL raises attention; attaching leaves it, a key typed into the task clears it", async () => {
    newFleet();
    const id = await fleet.run("printf 'Overwrite? [y/N] \\a'; sleep 3600");
    const rung = await waitForAttention(id, "to ring", (a) => a?.state === "bell");
    expect(rung.attention!.message).toBeNull();
    const client = fleet.spawnClient(["attach", String(id)]);
    await client.waitForScreen("the attached screen", (s) => s.includes("Overwrite?"));
    expect((await attentionOf(id))?.state).toBe("bell");
    await client.waitForRawMode();
    client.write("y");
    await waitForAttention(id, "to be cleared by the key", (a) => a === null);
  });

  test("the BEL ending an OSC title, even split across chunks, is no bell; a later real one is", async () => {
    newFleet();
    const id = await fleet.run("printf '\\033]0;my ti'; sleep 0.3; printf 'tle\\007after the title\\n'; read x; printf 'ring\\007\\n'; sleep 3600");
    await until("the title to be printed", async () => (await fleet.peek(id)).includes("after the title"));
    const r = await fleet.cli(["wait", String(id), "--for", "waiting", "--timeout", "1"]);
    expect(r.code).toBe(124);
    expect(await attentionOf(id)).toBeNull();
    await send(id, "go");
    await waitForAttention(id, "the real bell", (a) => a?.state === "bell");
  });

  test("ordinary output once the bell has settled lowers it", async () => {
    newFleet();
    const flag = join(fleet.sandbox.root, "go");
    const id = await fleet.run(`printf 'beep\\a\\n'; while [ ! -e '${flag}' ]; do sleep 0.1; done; while :; do echo tick; sleep 0.3; done`);
    await waitForAttention(id, "to ring", (a) => a?.state === "bell");
    writeFileSync(flag, "");
    await waitForAttention(id, "to be lowered by the output that follows", (a) => a === null);
  });
});

describe("fleetcom wait", () => {
  test("returns 0 on the transition into waiting, and 124 on timeout", async () => {
    newFleet();
    const flag = join(fleet.sandbox.root, "ring");
    const id = await fleet.run(`while [ ! -e '${flag}' ]; do sleep 0.1; done; printf '\\a'; sleep 3600`);
    expect((await fleet.cli(["wait", String(id), "--for", "waiting", "--timeout", "1"])).code).toBe(124);
    const waiting = fleet.cli(["wait", String(id), "--for", "waiting", "--timeout", "30"]);
    writeFileSync(flag, "");
    const r = await waiting;
    expect(r.code).toBe(0);
    expect((await attentionOf(id))?.state).toBe("bell");
  });

  test("--for exit returns when the task exits; an exited task satisfies exit and idle at once", async () => {
    newFleet();
    const flag = join(fleet.sandbox.root, "stop");
    const id = await fleet.run(`while [ ! -e '${flag}' ]; do sleep 0.1; done`);
    const exiting = fleet.cli(["wait", String(id), "--for", "exit", "--timeout", "30"]);
    writeFileSync(flag, "");
    expect((await exiting).code).toBe(0);
    expect((await fleet.task(id)).state).toBe("exited");
    expect((await fleet.cli(["wait", String(id), "--for", "exit"])).code).toBe(0);
    expect((await fleet.cli(["wait", String(id), "--for", "idle"])).code).toBe(0);
  });

  test("--for waiting on a task that exits without waiting fails with a reason", async () => {
    newFleet();
    const id = await fleet.run("true");
    await fleet.waitForExit(id);
    const r = await fleet.cli(["wait", String(id), "--for", "waiting"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`fleetcom: task ${id} exited 0 without waiting\n`);
  });

  test("--for idle returns once the task has been quiet for the idle spell (FLEETCOM_IDLE_SECONDS here, 10 s by default)", async () => {
    newFleet();
    fleet.env.FLEETCOM_IDLE_SECONDS = "1.5";
    const id = await fleet.run("echo once; sleep 3600");
    const r = await fleet.cli(["wait", String(id), "--for", "idle", "--timeout", "30"]);
    expect(r.code).toBe(0);
    expect((await fleet.task(id)).idle).toBe(true);
  });

  test("--any returns the first task that needs the user and prints its id; --group keeps to one group", async () => {
    newFleet();
    const ring = (name: string) => `while [ ! -e '${join(fleet.sandbox.root, name)}' ]; do sleep 0.1; done; printf '\\a'; sleep 3600`;
    const a = await fleet.run(ring("a"), ["--group", "front"]);
    const b = await fleet.run(ring("b"), ["--group", "back"]);
    await fleet.run("sleep 3600");
    const anyTask = fleet.cli(["wait", "--any", "--for", "waiting", "--timeout", "30"]);
    const backTask = fleet.cli(["wait", "--any", "--for", "waiting", "--group", "back", "--timeout", "30"]);
    writeFileSync(join(fleet.sandbox.root, "a"), "");
    expect(await anyTask).toMatchObject({ code: 0, stdout: `${a}\n` });
    // Had --group not kept to "back", this wait would have returned task a already.
    writeFileSync(join(fleet.sandbox.root, "b"), "");
    expect(await backTask).toMatchObject({ code: 0, stdout: `${b}\n` });
  });

  test("--any with no task that can still wait fails with a reason; TASK and --any, or --group alone, are usage errors", async () => {
    newFleet();
    const id = await fleet.run("true");
    await fleet.waitForExit(id);
    const none = await fleet.cli(["wait", "--any", "--for", "waiting"]);
    expect(none).toMatchObject({ code: 1, stderr: "fleetcom: no running task can meet --for waiting\n" });
    const empty = await fleet.cli(["wait", "--any", "--for", "waiting", "--group", "nobody"]);
    expect(empty.stderr).toBe("fleetcom: no running task of group nobody can meet --for waiting\n");
    expect((await fleet.cli(["wait", String(id), "--any", "--for", "exit"])).code).toBe(2);
    expect((await fleet.cli(["wait", String(id), "--for", "exit", "--group", "g"])).code).toBe(2);
    expect((await fleet.cli(["wait", "--for", "exit"])).code).toBe(2);
  });

  test("bad arguments are usage errors", async () => {
    newFleet();
    const id = await fleet.run("sleep 3600");
    const bad = await fleet.cli(["wait", String(id), "--for", "lunch"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("fleetcom: wait: --for: expected waiting, exit, idle or ready, got 'lunch'\n");
    const badTimeout = await fleet.cli(["wait", String(id), "--for", "exit", "--timeout", "soon"]);
    expect(badTimeout.code).toBe(2);
  });
});

describe("FLEETCOM_NOTIFY", () => {
  test("runs exactly once per transition, with the documented environment, however often a hook fires", async () => {
    newFleet({ FAKE_HOOK_REPEAT: "3" });
    const notifier = recordingNotifier();
    const id = await spawnAgent("claude");
    // Each step's three hooks are all written before the next is typed: a repeat written after the
    // user's key is a new question as far as anyone can tell (attended() applies those written before).
    await send(id, "hello");
    await waitForAttention(id, "to wait for input", (a) => a?.state === "input");
    await until("the three Stop hooks", () => hookPayloads(id, "Stop") === 3);
    await send(id, "/permission Allow Bash?");
    await waitForAttention(id, "to ask for permission", (a) => a?.state === "permission");
    await until("the three Notification hooks", () => hookPayloads(id, "Notification") === 3);
    await send(id, "/stop");
    await waitForAttention(id, "to wait for input again", (a) => a?.state === "input");
    const mine = () => notifier.calls().filter((l) => l.startsWith(`${id} `));
    await until("three notifications", () => mine().length >= 3);
    // A later notification of another task: every earlier one has been written by then.
    const other = await fleet.run("printf '\\a'; sleep 3600", ["--name", "beeper"]);
    await until("the other task's notification", () => notifier.calls().some((l) => l.startsWith(`${other} `)));
    // The first Stop carries Claude's reply; the second (alone) none, so the screen's last line (the fake's echo of /stop) is the message.
    expect(mine()).toEqual([
      expect.stringMatching(new RegExp(`^${id} input claude\\|turn done [0-9a-f-]{36}$`)),
      `${id} permission claude|Allow Bash?`,
      `${id} input claude|/stop`,
    ]);
    expect(notifier.calls().filter((l) => l.startsWith(`${other} `))).toEqual([`${other} bell beeper|`]);
  });

  test("a slow or failing notifier never blocks the daemon", async () => {
    newFleet();
    const root = fleet.sandbox.root;
    const log = join(root, "slow.log");
    writeFileSync(
      join(root, "notify.sh"),
      `#!/bin/sh\necho "$$ $FLEETCOM_TASK_ID" >> '${log}'\n[ "$FLEETCOM_TASK_LABEL" = fails ] && { echo broken >&2; exit 3; }\nexec sleep 30\n`,
      { mode: 0o755 },
    );
    fleet.env.FLEETCOM_NOTIFY = `'${join(root, "notify.sh")}'`;
    const first = await fleet.run("printf '\\a'; sleep 3600");
    notifierPids.push(await until("the first notifier to be sleeping", () => notifierPidIn(log)));
    const tasks = await fleet.ls();
    expect(tasks.map((t) => t.id)).toEqual([first]);
    const second = await fleet.run("printf '\\a'; sleep 3600", ["--name", "fails"]);
    await waitForAttention(second, "to ring", (a) => a?.state === "bell");
    const daemonLog = join(fleet.sandbox.runtime, "daemon.log");
    await until(
      "the failure in the daemon log",
      () => existsSync(daemonLog) && readFileSync(daemonLog, "utf8").includes(`FLEETCOM_NOTIFY for task ${second} failed (exit 3): broken`),
    );
  });
});

describe("attached to another task", () => {
  test("a different task starting to wait shows in the terminal title; the attached screen is untouched", async () => {
    newFleet();
    const flag = join(fleet.sandbox.root, "ring");
    const attached = await fleet.run("printf 'line one\\nline two\\n'; sleep 3600");
    const other = await fleet.run(`while [ ! -e '${flag}' ]; do sleep 0.1; done; printf 'ding\\a'; sleep 3600`, ["--name", "builder"]);
    const client = fleet.spawnClient(["attach", String(attached)], { cols: 80, rows: 10 });
    const titles: string[] = [];
    client.term.onTitleChange((t) => titles.push(t));
    const before = await client.waitForScreen("the attached screen", (s) => s.includes("line two"));
    writeFileSync(flag, "");
    await until("the notice", () => titles.find((t) => t.startsWith("fleetcom ! ")));
    expect(titles.at(-1)).toBe(`fleetcom ! task ${other} builder rang the bell`);
    await client.settled();
    expect(client.screen()).toBe(before);
    // The attached task's own waiting is no notice; the other task answered gives the title back.
    await send(other, "ok");
    await client.waitForOutput("\x1b[23;0t");
    expect(client.screen()).toBe(before);
  });
});

describe("the dashboard", () => {
  test("a task that waits gets the ! glyph in a Waiting section first, and the header counts it", async () => {
    // The rows below say ✻ for a quiet running task: keep it from turning idle (∙) on a machine slow enough to take idle_seconds.
    newFleet({ FLEETCOM_IDLE_SECONDS: "3600" });
    const flag = join(fleet.sandbox.root, "ring");
    const quiet = await fleet.run("echo working; sleep 3600", ["--name", "server"]);
    const asking = await fleet.run(`echo asking; while [ ! -e '${flag}' ]; do sleep 0.1; done; printf 'Continue? \\a'; sleep 3600`, ["--name", "installer"]);
    await fleet.waitForTask(asking, "to print", (t) => t.preview === "asking");
    const client = fleet.spawnClient([], { cols: 160, rows: 30 });
    await client.waitForScreen("the dashboard without a Waiting section", (s) => s.includes("Running (2)") && !s.includes("Waiting"));
    writeFileSync(flag, "");
    const screen = await client.waitForScreen("the Waiting section", (s) => s.includes("Waiting (1)") && s.includes("Continue?"));
    const lines = screen.split("\n");
    // A running task's CPU and memory, before its age (docs/dashboard.md).
    const USE = "\\d+% [\\d.]+[KMG] · ";
    expect(lines[0]).toBe("fleetcom · 2 tasks · ! 1 waiting · ✻ 1 running · by state");
    expect(lines[1]).toBe("Waiting (1)");
    // A task that changed section carries the ↑/↓ mark for a few seconds (docs/dashboard.md).
    expect(lines[2]).toMatch(new RegExp(`^[› ] !   ${asking} (?:[↑↓] )?installer · Continue\\? · ${USE}waited \\d+s$`));
    expect(lines[3]).toBe("Running (1)");
    expect(lines[4]).toMatch(new RegExp(`^[› ] ✻   ${quiet} (?:[↑↓] )?server · working · ${USE}\\d+s$`));
    await send(asking, "y");
    await client.waitForScreen("the Waiting section gone", (s) => s.includes("Running (2)") && !s.includes("Waiting"));
  });
});
