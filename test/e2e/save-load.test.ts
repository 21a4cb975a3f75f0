// `fleetcom save`, `load` and `fleetcom NAME` against the real daemon: the live fleet to a file and
// back, the loading client's directory and HOME, and every line the user sees.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet } from "../harness/fleet.ts";
import { launches } from "../harness/recovery-helpers.ts";

let fleet: Fleet;
let outside: string;
beforeEach(() => {
  fleet = new Fleet();
  // A directory under /tmp itself, outside $HOME: its key stays absolute in the file.
  outside = realpathSync(mkdtempSync("/tmp/fleetcom-save-load-"));
});
afterEach(async () => {
  await fleet.stop();
  rmSync(outside, { recursive: true, force: true });
});

const sessionsDir = () => join(fleet.sandbox.config, "sessions");

describe("save and load", () => {
  test("save, --kill and load reproduce every task's directory, command, group and name", async () => {
    const home = fleet.sandbox.home;
    const sub = join(home, "projects", "api");
    const odd = join(outside, "spaced dir ünïcødé 名前 ✓");
    mkdirSync(sub, { recursive: true });
    mkdirSync(odd);
    await fleet.run("sleep 3600", ["--cwd", home, "--name", "home server"]);
    await fleet.run("sleep 3601", ["--cwd", sub, "--group", "api"]);
    await fleet.run(`sh -c 'sleep 3602; echo "quoted $HOME"'`, ["--cwd", sub, "--group", "api", "--name", "watcher"]);
    await fleet.run("sleep 3603", ["--cwd", outside]);
    await fleet.run("sleep 3604", ["--cwd", odd, "--group", "grüppe", "--name", "nåme with spaces"]);
    const before = launches(await fleet.ls());

    const saved = await fleet.ok(["save", "round trip"]);
    const file = join(sessionsDir(), "round trip.json");
    expect(saved.trim()).toBe(`saved 'round trip': 5 task(s) → ${file}`);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(stored.dirs)).toEqual([outside, odd, "~", "~/projects/api"]);

    await fleet.ok(["--kill"]);
    expect(fleet.daemonPid()).toBeNull();
    const loaded = await fleet.ok(["load", "round trip"], { cwd: "/" });
    expect(loaded.trim()).toBe("loaded 'round trip': 5 task(s), 0 skipped (missing directory), 0 dropped");
    expect(launches(await fleet.ls())).toEqual(before);
  });

  test("a flat hand-written recipe with relative keys loads against the client's directory, not the daemon's", async () => {
    await fleet.run("sleep 3600"); // the daemon now runs, started from $HOME
    const client = join(fleet.sandbox.root, "client cwd");
    mkdirSync(join(client, "web"), { recursive: true });
    mkdirSync(join(client, "db"));
    writeFileSync(join(client, "dev.json"), JSON.stringify({ web: ["sleep 3601"], "./db": [{ cmd: "sleep 3602", group: "data" }], "~": ["sleep 3603"] }));
    const r = await fleet.ok(["load", "dev.json"], { cwd: client });
    expect(r.trim()).toBe("loaded 'dev': 3 task(s), 0 skipped (missing directory), 0 dropped");
    const tasks = (await fleet.ls()).slice(1);
    expect(tasks.map((t) => [t.cwd, t.command, t.group])).toEqual([
      [join(client, "web"), "sleep 3601", null],
      [join(client, "db"), "sleep 3602", "data"],
      [fleet.sandbox.home, "sleep 3603", null],
    ]);
  });

  test("loading what is already running starts nothing and counts it; --again starts it anyway", async () => {
    await fleet.run("sleep 3600", ["--name", "keeper", "--group", "g"]);
    await fleet.run("sleep 3601");
    await fleet.ok(["save", "one"]);
    const second = await fleet.ok(["load", "one"]);
    expect(second.trim()).toBe("loaded 'one': 0 task(s), 2 already running (--again starts them), 0 skipped (missing directory), 0 dropped");
    expect((await fleet.ls()).map((t) => [t.id, t.name, t.state])).toEqual([
      [1, "keeper", "running"],
      [2, null, "running"],
    ]);
    expect(JSON.parse(await fleet.ok(["load", "one", "--json"]))).toMatchObject({ started: [], alreadyRunning: 2, skipped: 0 });
    const again = JSON.parse(await fleet.ok(["load", "one", "--again", "--json"]));
    expect(again).toMatchObject({ started: [3, 4], alreadyRunning: 0 });
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 3600", "sleep 3601", "sleep 3600", "sleep 3601"]);
  });

  test("an entry differing in directory, group or name is not the running task; a finished task is not running", async () => {
    mkdirSync(join(fleet.sandbox.home, "elsewhere"));
    await fleet.run("sleep 3600", ["--name", "api"]);
    const done = await fleet.run("true");
    await fleet.waitForExit(done);
    const recipe = {
      name: "near",
      dirs: {
        "~": [{ cmd: "sleep 3600", name: "api" }, { cmd: "sleep 3600", name: "web" }, { cmd: "sleep 3600", name: "api", group: "g" }, "true"],
        "~/elsewhere": [{ cmd: "sleep 3600", name: "api" }],
      },
    };
    writeFileSync(join(fleet.sandbox.root, "near.json"), JSON.stringify(recipe));
    const r = JSON.parse(await fleet.ok(["load", join(fleet.sandbox.root, "near.json"), "--json"]));
    expect(r).toMatchObject({ alreadyRunning: 1, started: [3, 4, 5, 6] });
  });

  test("fleetcom NAME twice (a shell alias run again) opens the dashboard on the same fleet, saying it is already running", async () => {
    await fleet.run("sleep 3600", ["--name", "api"]);
    await fleet.ok(["save", "work"]);
    await fleet.ok(["--kill"]);
    for (const expected of ["loaded 'work': 1 task(s), 0 skipped", "loaded 'work': 0 task(s), 1 already running (--again starts them)"]) {
      const client = fleet.spawnClient(["work"], { cols: 200, rows: 20 });
      await client.waitForScreen("the dashboard with the load's summary", (s) => s.includes(expected));
      await client.waitForRawMode();
      client.write("q");
      expect(await client.proc.exited).toBe(0);
    }
    expect((await fleet.ls()).map((t) => t.name)).toEqual(["api"]);
  });

  test("each running task stands for one entry: a recipe with a command twice starts the missing one", async () => {
    await fleet.run("sleep 3600");
    writeFileSync(join(fleet.sandbox.root, "twice.json"), JSON.stringify({ name: "twice", dirs: { "~": ["sleep 3600", "sleep 3600"] } }));
    const file = join(fleet.sandbox.root, "twice.json");
    expect(JSON.parse(await fleet.ok(["load", file, "--json"]))).toMatchObject({ started: [2], alreadyRunning: 1 });
    expect(JSON.parse(await fleet.ok(["load", file, "--json"]))).toMatchObject({ started: [], alreadyRunning: 2 });
  });

  test("the summary counts entries skipped for a missing directory and entries dropped as malformed", async () => {
    const dir = join(fleet.sandbox.root, "exists");
    mkdirSync(dir);
    const recipe = { version: 1, name: "mixed", dirs: { [dir]: ["sleep 3600", 42, { group: "no cmd" }], "/nonexistent/fleetcom": ["sleep 1", "sleep 2"] } };
    writeFileSync(join(fleet.sandbox.root, "mixed.json"), JSON.stringify(recipe));
    const r = await fleet.ok(["load", "mixed.json"], { cwd: fleet.sandbox.root });
    expect(r.trim()).toBe("loaded 'mixed': 1 task(s), 2 skipped (missing directory), 2 dropped");
    expect((await fleet.ls()).map((t) => t.cwd)).toEqual([dir]);
  });

  test("load --json prints the name, file, started ids and both counts", async () => {
    mkdirSync(join(fleet.sandbox.home, "w"));
    const file = join(fleet.sandbox.root, "j.json");
    writeFileSync(file, JSON.stringify({ name: "j", dirs: { "~/w": ["sleep 3600", "sleep 3601", null], "/nonexistent": ["x"] } }));
    const r = await fleet.ok(["load", file, "--json"]);
    expect(JSON.parse(r)).toEqual({ name: "j", file, started: [1, 2], skipped: 1, alreadyRunning: 0, finished: 0, dropped: 1 });
  });

  test("a recipe without a single command loads nothing, says so and starts no daemon", async () => {
    writeFileSync(join(fleet.sandbox.root, "empty.json"), JSON.stringify({ name: "e", dirs: { "/tmp": [1, 2] } }));
    const r = await fleet.cli(["load", "empty.json"], { cwd: fleet.sandbox.root });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`fleetcom: nothing to load: ${join(fleet.sandbox.root, "empty.json")} holds no command (2 dropped)`);
    expect(fleet.daemonPid()).toBeNull();
  });

  // It loads, then opens the dashboard (test/dashboard.test.ts); without a terminal it does neither.
  test("fleetcom NAME without a terminal says so, exits 2 and loads nothing", async () => {
    await fleet.run("sleep 3600", ["--group", "g"]);
    await fleet.ok(["save", "quick"]);
    await fleet.ok(["--kill"]);
    const r = await fleet.cli(["quick"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: the dashboard (fleetcom load quick loads without one) needs a terminal");
    expect(fleet.daemonPid()).toBeNull();
  });

  test("fleetcom WORD with no such session is a usage error that names both readings", async () => {
    const r = await fleet.cli(["no-such-session"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: unknown command 'no-such-session', and no saved session by that name (see fleetcom --help and fleetcom sessions)");
  });

  test("a session named like a subcommand is loaded with fleetcom load", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "status"]);
    const status = await fleet.cli(["status"]);
    expect(status.stdout).toContain("running");
    expect((await fleet.ok(["load", "status"])).trim()).toStartWith("loaded 'status': 0 task(s), 1 already running");
  });
});

