// Hostile text never reaches the user's terminal (issue 11: M3, L1, L9, L11) and hostile recipe files
// get one clear line (L5, L7), through the real program. A recipe puts OSC 52 (clipboard), OSC 0
// (title), SGR, C1 controls and U+202E into a command, a directory, a task name, a group and the
// session name; every human-readable output is captured as bytes and must hold no raw ESC, no C1 and
// no bidi control, while `--json` keeps every string exactly.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { normalizeGroup, normalizeName } from "../../src/task-labels.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import { resolveTaskRef } from "../../src/task-ref.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const OSC52 = "\x1b]52;c;cHduZWQ=\x07";
const TITLE = "\x1b]0;owned-title\x07";
const SGR = "\x1b[31m";
const C1 = "\u009d0;C1TITLE\u009c\u009b1m";
const RLO = "\u202e";
const HOSTILE = `${OSC52}${TITLE}${SGR}${C1}${RLO}`;
/** How printable() shows HOSTILE. */
const SHOWN = "\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;owned-title\\x07\\x1b[31m\\x9d0;C1TITLE\\x9c\\x9b1m\\u202e";

/** Raw ESC and every other C0 but tab and newline, DEL, C1, bidi controls, line/paragraph separators. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI and checks both streams byte by byte: valid UTF-8, nothing UNSAFE. */
async function human(args: string[], cwd = fleet.sandbox.home): Promise<Captured> {
  const r = await raw(args, cwd);
  for (const [stream, text] of [
    ["stdout", r.stdout],
    ["stderr", r.stderr],
  ] as const) {
    const at = text.search(UNSAFE);
    if (at !== -1) throw new Error(`fleetcom ${args.join(" ")}: raw control on ${stream}: ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))}`);
  }
  return r;
}

/** Runs the real CLI; output decoded strictly, so a stray byte cannot hide behind U+FFFD. */
async function raw(args: string[], cwd = fleet.sandbox.home): Promise<Captured> {
  const proc = Bun.spawn(fleetcomArgv(args), { env: fleet.env, cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 30_000 });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).bytes(), proc.exited]);
  const strict = new TextDecoder("utf-8", { fatal: true });
  return { code, stdout: strict.decode(out), stderr: strict.decode(err) };
}

interface Hostile {
  file: string;
  dir: string;
  command: string;
  name: string;
  group: string;
  session: string;
}

/** A recipe file with HOSTILE in the session name, a directory, a command, a task name and a group. */
function hostileRecipe(): Hostile {
  const dir = join(fleet.sandbox.root, `d${HOSTILE}y`);
  mkdirSync(dir);
  const h = {
    file: join(fleet.sandbox.root, "evil.json"),
    dir,
    command: `sleep 600 # ${HOSTILE}`,
    name: `web${HOSTILE}`,
    group: `g${HOSTILE}`,
    session: `demo${HOSTILE}`,
  };
  const recipe = { version: 1, name: h.session, dirs: { [dir]: [h.command, { cmd: "sleep 601", name: h.name, group: h.group }] } };
  writeFileSync(h.file, JSON.stringify(recipe));
  return h;
}

/** Loads the hostile recipe; its summary is checked by the ls test, so each test fails on its own surface. */
async function loadHostile(): Promise<Hostile & { loaded: Captured }> {
  const h = hostileRecipe();
  const loaded = await raw(["load", h.file]);
  expect(loaded.code).toBe(0);
  return { ...h, loaded };
}

