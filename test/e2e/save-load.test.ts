// `fleetcom save`, `load` and `fleetcom NAME` against the real daemon: the live fleet to a file and
// back, the loading client's directory and HOME, and every line the user sees (refusals: save-refusals).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installSleepingAgent } from "../harness/agent-fakes.ts";
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

  test("an agent saved in its resume form loads labelled as typed: ls and completion say claude, --json and --verbose the resume form", async () => {
    installSleepingAgent(fleet, "claude");
    const resume = "claude --resume '2771a642-cfad-4610-888e-1bed4d3b442b'";
    mkdirSync(sessionsDir(), { recursive: true });
    writeFileSync(join(sessionsDir(), "day.json"), JSON.stringify({ version: 1, name: "day", dirs: { "~": [resume] } }));
    await fleet.ok(["load", "day"]);
    const [task] = await fleet.ls();
    expect(task).toMatchObject({ id: 1, command: resume, typed: "claude", name: null });
    const row = (await fleet.ok(["ls"])).split("\n")[1]!;
    expect(row).toMatch(/^1 +\S+ +claude +~ /);
    expect(row).not.toContain("--resume");
    expect((await fleet.ok(["ls", "--verbose"])).split("\n")[1]).toContain(`claude  ${resume}`);
    expect(await fleet.ok(["completions", "--list", "tasks"])).toBe("1\tclaude\nclaude\ttask 1\n");
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

  test("a dry run asks the running daemon what already runs: those would be skipped, as the real load skips them", async () => {
    await fleet.run("sleep 3600", ["--name", "keeper"]);
    await fleet.ok(["save", "one"]);
    writeFileSync(
      join(sessionsDir(), "one.json"),
      JSON.stringify({ name: "one", dirs: { "~": [{ cmd: "sleep 3600", name: "keeper" }, "sleep 3601", "sleep 3600"] } }),
    );
    const dry = await fleet.ok(["load", "one", "--dry-run"]);
    expect(dry.trimEnd().split("\n")).toEqual([
      `would load 'one' from ${join(sessionsDir(), "one.json")}`,
      `  ${fleet.sandbox.home}`,
      "    sleep 3600  [name: keeper]  (already running: would be skipped)",
      "    sleep 3601",
      "    sleep 3600",
      "2 task(s) would start, 1 already running (would be skipped; --again starts them), 0 skipped (missing directory), 0 dropped",
    ]);
    const json = JSON.parse(await fleet.ok(["load", "one", "--dry-run", "--json"]));
    expect(json.entries.map((e: { alreadyRunning: boolean }) => e.alreadyRunning)).toEqual([true, false, false]);
    expect((await fleet.ok(["load", "one", "--dry-run", "--again"])).trimEnd().split("\n").at(-1)).toBe(
      "3 task(s) would start, 0 skipped (missing directory), 0 dropped",
    );
    const real = await fleet.ok(["load", "one"]);
    expect(real.trim()).toBe("loaded 'one': 2 task(s), 1 already running (--again starts them), 0 skipped (missing directory), 0 dropped");
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
});
