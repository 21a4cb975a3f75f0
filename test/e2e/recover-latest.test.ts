// `fleetcom recover --latest` and `recover FILE` through the real program: --dry-run and --json, the
// running fleet's own snapshot, finished tasks, on snapshot files fabricated in the recovery directory.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { snapshotFileName } from "../../src/recipe-snapshot-rules.ts";
import { installSleepingAgent } from "../harness/agent-fakes.ts";
import { type Fleet, until } from "../harness/fleet.ts";
import { HeldReplyProxy } from "../harness/held-reply-proxy.ts";
import {
  crashDaemon,
  DEAD_PID,
  eachTestGetsARecoveryDir,
  type Fabricate,
  recoveryDirOf,
  SAVE_HINT,
  snapshotNames,
  snapshotRecipe,
  snapshotTasks,
  snapshotWrites,
} from "../harness/recovery-helpers.ts";

let fleet: Fleet;
let dir: string;
let fabricate: Fabricate;
eachTestGetsARecoveryDir((f, d, fab) => {
  fleet = f;
  dir = d;
  fabricate = fab;
});

describe("recover --latest and FILE", () => {
  test("--latest loads the newest loadable snapshot, skipping damaged ones, and suggests saving it", async () => {
    mkdirSync(join(fleet.sandbox.home, "api"));
    fabricate(DEAD_PID, 60, snapshotRecipe(60, { "~": ["sleep 3600"] }));
    const good = snapshotRecipe(10, { "~/api": [{ cmd: "sleep 3601", name: "api" }, "sleep 3602"], "/nonexistent/x": ["sleep 1"] });
    fabricate(DEAD_PID + 1, 10, good);
    fabricate(DEAD_PID + 2, 1, "{ torn");
    fabricate(DEAD_PID + 3, 0, { version: 1, name: "empty", dirs: {} });
    const r = await fleet.cli(["recover", "--latest"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toEqual([`loaded '${good.name}': 2 task(s), 1 skipped (missing directory), 0 dropped`, SAVE_HINT]);
    const tasks = await fleet.ls();
    expect(tasks.map((t) => [t.cwd, t.command, t.name])).toEqual([
      [join(fleet.sandbox.home, "api"), "sleep 3601", "api"],
      [join(fleet.sandbox.home, "api"), "sleep 3602", null],
    ]);
  });

  test("--latest --dry-run prints what would start and starts no daemon", async () => {
    const good = snapshotRecipe(3, { "~": ["sleep 3600"] });
    const name = fabricate(DEAD_PID, 3, good);
    const r = await fleet.cli(["recover", "--latest", "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      `would load '${good.name}' from ${join(dir, name)}`,
      `  ${fleet.sandbox.home}`,
      "    sleep 3600",
      "1 task(s) would start, 0 skipped (missing directory), 0 dropped",
    ]);
    expect(fleet.daemonPid()).toBeNull();
  });

  test("--latest --dry-run --json prints the resolved entries", async () => {
    const name = fabricate(DEAD_PID, 3, snapshotRecipe(3, { "~": [{ cmd: "sleep 3600", group: "g" }] }));
    const out = JSON.parse((await fleet.cli(["recover", "--latest", "--dry-run", "--json"])).stdout);
    expect(out.file).toBe(join(dir, name));
    expect(out.entries).toEqual([{ dir: fleet.sandbox.home, cmd: "sleep 3600", group: "g", name: null, missing: false, alreadyRunning: false }]);
  });

  test("--latest --json prints the load summary as JSON, without the hint", async () => {
    const good = snapshotRecipe(3, { "~": ["sleep 3600"] });
    const name = fabricate(DEAD_PID, 3, good);
    const r = await fleet.cli(["recover", "--latest", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual({
      name: good.name,
      file: join(dir, name),
      started: [1],
      couldNotStart: [],
      skipped: 0,
      alreadyRunning: 0,
      finished: 0,
      dropped: 0,
      idsChanged: [],
    });
  });

  test("--latest with only damaged snapshots fails naming the directory, how many there are and what the newest holds", async () => {
    fabricate(DEAD_PID, 5, "{");
    const empty = fabricate(DEAD_PID, 3, snapshotRecipe(3, {}));
    const r = await fleet.cli(["recover", "--latest"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`fleetcom: no loadable recovery snapshot in ${dir} (2 damaged; the newest, ${empty}: holds no command)`);
  });

  test("--latest with no snapshot at all says only that", async () => {
    const r = await fleet.cli(["recover", "--latest"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`fleetcom: no loadable recovery snapshot in ${dir}`);
  });

  test("--latest skips the running daemon's own snapshot: loading it would only duplicate its tasks; one connection, one status", async () => {
    const crashed = snapshotRecipe(30, { "~": ["sleep 3600"] });
    fabricate(DEAD_PID, 30, crashed);
    await fleet.run("sleep 4000");
    await until("the running daemon's own, newer snapshot", () => snapshotWrites(fleet) === 1);
    const proxy = new HeldReplyProxy(await fleet.socketPath());
    try {
      await proxy.listen();
      const r = await fleet.cli(["recover", "--latest"], { env: { FLEETCOM_RUNTIME_DIR: proxy.runtime, FLEETCOM_RUN_CHECK: "0.3s" } });
      expect(r.stdout).toContain(`loaded '${crashed.name}': 1 task(s)`);
      // The status that finds the daemon's own snapshot also serves the check before the load, on the load's
      // connection; the same connection then watches what started for a task that fails at once.
      expect(proxy.connections).toEqual([["status", "load", "subscribe"]]);
    } finally {
      proxy.close();
    }
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 4000", "sleep 3600"]);
  });

  test("FILE loads that snapshot, by path or by its bare name in the recovery directory", async () => {
    const older = snapshotRecipe(50, { "~": ["sleep 3600"] });
    const name = fabricate(DEAD_PID, 50, older);
    fabricate(DEAD_PID + 1, 1, snapshotRecipe(1, { "~": ["sleep 3601"] }));
    const byName = await fleet.cli(["recover", name]);
    expect(byName.stdout.trimEnd().split("\n")).toEqual([`loaded '${older.name}': 1 task(s), 0 skipped (missing directory), 0 dropped`, SAVE_HINT]);
    const byPath = await fleet.cli(["recover", join("sessions", "recovery", name)], { cwd: fleet.sandbox.config });
    expect(byPath.code).toBe(0);
    expect(byPath.stdout).toContain(`loaded '${older.name}': 0 task(s), 1 already running`);
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 3600"]);
  });

  test("the running fleet's own snapshot is marked in --list and refused by FILE unless --again", async () => {
    fabricate(DEAD_PID, 30, snapshotRecipe(30, { "~": ["sleep 3600"] }));
    await fleet.run("sleep 4000", ["--name", "api"]);
    await fleet.run("sleep 4001");
    const own = snapshotFileName(new Date(JSON.parse(await fleet.ok(["status", "--json"])).startedAt), fleet.daemonPid()!);
    // Both spawns may fall in one debounce or in two (a loaded machine): wait for the write that holds both.
    await until("the running daemon's own snapshot of both tasks", () => snapshotTasks(join(recoveryDirOf(fleet), own)) === 2);
    const rows = (await fleet.ok(["recover", "--list"])).trimEnd().split("\n");
    expect(rows[0]).toMatch(/^1 {2}\d+s ago · this fleet, running · 2 tasks · api, sleep 4001 · autosaved /);
    expect(rows[1]).toMatch(/^2 {2}30m ago · 1 task · sleep 3600 · autosaved /);
    const listed = JSON.parse(await fleet.ok(["recover", "--list", "--json"])).snapshots;
    expect(listed.map((s: { thisFleet: boolean }) => s.thisFleet)).toEqual([true, false]);

    const refused = await fleet.cli(["recover", own]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `fleetcom: ${own} is this fleet's own snapshot (this fleet, running): its tasks are the ones running now, so nothing was started; --again starts them a second time`,
    );
    expect(await fleet.ls()).toHaveLength(2);
    const again = await fleet.cli(["recover", own, "--again", "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ started: [3, 4], alreadyRunning: 0 });
  });

  test("tasks that had finished are recorded apart: the dry run names them, recovery does not start them", async () => {
    await fleet.run("sleep 4000", ["--name", "api"]);
    const once = await fleet.run("echo migrated");
    await fleet.waitForExit(once);
    await until("a snapshot holding the finished task", () => snapshotNames(fleet).some((n) => readFileSync(join(dir, n), "utf8").includes('"finished"')));
    const [name] = snapshotNames(fleet);
    const stored = JSON.parse(readFileSync(join(dir, name!), "utf8"));
    expect(stored.dirs).toEqual({ "~": [{ cmd: "sleep 4000", name: "api", id: 1, history: "1" }] });
    expect(stored.finished).toEqual({ "~": [{ cmd: "echo migrated", id: 2, history: "2" }] });
    await fleet.ok(["--kill"]);

    const dry = await fleet.ok(["recover", "--latest", "--dry-run"]);
    expect(dry.trimEnd().split("\n").slice(1)).toEqual([
      `  ${fleet.sandbox.home}`,
      "    sleep 4000  [name: api]",
      "  not started: had finished when the snapshot was written",
      `    ${fleet.sandbox.home}: echo migrated`,
      "1 task(s) would start, 0 skipped (missing directory), 1 had finished (not started), 0 dropped",
    ]);
    expect(JSON.parse(await fleet.ok(["recover", "--latest", "--dry-run", "--json"])).finished).toEqual([
      { dir: fleet.sandbox.home, cmd: "echo migrated", group: null, name: null, id: 2, history: "2" },
    ]);
    expect((await fleet.ok(["recover", "--list"])).trim()).toMatch(/^1 {2}\d+s ago · 1 task \(\+1 finished\) · api · autosaved /);
    const r = await fleet.ok(["recover", "--latest"]);
    expect(r).toContain("1 task(s), 1 had finished (not started), 0 skipped");
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 4000"]);
  });

  test("a crashed fleet comes back with each task's id, gaps and all, and a later run takes a new one", async () => {
    for (const sub of ["a", "b"]) mkdirSync(join(fleet.sandbox.home, sub));
    // Ids 1..5, then 1, 2 and 4 removed: what is left is 3 (in ~/b) and 5 (in ~/a), so the snapshot's
    // directory order is not the id order either.
    for (const [name, cwd] of [
      ["gone-1", "a"],
      ["gone-2", "a"],
      ["keep-3", "b"],
      ["gone-4", "b"],
      ["keep-5", "a"],
    ]) {
      const id = await fleet.run(name!.startsWith("gone") ? "true" : "sleep 3600", ["--name", name!, "--cwd", join(fleet.sandbox.home, cwd!)]);
      if (name!.startsWith("gone")) await fleet.waitForExit(id);
    }
    await fleet.ok(["rm", "1", "2", "4"]);
    const own = snapshotFileName(new Date(JSON.parse(await fleet.ok(["status", "--json"])).startedAt), fleet.daemonPid()!);
    await until("the snapshot of tasks 3 and 5 alone", () => {
      const text = existsSync(join(dir, own)) ? readFileSync(join(dir, own), "utf8") : "";
      return text.includes("keep-3") && text.includes("keep-5") && !text.includes("gone-");
    });
    await crashDaemon(fleet);

    const r = await fleet.cli(["recover", "--latest"]);
    expect(r.stdout.trimEnd().split("\n")).toEqual([expect.stringMatching(/^loaded 'autosaved .*': 2 task\(s\), 0 skipped/), SAVE_HINT]);
    const listed = JSON.parse(await fleet.ok(["ls", "--json"]));
    expect(listed.map((t: { id: number; name: string }) => [t.id, t.name])).toEqual([
      [3, "keep-3"],
      [5, "keep-5"],
    ]);
    expect(await fleet.run("sleep 3601")).toBe(6);
  });

  test("an agent in its resume form is listed and recovered under the command as typed", async () => {
    installSleepingAgent(fleet, "claude");
    const resume = "claude --resume '2771a642-cfad-4610-888e-1bed4d3b442b'";
    const recipe = join(fleet.sandbox.root, "day.json");
    writeFileSync(recipe, JSON.stringify({ version: 1, dirs: { "~": [resume] } }));
    await fleet.ok(["load", recipe]);
    await until("the snapshot of the agent", () => snapshotNames(fleet).some((n) => readFileSync(join(dir, n), "utf8").includes("--resume")));
    const row = (await fleet.ok(["recover", "--list"])).trimEnd();
    expect(row).toMatch(/ · this fleet, running · 1 task · claude · autosaved /);
    await crashDaemon(fleet);

    await fleet.ok(["recover", "--latest"]);
    expect(await fleet.ls()).toMatchObject([{ command: resume, typed: "claude" }]);
  });

  test("a recorded id already in use gets a new one, and recover says which on one line", async () => {
    await fleet.run("sleep 4000");
    await fleet.run("sleep 4001");
    const crashed = snapshotRecipe(5, {
      "~": [
        { cmd: "sleep 3601", name: "one", id: 1 },
        { cmd: "sleep 3602", name: "two", id: 2 },
        { cmd: "sleep 3605", name: "five", id: 5 },
      ],
    });
    const name = fabricate(DEAD_PID, 5, crashed);
    const r = await fleet.cli(["recover", name]);
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      `loaded '${crashed.name}': 3 task(s), 0 skipped (missing directory), 0 dropped`,
      "ids changed: 1→6, 2→7",
      SAVE_HINT,
    ]);
    expect((await fleet.ls()).map((t) => [t.id, t.name ?? t.command])).toEqual([
      [1, "sleep 4000"],
      [2, "sleep 4001"],
      [5, "five"],
      [6, "one"],
      [7, "two"],
    ]);
    const again = JSON.parse((await fleet.cli(["recover", name, "--again", "--json"])).stdout);
    expect(again).toMatchObject({
      started: [8, 9, 10],
      idsChanged: [
        { from: 1, to: 8 },
        { from: 2, to: 9 },
        { from: 5, to: 10 },
      ],
    });
  });

  test("a damaged FILE fails with one line naming it", async () => {
    const name = fabricate(DEAD_PID, 1, "[1,");
    const r = await fleet.cli(["recover", join(dir, name)]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`fleetcom: ${join(dir, name)}: invalid JSON`);
  });
});