describe("save refusals", () => {
  test("saving an empty fleet is refused and writes nothing", async () => {
    const r = await fleet.cli(["save", "nothing"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("fleetcom: cannot save 'nothing': the fleet is empty, there is nothing to relaunch");
    expect(existsSync(join(sessionsDir(), "nothing.json"))).toBe(false);
  });

  test("a name that shares a file with another stored session is refused, naming both", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "a/b"]);
    const before = readFileSync(join(sessionsDir(), "a_b.json"), "utf8");
    const r = await fleet.cli(["save", "a.b"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`fleetcom: cannot save 'a.b': 'a.b' and 'a/b' share the file ${join(sessionsDir(), "a_b.json")}; choose another name`);
    expect(readFileSync(join(sessionsDir(), "a_b.json"), "utf8")).toBe(before);
  });

  test("saving under the same name again overwrites with the fleet as it is now", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "again"]);
    await fleet.run("sleep 3601");
    const r = await fleet.ok(["save", "again"]);
    expect(r).toContain("saved 'again': 2 task(s)");
    expect(JSON.parse(readFileSync(join(sessionsDir(), "again.json"), "utf8")).dirs["~"]).toEqual(["sleep 3600", "sleep 3601"]);
  });

  test("an empty name is a usage error", async () => {
    const r = await fleet.cli(["save", "  "]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: a session name cannot be empty");
  });

  test("save writes the session file 0600 in a 0700 directory", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "modes"]);
    const mode = (path: string) => Bun.spawnSync(["stat", "-c", "%a", path]).stdout.toString().trim();
    expect(mode(sessionsDir())).toBe("700");
    expect(mode(join(sessionsDir(), "modes.json"))).toBe("600");
  });
});
