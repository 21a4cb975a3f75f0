// opencode's part (src/agent-opencode.ts): the `ses_…` ID format, the exit hint, and its SQLite
// store, read read-only (the database is left byte for byte as it was).
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, renameSync, rmSync, symlinkSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { detect, isOpencodeId, resumeCommand } from "../../src/agent.ts";
import { OPENCODE_DATABASE_MAX_BYTES, opencode, opencodeDatabase } from "../../src/agent-opencode.ts";
import { claude } from "../../src/agent-claude.ts";
import { fileUrl, opencodeConfigContent, opencodeSignal } from "../../src/agent-opencode-plugin.ts";
import { assetsIn, HOSTILE, ID, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

const SES = "ses_dcdea58c7ffeNrEvGBEzdnCCSL";
const SES2 = "ses_0000000000000000000000000Z";

describe("opencode", () => {
  test.each([
    [SES, true],
    [SES2.slice(0, -1), false],
    [`${SES}x`, false],
    ["ses_dcdea58c7ffe-rEvGBEzdnCCSL", false],
    [`${SES}; id`, false],
    ["SES_dcdea58c7ffeNrEvGBEzdnCCSL", false],
    [ID, false],
  ])("%p is an opencode ID: %p", (id, ok) => {
    expect(isOpencodeId(id)).toBe(ok);
  });

  test("its resume form takes its own IDs only, and another agent's never takes one", () => {
    const launch = detect(`opencode -s '${SES}'`, [opencode, claude])!;
    expect(launch).toMatchObject({ id: SES, program: "opencode" });
    expect(resumeCommand(launch, SES)).toBe(`opencode -s '${SES}'`);
    expect(resumeCommand(launch, ID)).toBeNull();
    expect(detect(`opencode -s ${ID}`, [opencode])).toBeNull();
    expect(detect(`claude --resume ${SES}`, [opencode, claude])).toBeNull();
  });

  test.each([
    ["its Ctrl-C lines", ["Session   remember PEAR-8", `Continue  opencode -s ${SES}`], SES],
    ["the last one", [`Continue  opencode -s ${SES2}`, `Continue  opencode -s ${SES}`], SES],
    ["a UUID", [`Continue  opencode -s ${ID}`], null],
    ...HOSTILE.map((h) => [`hostile ${h}`, [`Continue  opencode -s ${h}`], null] as [string, string[], null]),
  ])("the exit hint: %s", (_what, lines, expected) => {
    expect(opencode.exitHint(lines, {})).toBe(expected);
  });

  describe("the store", () => {
    const cwd = "/home/me/proj";
    const env = () => ({ HOME: tmp.root });
    function database(rows: [string, string, number, string | null][]): string {
      const path = opencodeDatabase(env());
      tmp.dir(".local/share/opencode");
      const db = new Database(path);
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER)");
      for (const [id, directory, created, parent] of rows)
        db.query("INSERT INTO session VALUES (?, ?, ?, 't', ?, ?)").run(id, parent, directory, created, created);
      db.close();
      return path;
    }

    test("OPENCODE_DB (absolute, or a name in its data folder) is the database; without it, the channel databases beside opencode.db are read too; :memory: keeps none", () => {
      const spawnedAt = new Date();
      const later = spawnedAt.getTime() + 1000;
      const table = (path: string, id: string) => {
        const db = new Database(path);
        db.exec("CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER)");
        db.query("INSERT INTO session VALUES (?, NULL, ?, 't', ?, ?)").run(id, cwd, later, later);
        db.close();
      };
      tmp.dir(".local/share/opencode");
      tmp.dir("elsewhere");
      table(join(tmp.root, ".local/share/opencode/opencode-dev.db"), SES);
      table(join(tmp.root, "elsewhere/mine.db"), SES2);
      table(join(tmp.root, ".local/share/opencode/named.db"), "ses_namednamednamednamednamed");
      expect(opencode.holds(SES, { cwd, env: env() })).toBe(true);
      expect(opencode.fromStore({ cwd, spawnedAt, env: env(), taken: new Set() })).toBe(SES);
      const absolute = { ...env(), OPENCODE_DB: join(tmp.root, "elsewhere/mine.db") };
      expect(opencode.holds(SES2, { cwd, env: absolute })).toBe(true);
      expect(opencode.holds(SES, { cwd, env: absolute })).toBe(false);
      expect(opencode.fromStore({ cwd, spawnedAt, env: absolute, taken: new Set() })).toBe(SES2);
      expect(opencode.holds("ses_namednamednamednamednamed", { cwd, env: { ...env(), OPENCODE_DB: "named.db" } })).toBe(true);
      expect(opencode.holds(SES, { cwd, env: { ...env(), OPENCODE_DB: ":memory:" } })).toBe(false);
    });

    test("the one top-level session of the cwd created since the spawn is the task's; others, children and hostile IDs never count", () => {
      const spawnedAt = new Date();
      const later = spawnedAt.getTime() + 1000;
      database([
        [SES, cwd, later, null],
        ["ses_childchildchildchildchild", cwd, later, SES],
        ["ses_elsewhereelsewhereelsewh", "/other", later, null],
        ["ses_beforebeforebeforebefore", cwd, spawnedAt.getTime() - 1000, null],
        ["$(touch /tmp/pwned)", cwd, later, null],
      ]);
      expect(opencode.fromStore({ cwd, spawnedAt, env: env(), taken: new Set() })).toBe(SES);
      expect(opencode.fromStore({ cwd, spawnedAt, env: env(), taken: new Set([SES]) })).toBeNull();
      expect(opencode.holds(SES, { cwd, env: env() })).toBe(true);
      expect(opencode.holds(SES2, { cwd, env: env() })).toBe(false);
    });

    test("two new sessions in the cwd are ambiguous", () => {
      const spawnedAt = new Date();
      database([
        [SES, cwd, spawnedAt.getTime(), null],
        [SES2, cwd, spawnedAt.getTime() + 5, null],
      ]);
      expect(opencode.fromStore({ cwd, spawnedAt, env: env(), taken: new Set() })).toBeNull();
    });

    test("the agent's database is never written: its bytes and its WAL are as they were", () => {
      const path = database([[SES, cwd, Date.now(), null]]);
      const before = readFileSync(path);
      expect(opencode.holds(SES, { cwd, env: env() })).toBe(true);
      expect(readFileSync(path).equals(before)).toBe(true);
    });

    test("rows opencode has written only to its WAL, the database held open, are found; nothing is left beside it", () => {
      tmp.dir(".local/share/opencode");
      const path = opencodeDatabase(env());
      const live = new Database(path);
      try {
        live.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0");
        live.exec("CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, time_created INTEGER)");
        live.query("INSERT INTO session VALUES (?, NULL, ?, ?)").run(SES, cwd, Date.now());
        const before = readdirSync(join(tmp.root, ".local/share/opencode")).sort();
        expect(opencode.holds(SES, { cwd, env: env() })).toBe(true);
        expect(readdirSync(join(tmp.root, ".local/share/opencode")).sort()).toEqual(before);
      } finally {
        live.close();
      }
    });

    test("a FIFO, a symlink or a database over the bound is no evidence, at once", () => {
      const path = database([[SES, cwd, Date.now(), null]]);
      const real = `${path}.real`;
      renameSync(path, real);
      symlinkSync(real, path);
      expect(opencode.holds(SES, { cwd, env: env() })).toBe(false);
      rmSync(path);
      spawnSync("mkfifo", [path]);
      expect(opencode.holds(SES, { cwd, env: env() })).toBe(false);
      rmSync(path);
      renameSync(real, path);
      expect(opencode.holds(SES, { cwd, env: env() })).toBe(true);
      truncateSync(path, OPENCODE_DATABASE_MAX_BYTES + 1);
      expect(opencode.holds(SES, { cwd, env: env() })).toBe(false);
    });

    test("no database, or one of another shape, is no evidence", () => {
      expect(opencode.holds(SES, { cwd, env: env() })).toBe(false);
      tmp.file(".local/share/opencode/opencode.db", "not a database");
      expect(opencode.fromStore({ cwd, spawnedAt: new Date(0), env: env(), taken: new Set() })).toBeNull();
      expect(opencode.holds(SES, { cwd, env: { XDG_DATA_HOME: join(tmp.root, "nowhere") } })).toBe(false);
    });
  });
});