describe("hostile text in human-readable output (M3, L9)", () => {
  test("load --dry-run shows the session name, directory, command, name and group escaped", async () => {
    const h = hostileRecipe();
    const r = await human(["load", "--dry-run", h.file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`would load 'demo${SHOWN}'`);
    expect(r.stdout).toContain(`d${SHOWN}y`);
    expect(r.stdout).toContain(`sleep 600 # ${SHOWN}`);
    const json = JSON.parse((await raw(["load", "--dry-run", "--json", h.file])).stdout);
    expect(json.name).toBe(h.session);
    expect(json.entries.map((e: { dir: string; cmd: string }) => [e.dir, e.cmd])).toEqual([
      [h.dir, h.command],
      [h.dir, "sleep 601"],
    ]);
  });

  test("ls shows command, directory, name and group escaped, and ls --json keeps them exact", async () => {
    const h = await loadHostile();
    const table = await human(["ls"]);
    expect(table.stdout).toContain(`sleep 600 # ${SHOWN}`.slice(0, 39));
    expect(table.stdout).toContain(`d${SHOWN}y`);
    expect(table.stdout).toContain("\\u202e");
    const [plain, named] = JSON.parse((await raw(["ls", "--json"])).stdout) as TaskInfo[];
    expect([plain!.command, plain!.cwd, named!.cwd]).toEqual([h.command, h.dir, h.dir]);
    expect([named!.name, named!.group]).toEqual([normalizeName(h.name), normalizeGroup(h.group)]);
    expect(named!.name).toContain(RLO);
    expect(h.loaded.stdout).toStartWith(`loaded 'demo${SHOWN}': 2 task(s)`);
    expect(h.loaded.stdout).not.toMatch(UNSAFE);
  });

  test("the unknown- and ambiguous-task errors of peek, wait and rm show tasks and TASK escaped", async () => {
    await loadHostile();
    for (const args of [
      ["wait", "nosuch", "--for", "exit"],
      ["rm", "nosuch"],
      ["peek", "nosuch"],
    ]) {
      const r = await human(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toStartWith("fleetcom: no task matches 'nosuch' (tasks: 1 sleep 600 # \\x1b]52;c;");
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
    const ambiguous = await human(["wait", "sleep", "--for", "exit"]);
    expect(ambiguous.stderr).toStartWith(`fleetcom: 'sleep' matches 2 tasks: 1 sleep 600 # ${SHOWN}, 2 web`);
    const typed = await human(["peek", `x${OSC52}`]);
    expect(typed.stderr).toStartWith("fleetcom: no task matches 'x\\x1b]52;c;cHduZWQ=\\x07'");
  });

  test("sessions and completions show a hostile session name escaped or not at all; --json keeps it exact", async () => {
    const h = await loadHostile();
    const sessions = join(fleet.sandbox.config, "sessions");
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, "evil.json"), JSON.stringify({ version: 1, name: h.session, dirs: { [h.dir]: [h.command] } }));
    writeFileSync(join(sessions, "plain.json"), JSON.stringify({ version: 1, name: "plain", dirs: { "/tmp": ["top"] } }));
    const listed = await human(["sessions"]);
    expect(listed.stdout).toContain(`demo${SHOWN}`);
    expect(listed.stdout).toContain(`d${SHOWN}y`);
    const json = JSON.parse((await raw(["sessions", "--json"])).stdout);
    expect(json.sessions.map((s: { name: string }) => s.name)).toEqual([h.session, "plain"]);
    expect((await human(["completions", "--list", "sessions"])).stdout).toBe("plain\n");
    const tasks = (await human(["completions", "--list", "tasks"])).stdout;
    expect(tasks).toStartWith(`1\tsleep 600 # ${SHOWN}\n2\tweb`);
    expect(tasks.split("\n").filter(Boolean)).toHaveLength(2); // the name holds U+202E: offered by id only
  });

  test("the session picker shows a hostile session name and directory escaped", async () => {
    const h = hostileRecipe();
    const sessions = join(fleet.sandbox.config, "sessions");
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, "evil.json"), JSON.stringify({ version: 1, name: h.session, dirs: { [h.dir]: [h.command] } }));
    const client = fleet.spawnClient(["load"], { cols: 220, rows: 20 });
    const titles: string[] = [];
    client.term.onTitleChange((title) => titles.push(title));
    const screen = await client.waitForScreen("the session list", (s) => s.includes("1 task(s)"));
    expect(client.output).not.toMatch(/\x1b[\]PX^_]|[\x80-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
    expect(titles).toEqual([]);
    expect(screen).toContain(`demo${SHOWN.slice(0, 40)}`);
  });

  test("the attach picker shows directory, command and name escaped, and the terminal acts on none of them", async () => {
    const h = await loadHostile();
    const client = fleet.spawnClient(["attach"], { cols: 220, rows: 20 });
    const titles: string[] = [];
    const clipboard: string[] = [];
    client.term.onTitleChange((title) => titles.push(title));
    client.term.parser.registerOscHandler(52, (data) => {
      clipboard.push(data);
      return true;
    });
    const screen = await client.waitForScreen("the task list", (s) => s.includes("Tasks (2)") && s.includes("web"));
    // The picker draws with its own CSI sequences, but no string command, C1 control or bidi control.
    expect(client.output).not.toMatch(/\x1b[\]PX^_]|[\x80-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
    expect(titles).toEqual([]);
    expect(clipboard).toEqual([]);
    expect(screen).toContain(`1 sleep 600 # ${SHOWN.slice(0, 40)}`);
    expect(screen).toContain(`d${SHOWN.slice(0, 40)}`);
    expect(screen).toContain("web]52;c;cHduZWQ=]0;owned-title[31m0;C1TITLE1m\\u202e");
    expect(h.dir).toContain(OSC52);
  });
});

describe("peek --follow (L1)", () => {
  test("strips C1 control sequences (OSC 52, title, CSI, DCS) as it strips 7-bit ones", async () => {
    const hostile = String.raw`A\302\2350;C1TITLE\302\234B\302\23552;c;cHduZWQ=\302\234C\033]52;c;ZXNj\007D\302\23331mE\302\220dcs\302\234F\n`;
    const id = await fleet.run(`printf 'READY\\n'; read line; printf '${hostile}'; printf 'END\\n'; sleep 600`);
    const peek = Bun.spawn(fleetcomArgv(["peek", "--follow", String(id)]), { env: fleet.env, stdout: "pipe", stderr: "pipe" });
    const bytes: number[] = [];
    void (async () => {
      for await (const chunk of peek.stdout) bytes.push(...chunk);
    })();
    const text = () => new TextDecoder().decode(new Uint8Array(bytes));
    try {
      await until("peek to show READY", () => text().includes("READY"));
      await fleet.ok(["send", String(id), "go"]);
      await until("peek to show END", () => text().includes("END"));
    } finally {
      peek.kill();
    }
    const out = new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
    expect(out).toContain("ABCDEF\n");
    expect(out).not.toMatch(UNSAFE);
    expect(out).not.toContain("C1TITLE");
    expect(out).not.toContain("cHduZWQ=");
  });
});

describe("the unknown-task error (L11)", () => {
  test("names at most ten candidates, then how many more", async () => {
    const dir = fleet.sandbox.home;
    writeFileSync(join(dir, "many.json"), JSON.stringify({ [dir]: Array.from({ length: 12 }, (_, i) => `sleep ${600 + i}`) }));
    expect((await human(["load", "many.json"])).code).toBe(0);
    const r = await human(["rm", "nosuch"]);
    expect(r.stderr).toBe(
      `fleetcom: no task matches 'nosuch' (tasks: ${Array.from({ length: 10 }, (_, i) => `${i + 1} sleep ${600 + i}`).join(", ")} … and 2 more)\n`,
    );
  });

  test("stays short with hundreds of tasks, ambiguous or unknown", () => {
    const tasks = Array.from({ length: 320 }, (_, i) => ({ id: i + 1, name: null, command: `npm run worker-${i}`, typed: `npm run worker-${i}` }));
    const unknown = (() => {
      try {
        resolveTaskRef("zzz", tasks);
      } catch (e) {
        return (e as Error).message;
      }
    })()!;
    expect(unknown).toEndWith(`10 npm run worker-9 … and 310 more)`);
    expect(unknown.length).toBeLessThan(300);
    const ambiguous = (() => {
      try {
        resolveTaskRef("npm", tasks);
      } catch (e) {
        return (e as Error).message;
      }
    })()!;
    expect(ambiguous).toStartWith("'npm' matches 320 tasks: 1 npm run worker-0, ");
    expect(ambiguous).toEndWith("… and 310 more");
  });
});

describe("recipe versions are quoted as the file writes them (L7)", () => {
  for (const version of ["1e400", "99999999999999999999", "-0", "1.5e0"]) {
    test(`version ${version}`, async () => {
      const file = join(fleet.sandbox.home, "v.json");
      writeFileSync(file, `{"version": ${version}, "name": "v", "dirs": {"/tmp": ["top"]}}\n`);
      const r = await human(["load", "--dry-run", file]);
      expect(r).toEqual({ code: 1, stdout: "", stderr: `fleetcom: ${file}: unsupported recipe version ${version} (supported: 1..1)\n` });
    });
  }

  test("sessions lists such a file as damaged with the version as written", async () => {
    const sessions = join(fleet.sandbox.config, "sessions");
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, "big.json"), `{"version": 1e400, "dirs": {}}`);
    const r = await human(["sessions"]);
    expect(r.stdout).toContain("unsupported recipe version 1e400 (supported: 1..1)");
  });
});

