// An agent the user declares in config.toml (agents.md, "Agents you declare"), through the real
// daemon with a fake binary written here: pinned at its start, saved in its resume form once its
// store holds the conversation, and loaded back into it after `--kill`; a bad entry is one line.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet, until } from "../harness/fleet.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Behaves as the CLIs of agents.md do: `--session-id` of a conversation that exists exits 42, a
// `--resume` of one its store does not hold says so and exits 1, and the store's file is written
// at the first turn (an agent opened and never used has nothing to resume).
const FAKE = (log: string) => `#!/bin/sh
store="$HOME/.myagent/sessions"
printf '%s\\n' "$*" >> '${log}'
case "$1" in
  --help) echo "Usage: myagent [--session-id <id>] [--resume <id>]"; exit 0 ;;
  --version) echo "myagent 3.2.1"; exit 0 ;;
  --session-id) id=$2; [ -e "$store/$id.jsonl" ] && { echo "session $id exists"; exit 42; } ;;
  --resume) id=$2; [ -s "$store/$id.jsonl" ] || { echo "no session $id"; exit 1; }; echo "resumed $id" ;;
  *) id=none ;;
esac
echo "ready $id"
while read -r line; do mkdir -p "$store"; printf '%s\\n' "$line" >> "$store/$id.jsonl"; echo "turn done"; done
`;

const MANIFEST = `[agents.myagent]
match = "myagent"
pin = ["--session-id", "{id}"]
resume = ["--resume", "{id}"]
store = "~/.myagent/sessions/{id}.jsonl"
id = "uuid"
`;

let fleet: Fleet;
let log: string;

function writeConfig(text: string): void {
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), text);
}

beforeEach(() => {
  fleet = new Fleet();
  const bin = join(fleet.sandbox.root, "bin");
  log = join(fleet.sandbox.root, "myagent-starts.log");
  mkdirSync(bin);
  writeFileSync(log, "");
  writeFileSync(join(bin, "myagent"), FAKE(log));
  chmodSync(join(bin, "myagent"), 0o755);
  fleet.env.PATH = `${bin}:${fleet.env.PATH}`;
  fleet.env.FLEETCOM_AGENT_PROBE_MS = "30000";
  writeConfig(MANIFEST);
});
afterEach(() => fleet.stop());

/** The argument lists of the fake's starts, `--help` (the probe) left out. */
function starts(): string[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l !== "" && l !== "--help");
}

async function started(): Promise<{ id: number; pinned: string }> {
  const id = await fleet.run("myagent");
  await until("the agent to be ready", async () => (await fleet.peek(id)).includes("ready "));
  const [flag, pinned] = starts().at(-1)!.split(" ");
  expect(flag).toBe("--session-id");
  expect(pinned).toMatch(UUID);
  return { id, pinned: pinned! };
}

describe("a declared agent", () => {
  test("goes through save, --kill and load as the same conversation", async () => {
    const { id, pinned } = await started();
    await fleet.ok(["send", String(id), "hello"]);
    await until("the turn", async () => (await fleet.peek(id)).includes("turn done"));
    expect(await fleet.task(id)).toMatchObject({ agent: "myagent", conversation: pinned, command: "myagent" });
    expect(await fleet.savedCommands("mine")).toEqual([`myagent --resume '${pinned}'`]);

    await fleet.ok(["--kill"]);
    await fleet.ok(["load", "mine"]);
    await until("the agent to resume", () => starts().length === 2);
    expect(starts()[1]).toBe(`--resume ${pinned}`);
    const [row] = await fleet.ls();
    await until("the resumed agent to be ready", async () => (await fleet.peek(row!.id)).includes(`resumed ${pinned}`));
    expect(row).toMatchObject({ agent: "myagent", conversation: pinned, command: `myagent --resume '${pinned}'` });
  });

  test("never used, it is saved as typed and comes back fresh with a new ID", async () => {
    const { pinned } = await started();
    expect(await fleet.savedCommands("unused")).toEqual(["myagent"]);

    await fleet.ok(["--kill"]);
    await fleet.ok(["load", "unused"]);
    await until("the agent to start again", () => starts().length === 2);
    const [flag, again] = starts()[1]!.split(" ");
    expect(flag).toBe("--session-id");
    expect(again).toMatch(UUID);
    expect(again).not.toBe(pinned);
  });
});

