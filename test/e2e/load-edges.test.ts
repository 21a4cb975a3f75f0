// `fleetcom load` and `fleetcom NAME` at their edges against the real daemon: what a load counts and
// prints (--json too), a recipe with nothing to start, and fleetcom NAME or WORD where it cannot load.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";

let fleet: Fleet;
beforeEach(() => {
  fleet = new Fleet();
});
afterEach(async () => await fleet.stop());

describe("load at its edges", () => {
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
    expect(JSON.parse(r)).toEqual({
      name: "j",
      file,
      started: [1, 2],
      couldNotStart: [],
      skipped: 1,
      alreadyRunning: 0,
      finished: 0,
      dropped: 1,
      idsChanged: [],
    });
  });

  test("a recipe without a single command loads nothing, says so and starts no daemon", async () => {
    writeFileSync(join(fleet.sandbox.root, "empty.json"), JSON.stringify({ name: "e", dirs: { "/tmp": [1, 2] } }));
    const r = await fleet.cli(["load", "empty.json"], { cwd: fleet.sandbox.root });
    expect(r.code).toBe(1);
    const file = join(fleet.sandbox.root, "empty.json");
    expect(r.stderr.trim().split("\n")).toEqual([
      `fleetcom: ${file}: dirs["/tmp"][0]: a number, not a command or {"cmd": …}; dropped`,
      `fleetcom: ${file}: dirs["/tmp"][1]: a number, not a command or {"cmd": …}; dropped`,
      `fleetcom: nothing to load: ${file} holds no command (2 dropped, each said above)`,
    ]);
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

  test("tasks that could not start (a daemon out of file descriptors) are counted apart, with the reason, and the load fails", async () => {
    // A daemon limited to 60 open files: some of 30 tasks get no PTY.
    const daemon = Bun.spawn(["sh", "-c", 'ulimit -n 60 && exec "$@"', "sh", ...fleetcomArgv(["daemon"])], {
      env: fleet.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    await until("the daemon's socket", () => existsSync(join(fleet.sandbox.runtime, "default.sock")));
    const file = join(fleet.sandbox.root, "x.json");
    writeFileSync(file, JSON.stringify({ name: "x", dirs: { "~": Array.from({ length: 30 }, (_, i) => `sleep 3600 # ${i}`) } }));
    const r = await fleet.cli(["load", file]);
    const summary = /^loaded 'x': (\d+) task\(s\), (\d+) could not start \((.+)\), 0 skipped \(missing directory\), 0 dropped\n$/.exec(r.stdout);
    expect({ stdout: r.stdout, matches: summary !== null }).toEqual({ stdout: r.stdout, matches: true });
    const [started, failed] = [Number(summary![1]), Number(summary![2])];
    expect(started + failed).toBe(30);
    expect(failed).toBeGreaterThan(0);
    expect(r.code).toBe(1);
    const tasks = await fleet.ls();
    expect(tasks.filter((t) => t.state === "running")).toHaveLength(started);
    expect(tasks.filter((t) => t.exitCode === 127)).toHaveLength(failed);
    await fleet.ok(["--kill"]);
    await daemon.exited;
  });
});