describe("opencode's attention plugin", () => {
  test.each([
    ["no config of the user's", {}, { plugin: ["file:///ns/opencode-attention.js"] }],
    [
      "theirs, kept, with ours added",
      { OPENCODE_CONFIG_CONTENT: '{"theme":"x","plugin":["p1"]}' },
      { theme: "x", plugin: ["p1", "file:///ns/opencode-attention.js"] },
    ],
    ["theirs not JSON (JSONC, or anything else): left alone", { OPENCODE_CONFIG_CONTENT: '{"theme": "x", // mine\n}' }, null],
    ["theirs a list", { OPENCODE_CONFIG_CONTENT: "[]" }, null],
    ["their plugin not a list", { OPENCODE_CONFIG_CONTENT: '{"plugin":"p1"}' }, null],
  ])("the run's OPENCODE_CONFIG_CONTENT: %s", (_what, env, expected) => {
    const content = opencodeConfigContent(env, "/ns/opencode-attention.js");
    expect(content === null ? null : JSON.parse(content)).toEqual(expected);
  });

  test.each([
    ["session.idle", { type: "session.idle", properties: { sessionID: "ses_x" } }, { kind: "waiting", state: "input", message: null }],
    [
      "session.idle with the reply",
      { type: "session.idle", properties: { sessionID: "ses_x" }, reply: "FAKE-REPLY\nok" },
      { kind: "waiting", state: "input", message: "FAKE-REPLY ok" },
    ],
    [
      "permission.asked",
      { type: "permission.asked", properties: { permission: "bash", patterns: ["make", "rm -rf build"] } },
      { kind: "waiting", state: "permission", message: "bash: make, rm -rf build" },
    ],
    ["permission.replied", { type: "permission.replied", properties: {} }, { kind: "working" }],
    ["a busy session", { type: "session.status", properties: { status: { type: "busy" } } }, { kind: "working" }],
    ["an idle status", { type: "session.status", properties: { status: { type: "idle" } } }, null],
    ["anything else", { type: "message.updated" }, null],
  ])("the event %s", (_what, event, signal) => {
    expect(opencodeSignal(JSON.stringify(event))).toEqual(signal as never);
  });

  test("a run gets the plugin file and the variables; the plugin appends only the events it reads to the run's events file", async () => {
    const assets = assetsIn(tmp.root);
    const env = opencode.instrument(detect("opencode", [opencode])!, assets, {})!.env;
    expect(env.FLEETCOM_CAPTURE_FILE).toBe(assets.captureFile);
    const plugin = JSON.parse(env.OPENCODE_CONFIG_CONTENT!).plugin[0] as string;
    process.env.FLEETCOM_CAPTURE_FILE = assets.captureFile;
    try {
      const hooks = await ((await import(plugin)).FleetcomAttention as () => Promise<{ event(i: { event: object }): Promise<void> }>)();
      await hooks.event({ event: { type: "message.updated", properties: { info: { id: "m1", role: "user" } } } });
      await hooks.event({ event: { type: "message.part.updated", properties: { part: { sessionID: "ses_x", messageID: "m1", type: "text", text: "hi" } } } });
      await hooks.event({ event: { type: "message.updated", properties: { info: { id: "m2", role: "assistant" } } } });
      await hooks.event({
        event: { type: "message.part.updated", properties: { part: { sessionID: "ses_x", messageID: "m2", type: "text", text: "the reply" } } },
      });
      await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_x" } } });
    } finally {
      delete process.env.FLEETCOM_CAPTURE_FILE;
    }
    expect(readFileSync(join(tmp.root, "task-1-1.events"), "utf8")).toBe(
      `${JSON.stringify({ type: "session.idle", properties: { sessionID: "ses_x" }, reply: "the reply" })}\n`,
    );
  });
});

test("the plugin's file URL is the one node:url's pathToFileURL gives, whatever characters the path holds", () => {
  const names = [
    ...Array.from({ length: 0x2ff }, (_, i) => `a${String.fromCharCode(i + 1)}b`),
    "plain",
    "with space",
    "100%",
    "a%20b",
    "hash#tag",
    "what?",
    "back\\slash",
    "line\nfeed",
    "cr\rtab\t",
    "ü日本😀",
    "[x]{y}`z`",
    "semi;colon,comma",
    "quote\"'",
    "<>|^",
    "~user",
    "a+b=c&d",
    "dot.",
    "\u0001ctl\u007f",
    "\u00a0nbsp\u2028",
  ];
  for (const name of names) {
    const path = `/home/u/${name}/opencode-attention.js`;
    expect(fileUrl(path)).toBe(pathToFileURL(path).href);
  }
  expect(fileUrl("/")).toBe(pathToFileURL("/").href);
});