describe("a resume that fails at once", () => {
  test("a saved conversation its store no longer holds reruns the program as typed", async () => {
    const gone = "0b3f6c1e-2d4a-4e8b-9c7d-5a6b7c8d9e0f";
    mkdirSync(join(fleet.sandbox.config, "sessions"), { recursive: true });
    const session = { version: 1, name: "old", dirs: { [fleet.sandbox.home]: [`myagent --resume '${gone}'`] } };
    writeFileSync(join(fleet.sandbox.config, "sessions", "old.json"), JSON.stringify(session));
    // The resume ends at once, and load says so when it ends within load's moment (exit 1); the task stays for the rerun.
    const loaded = await fleet.cli(["load", "old"]);
    expect(loaded.code === 0 || loaded.stderr.includes(`exited 1 at once: no session ${gone}`)).toBe(true);
    const [row] = await fleet.ls();
    await fleet.waitForExit(row!.id);
    expect(await fleet.peek(row!.id)).toContain(`no session ${gone}`);
    const rerun = await fleet.ok(["rerun", String(row!.id)]);
    expect(rerun).toContain(`ended at once and myagent has no conversation ${gone}; running myagent as typed`);
    await until("the program to start again", async () => (await fleet.peek(row!.id)).includes("ready "));
    // As typed: bare (pinned when its --help was asked in time; the daemon asks it after this first bare spawn).
    const lines = readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l !== "--help");
    expect(lines[0]).toBe(`--resume ${gone}`);
    expect(lines[1]).toMatch(/^(--session-id [0-9a-f-]{36})?$/);
  });
});

