// The dashboard through the real program in a real PTY: what it shows, and fleetcom SESSION and
// --foreground; the screen read back through a headless terminal (its keys: dashboard-keys).
import { isProcessAlive } from "../../src/platform.ts";
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { textWidth } from "../../src/text-width.ts";
import { openDashboard, rows, selectedRow } from "../harness/dashboard.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { recoveryDirOf, snapshotNames } from "../harness/recovery-helpers.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";
import { mkdirSync, writeFileSync } from "node:fs";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const dashboard = (args: string[] = [], size?: { cols: number; rows: number }) => openDashboard(fleet, args, size);
let tmux: Tmux | undefined;
afterEach(() => tmux?.kill());

describe("the view", () => {
  test("header with counts, sections by state, one row per task, hints; redraws in place when tasks change", async () => {
    // The rows below say ✻ for a quiet running task: keep it from turning idle (∙) on a machine slow enough to take idle_seconds.
    fleet.env.FLEETCOM_IDLE_SECONDS = "3600";
    const server = await fleet.run("echo listening on :3000; sleep 3600", ["--name", "api server"]);
    const failed = await fleet.run("echo boom; exit 3");
    await fleet.waitForExit(failed);
    await until("server output", async () => (await fleet.task(server)).preview === "listening on :3000");
    const client = await dashboard();
    const screen = await client.waitForScreen("both tasks", (s) => s.includes("api server") && s.includes("Completed"));
    const lines = rows(screen);
    expect(lines[0]).toBe("fleetcom · 2 tasks · ✻ 1 running · ✗ 1 failed · by state");
    expect(lines[1]).toBe("Running (1)");
    expect(lines[2]).toMatch(/^› ✻ {3}1 api server · listening on :3000 · \d+% [\d.]+[KMG] · \d+s$/);
    expect(lines[3]).toBe("Completed (1)");
    expect(lines[4]).toMatch(/^ {2}✗ {3}2 echo boom; exit 3 · boom · \d+s$/);
    expect(lines[5]).toStartWith("q:detach ↑↓ ⏎:attach ␣:peek /:filter");
    expect(lines).toHaveLength(6);

    const added = await fleet.run("echo fresh; sleep 3600");
    const redrawn = await client.waitForScreen("the new task", (s) => s.includes(`✻   ${added} echo fresh`));
    expect(rows(redrawn)[0]).toBe("fleetcom · 3 tasks · ✻ 2 running · ✗ 1 failed · by state");
    expect(rows(redrawn)).toHaveLength(7); // drawn over the old frame, not below it
    await fleet.ok(["rm", String(failed)]);
    const shrunk = await client.waitForScreen("the removed task gone", (s) => !s.includes("Completed"));
    expect(rows(shrunk)).toHaveLength(5);
  });

  test("q detaches leaving nothing on screen but one line, and every task running for other clients", async () => {
    const a = await fleet.run("sleep 3600");
    const b = await fleet.run("sleep 3601");
    const pid = fleet.daemonPid();
    const client = await dashboard();
    client.write("q");
    expect(await client.proc.exited).toBe(0);
    await client.settled();
    expect(client.screen()).toBe("[detached: 2 task(s) still running]");
    const tasks = await fleet.ls();
    expect(tasks.map((t) => [t.id, t.state])).toEqual([
      [a, "running"],
      [b, "running"],
    ]);
    expect(fleet.daemonPid()).toBe(pid);
  });

  test("Ctrl-C detaches like q", async () => {
    await fleet.run("sleep 3600");
    const client = await dashboard();
    client.write("\x03");
    expect(await client.proc.exited).toBe(0);
    expect((await fleet.ls())[0]!.state).toBe("running");
  });

  test("Q asks, n keeps everything; Q then y stops every task and the daemon", async () => {
    await fleet.run("sleep 3600");
    await fleet.run("sleep 3601");
    const pids = (await fleet.ls()).map((t) => t.pid!);
    const daemon = fleet.daemonPid()!;
    const client = await dashboard();
    client.write("Q");
    await client.waitForScreen("the question", (s) => s.includes("stop 2 tasks and the daemon? y/N"));
    client.write("n");
    await client.waitForScreen("nothing stopped", (s) => s.includes("nothing stopped") && !s.includes("y/N"));
    expect((await fleet.ls()).map((t) => t.state)).toEqual(["running", "running"]);
    expect(fleet.daemonPid()).toBe(daemon);
    client.write("Q");
    await client.waitForScreen("the question again", (s) => s.includes("stop 2 tasks and the daemon? y/N"));
    client.write("y");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("[stopped the daemon and every task]");
    await until("the daemon gone", () => !isProcessAlive(daemon));
    await until("the tasks gone", () => pids.every((p) => !isProcessAlive(p)));
    expect(fleet.daemonPid()).toBeNull();
  });

  test("with confirm = false in the config file, Q and X act at once", async () => {
    mkdirSync(fleet.sandbox.config, { recursive: true });
    writeFileSync(join(fleet.sandbox.config, "config.toml"), "confirm = false\n");
    const id = await fleet.run("sleep 3600");
    await fleet.run("sleep 3601");
    const client = await dashboard();
    client.write("X");
    await client.waitForScreen("killed at once", (s) => s.includes(`killed task ${id}`));
    client.write("Q");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("[stopped the daemon and every task]");
  });

  test("rows are cut with … to the terminal width and never wrap; the hint gets shorter", async () => {
    await fleet.run(`echo ${"x".repeat(200)}; sleep 3600 # ${"long command ".repeat(10)}`);
    const client = await dashboard([], { cols: 50, rows: 20 });
    const screen = await client.waitForScreen("the preview", (s) => s.includes("xxxx"));
    const lines = rows(screen);
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(textWidth(line)).toBeLessThan(50);
    expect(lines[2]).toMatch(/^› ✻ {3}1 echo x+… · x+… · \d+% [\d.]+[KMG] · \d+s$/);
    expect(lines[3]).toStartWith("q:detach ↑↓ ⏎:attach");
    expect(lines[3]).toEndWith("?:help");
  });

  test("a long list keeps the selected row on screen", async () => {
    // No task turns idle meanwhile, however slow the machine: a move between sections is not this test's subject.
    fleet.env.FLEETCOM_IDLE_SECONDS = "86400";
    for (let i = 0; i < 12; i++) await fleet.run(`sleep 36${String(i).padStart(2, "0")}`);
    const client = await dashboard([], { cols: 80, rows: 10 });
    expect(rows(client.screen()).length).toBeLessThanOrEqual(9);
    for (let i = 0; i < 11; i++) client.write("j");
    const screen = await client.waitForScreen("the last task selected", (s) => selectedRow(s).includes("sleep 3611"));
    expect(screen).toContain("more");
    expect(rows(screen).length).toBeLessThanOrEqual(9);
  });

  test("colours only when NO_COLOR is not set", async () => {
    await fleet.run("sleep 3600");
    const SGR = /\x1b\[[0-9;]*m/;
    const plain = await dashboard();
    expect(plain.output).not.toMatch(SGR);
    plain.write("q");
    await plain.proc.exited;
    delete fleet.env.NO_COLOR;
    const coloured = await dashboard();
    expect(coloured.output).toMatch(SGR);
  });

  test("without a terminal the dashboard says so and exits 2", async () => {
    const r = await fleet.cli([]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: the dashboard needs a terminal");
  });
});

describe("fleetcom SESSION and --foreground", () => {
  test("fleetcom NAME loads the session, then opens the dashboard saying what it loaded", async () => {
    await fleet.run("sleep 3600", ["--group", "g"]);
    await fleet.ok(["save", "quick"]);
    await fleet.ok(["--kill"]);
    const client = await dashboard(["quick"]);
    await client.waitForScreen("the summary", (s) => s.includes("loaded 'quick': 1 task(s), 0 skipped (missing directory), 0 dropped"));
    expect((await fleet.ls()).map((t) => [t.command, t.group])).toEqual([["sleep 3600", "g"]]);
  });

  test("--foreground runs the supervisor in the dashboard's process, writes snapshots, and its tasks end on quit", async () => {
    fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = "100";
    const client = await dashboard(["--foreground"]);
    expect(rows(client.screen())[0]).toStartWith("fleetcom (foreground) · 0 tasks");
    expect(fleet.daemonPid()).toBe(client.proc.pid);
    await fleet.run("sleep 3600"); // another client talks to the in-process supervisor
    await client.waitForScreen("the task", (s) => s.includes("sleep 3600"));
    const pid = (await fleet.ls())[0]!.pid!;
    await until("a recovery snapshot", () => snapshotNames(fleet).length === 1);
    const snapshot = JSON.parse(readFileSync(join(recoveryDirOf(fleet), snapshotNames(fleet)[0]!), "utf8"));
    expect(Object.values(snapshot.dirs)).toEqual([[{ cmd: "sleep 3600", id: 1, history: "1" }]]);
    client.write("q");
    await client.waitForScreen("the question", (s) => s.includes("stop 1 task and the daemon? y/N"));
    client.write("y");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("[foreground supervisor stopped with every task]");
    await until("the task gone", () => !isProcessAlive(pid));
    expect(fleet.daemonPid()).toBeNull();
  });

  test("--foreground: q is labelled stop, in the hint and in ?, and asks as Q does", async () => {
    const client = await dashboard(["--foreground"], { cols: 160, rows: 30 });
    const id = await fleet.run("sleep 3600");
    const screen = await client.waitForScreen("the task", (s) => s.includes("sleep 3600"));
    expect(rows(screen).at(-1)).toStartWith("q:stop ↑↓");
    client.write("?");
    const help = await client.waitForScreen("the keys", (s) => s.includes("Keys ("));
    expect(help).toMatch(/q Ctrl-C +stop \(foreground\): every task and the supervisor, after y\/N/);
    expect(help).not.toContain("detach, leaving everything running");
    client.write(" ");
    await client.waitForScreen("the list", (s) => !s.includes("Keys ("));
    client.write("q");
    await client.waitForScreen("the question", (s) => s.includes("stop 1 task and the daemon? y/N"));
    client.write("n");
    await client.waitForScreen("nothing stopped", (s) => s.includes("nothing stopped"));
    expect(client.proc.exitCode).toBeNull();
    expect((await fleet.task(id)).state).toBe("running");
  });

  test("--foreground SESSION loads into the in-process supervisor; Q ends it too", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "fg"]);
    await fleet.ok(["--kill"]);
    const client = await dashboard(["--foreground", "fg"]);
    await client.waitForScreen("loaded", (s) => s.includes("loaded 'fg': 1 task(s)") && s.includes("sleep 3600"));
    const pid = (await fleet.ls())[0]!.pid!;
    client.write("Q");
    await client.waitForScreen("the question", (s) => s.includes("stop 1 task and the daemon? y/N"));
    client.write("y");
    expect(await client.proc.exited).toBe(0);
    await until("the task gone", () => !isProcessAlive(pid));
  });

  test("--foreground refuses while a daemon runs", async () => {
    await fleet.run("sleep 3600");
    const client = fleet.spawnClient(["--foreground"]);
    expect(await client.proc.exited).toBe(1);
    expect(client.output).toContain("fleetcom: a daemon is already running");
    expect((await fleet.ls())[0]!.state).toBe("running");
  });
});

describe.skipIf(!Tmux.available())("the host terminal, under tmux", () => {
  test("a task that starts waiting rings the dashboard's window (monitor-bell) and its title counts the waiting tasks", async () => {
    const id = await fleet.run("read line; printf 'asks\\a\\n'; exec sleep 3600", ["--name", "asker"]);
    tmux = new Tmux(fleet.env, fleet.sandbox.root);
    tmux.window("dash", shellWords(fleetcomArgv([])), { cols: 80, rows: 24 });
    tmux.cmd("set-option", "-g", "monitor-bell", "on");
    tmux.cmd("set-option", "-g", "bell-action", "any");
    tmux.window("work", "exec sleep 3600");
    tmux.cmd("select-window", "-t", "test:work");
    await tmux.waitFor("dash", "the dashboard", (t) => t.includes("asker"));
    await until("the title", () => tmux!.format("dash", "pane_title") === "fleetcom");
    expect(tmux.format("dash", "window_bell_flag")).toBe("0");
    await fleet.ok(["send", String(id), "go"]);
    await until("the bell flag on the dashboard's window", () => tmux!.format("dash", "window_bell_flag") === "1");
    await until("the title with the count", () => tmux!.format("dash", "pane_title") === "fleetcom ! 1 waiting");
  });
});
