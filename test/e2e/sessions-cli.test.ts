// The real program: `fleetcom sessions`, `sessions rm|mv` and `load --dry-run`, in a sandboxed HOME.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runFleetcom, makeSandbox, type Sandbox } from "../harness/helpers.ts";

let sb: Sandbox;
let dir: string;
beforeEach(() => {
  sb = makeSandbox();
  dir = join(sb.config, "sessions");
  mkdirSync(dir, { recursive: true });
});
afterEach(() => sb.cleanup());

const run = (args: string[], cwd = sb.root) => runFleetcom(args, { env: sb.env, cwd });
const writeSession = (stem: string, doc: unknown) => writeFileSync(join(dir, `${stem}.json`), JSON.stringify(doc));

describe("fleetcom sessions", () => {
  test("with no sessions it says so", async () => {
    const r = await run(["sessions"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("no saved sessions");
  });

  test("lists one row per session with name, task count, modified time and directories", async () => {
    writeSession("work_api", { version: 1, name: "work/api", dirs: { "/tmp": ["a", "b"], "~/x": ["c"] } });
    writeSession("flat", { "/srv": ["d"] });
    const threeDaysAgo = new Date(Date.now() - 3 * 86400_000 - 60_000);
    utimesSync(join(dir, "flat.json"), threeDaysAgo, threeDaysAgo);
    const r = await run(["sessions"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+TASKS\s+MODIFIED\s+DIRECTORIES$/);
    expect(lines[1]).toMatch(/^flat\s+1\s+3d ago\s+\/srv$/);
    expect(lines[2]).toMatch(/^work\/api\s+3\s+\d+s ago\s+\/tmp, ~\/x$/);
  });

  test("--json prints the directory and a stable row per session", async () => {
    writeSession("s", { name: "s", dirs: { "/tmp": ["a", 1] } });
    writeFileSync(join(dir, "bad.json"), "{");
    const r = await run(["sessions", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.dir).toBe(dir);
    expect(out.sessions.map((s: Record<string, unknown>) => Object.keys(s).sort())).toEqual([
      ["damaged", "dirs", "dropped", "file", "modified", "name", "storedName", "tasks"],
      ["damaged", "dirs", "dropped", "file", "modified", "name", "storedName", "tasks"],
    ]);
    expect(out.sessions[0]).toMatchObject({ name: "bad", tasks: 0, damaged: expect.stringContaining("invalid JSON") });
    expect(out.sessions[1]).toMatchObject({ name: "s", storedName: "s", tasks: 1, dropped: 1, dirs: ["/tmp"], damaged: null });
  });

  test("a name with terminal escapes is shown escaped", async () => {
    writeSession("evil", { name: "evil\u001b[2J", dirs: { "/tmp": ["a"] } });
    const r = await run(["sessions"]);
    expect(r.stdout).not.toContain("\u001b");
    expect(r.stdout).toContain("evil\\x1b[2J");
  });

  test("sessions rm NAME deletes the session", async () => {
    writeSession("a_b", { name: "a/b", dirs: { "/tmp": ["a"] } });
    const r = await run(["sessions", "rm", "a/b"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("removed session 'a/b'");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("sessions rm of an unknown session fails on one line", async () => {
    const r = await run(["sessions", "rm", "ghost"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^fleetcom: no saved session 'ghost'/)]);
  });

  test("sessions mv OLD NEW renames, and refuses a collision naming the file", async () => {
    writeSession("a", { name: "a", dirs: { "/tmp": ["a"] } });
    writeSession("b", { name: "b", dirs: { "/tmp": ["b"] } });
    const clash = await run(["sessions", "mv", "a", "b"]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(join(dir, "b.json"));
    const ok = await run(["sessions", "mv", "a", "c/d"]);
    expect(ok.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["b.json", "c_d.json"]);
  });

  test("missing arguments and unknown subcommands are usage errors", async () => {
    for (const args of [
      ["sessions", "rm"],
      ["sessions", "mv", "a"],
      ["sessions", "frobnicate"],
    ]) {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
  });

  test("an empty session name is a usage error", async () => {
    const r = await run(["sessions", "rm", "  "]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("empty");
  });
});

describe("fleetcom load --dry-run", () => {
  test("--json prints name, file, absolute entries with normalised labels, and the dropped count", async () => {
    mkdirSync(join(sb.home, "w"));
    writeSession("work_api", {
      version: 1,
      name: "work/api",
      dirs: { "~/w": ["a", { cmd: "b", group: " Unassigned ", name: " api\u0007 " }, 7], rel: ["c"] },
    });
    const r = await run(["load", "--dry-run", "--json", "work/api"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      name: "work/api",
      file: join(dir, "work_api.json"),
      entries: [
        { dir: join(sb.home, "w"), cmd: "a", group: null, name: null, missing: false, alreadyRunning: false },
        { dir: join(sb.home, "w"), cmd: "b", group: null, name: "api", missing: false, alreadyRunning: false },
        { dir: join(sb.root, "rel"), cmd: "c", group: null, name: null, missing: true, alreadyRunning: false },
      ],
      dropped: 1,
      problems: [`${join(dir, "work_api.json")}: dirs["~/w"][2]: a number, not a command or {"cmd": …}; dropped`],
    });
  });

  test("an argument ending in .json is a file path resolved against the current directory", async () => {
    mkdirSync(join(sb.root, "sub"));
    writeFileSync(join(sb.root, "sub", "r.json"), '{"/tmp": ["top"]}');
    const r = await run(["load", "--dry-run", "--json", "r.json"], join(sb.root, "sub"));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "r", file: join(sb.root, "sub", "r.json"), dropped: 0 });
  });

  test("the text form lists what would start, marks missing directories and gives the counts", async () => {
    writeFileSync(join(sb.root, "r.json"), '{"/tmp": ["top", {"cmd": "x", "group": "g"}], "/no/such/dir": ["y"], "/srv": 3}');
    const r = await run(["load", "--dry-run", "r.json"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `would load 'r' from ${join(sb.root, "r.json")}`,
        "  /tmp",
        "    top",
        "    x  [group: g]",
        "  /no/such/dir  (missing: would be skipped)",
        "    y",
        "2 task(s) would start, 1 skipped (missing directory), 1 dropped",
        "",
      ].join("\n"),
    );
  });

  test("a recipe that yields no command says so, each entry's reason first, and fails as the real load does", async () => {
    writeFileSync(join(sb.root, "r.json"), '{"/tmp": [1, null]}');
    const file = join(sb.root, "r.json");
    const r = await run(["load", "--dry-run", "r.json"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `fleetcom: ${file}: ["/tmp"][0]: a number, not a command or {"cmd": …}; dropped`,
        `fleetcom: ${file}: ["/tmp"][1]: null, not a command or {"cmd": …}; dropped`,
        `fleetcom: nothing to load: ${file} holds no command (2 dropped, each said above)`,
        "",
      ].join("\n"),
    });
  });

  test("invalid JSON fails with one line naming the file, line and column", async () => {
    writeFileSync(join(sb.root, "r.json"), '{\n "/tmp": [\n');
    const r = await run(["load", "--dry-run", "r.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`fleetcom: ${join(sb.root, "r.json")}: invalid JSON at line 3, column 1: unexpected end of file\n`);
  });

  test("an unsupported version fails naming the file, the value and the range", async () => {
    writeFileSync(join(sb.root, "r.json"), '{"version": 2, "dirs": {}}');
    const r = await run(["load", "--dry-run", "r.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`fleetcom: ${join(sb.root, "r.json")}: unsupported recipe version 2 (supported: 1..1)\n`);
  });

  test("an unknown session name fails naming the file looked for", async () => {
    const r = await run(["load", "--dry-run", "ghost"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(dir, "ghost.json"));
  });

  test("without a target and without the picker it is a usage error", async () => {
    const r = await run(["load", "--dry-run"]);
    expect(r.code).toBe(2);
  });
});