describe("recipe files that are not regular files (L5)", () => {
  function fifo(path: string): string {
    expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
    return path;
  }

  test("load, load --dry-run, a session name and recover refuse a FIFO at once with one line naming it", async () => {
    const pipe = fifo(join(fleet.sandbox.home, "pipe.json"));
    const link = join(fleet.sandbox.home, "link.json");
    symlinkSync(pipe, link);
    const sessions = join(fleet.sandbox.config, "sessions");
    mkdirSync(sessions, { recursive: true });
    const named = fifo(join(sessions, "piped.json"));
    const cases: [string[], string][] = [
      [["load", "--dry-run", "pipe.json"], pipe],
      [["load", "pipe.json"], pipe],
      [["load", "--dry-run", "link.json"], link],
      [["load", "--dry-run", "piped"], named],
      [["recover", "--dry-run", "pipe.json"], pipe],
    ];
    for (const [args, file] of cases) {
      const r = await human(args);
      expect(r).toEqual({ code: 1, stdout: "", stderr: `fleetcom: ${file}: not a regular file (a FIFO); a recipe must be a plain JSON file\n` });
    }
    expect((await human(["sessions"])).stdout).toBe(`no saved sessions (in ${sessions})\n`);
  });

  test("a directory named like a recipe is refused the same way", async () => {
    const dir = join(fleet.sandbox.home, "dir.json");
    mkdirSync(dir);
    const r = await human(["load", "--dry-run", "dir.json"]);
    expect(r.stderr).toBe(`fleetcom: ${dir}: not a regular file (a directory); a recipe must be a plain JSON file\n`);
  });
});