describe("a bad entry", () => {
  test("is one line from fleetcom config naming the entry and the field; the good one beside it still works", async () => {
    writeConfig(`${MANIFEST}
[agents.broken]
match = "broken"
resume = "--resume {id}"
store = "~/.broken/{id}"
`);
    const file = join(fleet.sandbox.config, "config.toml");
    const r = await fleet.cli(["config"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `fleetcom: warning: ${file}:10: agents.broken: resume: expected two words, an option and the ID, such as ["--resume", "{id}"], got "--resume {id}"; agent ignored\n`,
    );
    const json = JSON.parse(await fleet.ok(["config", "--json"]));
    expect(json.problems).toEqual([expect.stringContaining("agents.broken: resume:")]);

    const { id, pinned } = await started();
    expect(await fleet.task(id)).toMatchObject({ agent: "myagent", conversation: pinned });
  });
});

describe("an ID pattern that backtracks", () => {
  // SECURITY (docs/security.md): the daemon matches IDs on its one thread; `(a|aa)+` took 7 s on 46
  // characters before, each more one multiplying it by about 1.4.
  test("is refused when config.toml is read, naming the file, line and agent; the daemon keeps answering a run that would feed it", async () => {
    const text = `${MANIFEST}
[agents.redos]
match = "redosagent"
resume = ["--resume", "{id}"]
store = "~/.redos/{id}.jsonl"
id = "(a|aa)+"
`;
    writeConfig(text);
    writeFileSync(join(fleet.sandbox.root, "bin", "redosagent"), "#!/bin/sh\necho started; exec sleep 3600\n");
    chmodSync(join(fleet.sandbox.root, "bin", "redosagent"), 0o755);
    const file = join(fleet.sandbox.config, "config.toml");
    const line = text.split("\n").indexOf('id = "(a|aa)+"') + 1;
    const r = await fleet.cli(["config"]);
    expect(r.stderr).toBe(
      `fleetcom: warning: ${file}:${line}: agents.redos: id: a repeated group holds an alternation (such as (a|aa)+; a character class such as [ab]+ does not): matching could take exponential time; agent ignored\n`,
    );
    // IDs the pattern would have to try every split of: one to resume, and a store full of them that
    // a save of the bare agent would match one by one (each match stopped only by the engine's own
    // limit, near half a second here). The daemon answers the runs, the save and ls all the same.
    const store = join(fleet.sandbox.home, ".redos");
    mkdirSync(store);
    for (let i = 0; i < 100; i++) writeFileSync(join(store, `${"a".repeat(60)}b${i}.jsonl`), "{}\n");
    const hostile = `redosagent --resume ${"a".repeat(70)}b`;
    const answered = await Promise.race([
      (async () => {
        const ids = [await fleet.run(hostile), await fleet.run("redosagent")];
        await fleet.ok(["save", "redos"]);
        return { ids, tasks: JSON.parse(await fleet.ok(["ls", "--json"])) };
      })(),
      Bun.sleep(15_000).then(() => null),
    ]);
    expect(answered).not.toBeNull();
    expect(answered!.tasks).toEqual([
      expect.objectContaining({ id: answered!.ids[0], command: hostile, agent: null }),
      expect.objectContaining({ id: answered!.ids[1], command: "redosagent", agent: null }),
    ]);
  });
});

describe("fleetcom agents", () => {
  /** A `claude` on PATH that answers only `--help` and `--version`, as the real one does. */
  function installClaude(version: string): void {
    const path = join(fleet.sandbox.root, "bin", "claude");
    writeFileSync(
      path,
      `#!/bin/sh\ncase "$1" in --help) echo "  --session-id <id>  --settings <file>" ;; --version) echo "${version} (Claude Code)" ;; esac\n`,
    );
    chmodSync(path, 0o755);
  }

  test("lists the built-in and declared agents with the version on PATH and whether resume was verified with it, starting no daemon", async () => {
    installClaude("2.1.332");
    const rows = JSON.parse(await fleet.ok(["agents", "--json"]));
    expect(rows.map((r: { name: string; kind: string }) => `${r.name} ${r.kind}`)).toEqual([
      "claude built-in",
      "codex built-in",
      "grok built-in",
      "command-code built-in",
      "gemini built-in",
      "qwen built-in",
      "opencode built-in",
      "myagent declared",
    ]);
    const [claude, codex] = rows;
    expect(claude).toMatchObject({ path: join(fleet.sandbox.root, "bin", "claude"), version: "2.1.332", resumeVerified: true, runsAsTyped: null });
    expect(claude.pinned).toContain("--session-id");
    expect(codex).toMatchObject({ path: null, version: null, resumeVerified: false });
    const declared = rows.find((r: { kind: string }) => r.kind === "declared");
    expect(declared).toMatchObject({
      version: "3.2.1",
      resumeVerified: false,
      injected: "--session-id {id}",
      resume: "resume not verified (declared in config.toml)",
    });
    expect(existsSync(join(fleet.sandbox.runtime, "default.sock"))).toBe(false);

    // In a user's words (issue 40, item 9); the maintainer's details with --verbose.
    const text = await fleet.ok(["agents"]);
    expect(text).toContain(
      `claude  2.1.332 at ${join(fleet.sandbox.root, "bin", "claude")}\n  resume     a rerun or a recovery resumes the same conversation: verified with 2.1.332\n`,
    );
    expect(text).toContain("codex  not on PATH\n");
    expect(text).not.toMatch(/pinned|captured|injected|exit hint|live registry/);
    expect(await fleet.ok(["agents", "--verbose"])).toMatch(/^ {2}pinned {5}--session-id/m);
  });

  test("the versions the round-4 report ran are verified, each with its version; Command Code's attention is its Stop hook and FLEETCOM_CAPTURE_FILE is injected; no agent claims the bell alone but grok", async () => {
    for (const [word, version] of Object.entries({ gemini: "0.61.0", qwen: "0.24.4", opencode: "1.18.33", "command-code": "1.64.0" })) {
      writeFileSync(join(fleet.sandbox.root, "bin", word), `#!/bin/sh\n[ "$1" = --version ] && echo ${version}\nexit 0\n`);
      chmodSync(join(fleet.sandbox.root, "bin", word), 0o755);
    }
    const rows = JSON.parse(await fleet.ok(["agents", "--json"]));
    const row = (name: string) => rows.find((r: { name: string }) => r.name === name);
    expect(row("gemini")).toMatchObject({ version: "0.61.0", resumeVerified: true, resume: "resumes the same conversation: verified with 0.61.0" });
    expect(row("qwen")).toMatchObject({ version: "0.24.4", resumeVerified: true, resume: "resumes the same conversation: verified with 0.24.4" });
    expect(row("opencode")).toMatchObject({ version: "1.18.33", resumeVerified: true, resume: "resumes the same conversation: verified with 1.18.33" });
    expect(row("command-code")).toMatchObject({ version: "1.64.0", resumeVerified: true });
    expect(row("command-code").injected).toContain("FLEETCOM_CAPTURE_FILE");
    expect(row("command-code").attention).toStartWith("its Stop hook");
    expect(row("gemini").injected).not.toContain("GEMINI_CLI_SYSTEM_SETTINGS_PATH");
    expect(rows.filter((r: { attention: string }) => r.attention === "the bell only").map((r: { name: string }) => r.name)).toEqual(["grok", "myagent"]);
  });

  test("a version nobody tested says so, and a build whose --help lacks the pin runs as typed", async () => {
    installClaude("2.2.0");
    writeFileSync(join(fleet.sandbox.root, "bin", "myagent"), `#!/bin/sh\n[ "$1" = --version ] && echo 0.1.0\nexit 0\n`);
    const rows = JSON.parse(await fleet.ok(["agents", "--json"]));
    expect(rows[0]).toMatchObject({
      version: "2.2.0",
      resumeVerified: false,
      resume: "resumes the same conversation: verified with 2.1.332, not with this version",
    });
    expect(rows.find((r: { kind: string }) => r.kind === "declared")).toMatchObject({ version: "0.1.0", runsAsTyped: "its --help lists no --session-id" });
  });
});
