// The config file as the daemon reads it: its settings the same whichever shell starts it, reloaded
// on SIGHUP, and `fleetcom config` saying where each setting came from (reading the file in-process
// is test/unit/settings.test.ts). Plus `fleetcom daemon` refusing to be a second daemon.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet, until } from "../harness/fleet.ts";

const configFileOf = (fleet: Fleet) => join(fleet.sandbox.config, "config.toml");
function writeConfig(fleet: Fleet, text: string): void {
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(configFileOf(fleet), text);
}

describe("the daemon and fleetcom config", () => {
  let fleet: Fleet;
  beforeEach(() => (fleet = new Fleet()));
  afterEach(async () => await fleet.stop());
  const configFile = () => configFileOf(fleet);
  const write = (text: string) => writeConfig(fleet, text);

  test("the daemon takes notify, scrollback and idle_seconds from the file, whatever the starting shell's environment lacks", async () => {
    const calls = join(fleet.sandbox.root, "notified");
    write(`notify = "echo $FLEETCOM_TASK_ID >> '${calls}'"\nscrollback = 5\nidle_seconds = 1\n`);
    const id = await fleet.run("seq 1 200; printf '\\a'; sleep 3600");
    await until("the notifier from the file to run", () => existsSync(calls) && readFileSync(calls, "utf8").trim() === String(id));
    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(status.settings).toMatchObject({
      notify: { source: `${configFile()}:1` },
      scrollback: { value: 5, source: `${configFile()}:2` },
      idleSeconds: { value: 1, source: `${configFile()}:3` },
      problems: [],
    });
    // 5 lines of scrollback above a 40-row screen.
    const lines = (await fleet.ok(["peek", String(id), "--lines", "1000"])).trimEnd().split("\n");
    expect(lines[0]).toBe(String(200 - 40 - 5 + 2));
  });

  test("the environment of the starting shell still overrides the file; fleetcom config says where each came from", async () => {
    write("scrollback = 5\nconfirm = false\n");
    const env = { FLEETCOM_SCROLLBACK: "70" };
    const before = await fleet.cli(["config"], { env });
    expect(before.stdout.split("\n")).toEqual([
      `file                ${configFile()}`,
      "daemon              not running: what a daemon started from this shell would use",
      "notify              (none)  default",
      "notify_min_runtime  30      default",
      "notify_idle         60      default",
      "scrollback          70      FLEETCOM_SCROLLBACK",
      "idle_seconds        10      default",
      "history             true    default",
      "log_max             100M    default",
      "detach_key          Ctrl-\\  default",
      "confirm             false   config.toml:2",
      "bell                true    default",
      "worktree_dir        (none)  default",
      // The harness turns run's check off for every test but its own (test/harness/helpers.ts).
      "run_check           off     FLEETCOM_RUN_CHECK",
      "",
    ]);
    expect((await fleet.cli(["run", "--", "sleep 3600"], { env })).code).toBe(0);
    // Another shell, without the variable: the daemon keeps what it started with, and says what a restart would change.
    const after = await fleet.cli(["config"]);
    expect(after.stdout).toContain(`daemon              pid ${fleet.daemonPid()}: as it last read the file (config --reload reads it again)`);
    expect(after.stdout).toContain("scrollback          70      FLEETCOM_SCROLLBACK  (after a restart: 5, from config.toml:1)");
    const json = JSON.parse((await fleet.cli(["config", "--json"])).stdout);
    expect(json).toMatchObject({ file: configFile(), exists: true, daemon: fleet.daemonPid(), problems: [] });
    expect(json.settings.scrollback).toEqual({ value: 70, source: "FLEETCOM_SCROLLBACK" });
    expect(json.settings.confirm).toEqual({ value: false, source: `${configFile()}:2` });
  });

  test("a bad file: the daemon starts with the default for that key, and the first command says so once, naming file, line and key", async () => {
    write('scrollback = "lots"\nidle_seconds = 3\n');
    const first = await fleet.cli(["ls"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(`fleetcom: warning: ${configFile()}:1: scrollback: expected a whole number of lines, got "lots"; using the default\n`);
    expect((await fleet.cli(["ls"])).stderr).toBe("");
    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(status.settings.scrollback).toEqual({ value: 2000, source: "default" });
    expect(status.settings.idleSeconds).toEqual({ value: 3, source: `${configFile()}:2` });
    const config = await fleet.cli(["config"]);
    expect(config.code).toBe(0);
    expect(config.stderr).toBe(`fleetcom: warning: ${configFile()}:1: scrollback: expected a whole number of lines, got "lots"; using the default\n`);
  });
});

describe("reloading the settings (SIGHUP, fleetcom config --reload)", () => {
  let fleet: Fleet;
  beforeEach(() => (fleet = new Fleet()));
  afterEach(async () => await fleet.stop());
  const configFile = () => configFileOf(fleet);
  const write = (text: string) => writeConfig(fleet, text);
  const daemonSettings = async () => JSON.parse(await fleet.ok(["status", "--json"])).settings;

  test("config --reload applies notify, idle_seconds and scrollback without a restart, says what changed, and leaves history for a restart", async () => {
    write("idle_seconds = 86400\n");
    const quiet = await fleet.run("sleep 3600");
    const pid = fleet.daemonPid();
    const calls = join(fleet.sandbox.root, "notified");
    write(`idle_seconds = 1\nnotify = "echo $FLEETCOM_TASK_ID >> '${calls}'"\nscrollback = 5\nhistory = false\n`);
    const r = await fleet.cli(["config", "--reload"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n")).toEqual([
      `daemon ${pid} read ${configFile()} again:`,
      `  notify        (none) → echo $FLEETCOM_TASK_ID >> '${calls}'  applied`,
      "  scrollback    2000 → 5  for tasks started from now on",
      "  idle_seconds  86400 → 1  applied",
      "  history       true → false  waits for a restart (fleetcom --kill, then any command)",
      "",
    ]);
    expect(fleet.daemonPid()).toBe(pid);
    // The daemon goes by the new values: the quiet task turns idle, a bell runs the notifier, a new task keeps 5 lines.
    await fleet.waitForTask(quiet, "to turn idle", (t) => t.idle);
    const loud = await fleet.run("seq 1 200; printf '\\a'; sleep 3600");
    await until("the reloaded notifier to run", () => existsSync(calls) && readFileSync(calls, "utf8").trim() === String(loud));
    const lines = (await fleet.ok(["peek", String(loud), "--lines", "1000"])).trimEnd().split("\n");
    expect(lines[0]).toBe(String(200 - 40 - 5 + 2));
    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(status.history.enabled).toBe(true);
    expect(status.settings).toMatchObject({ idleSeconds: { value: 1, source: `${configFile()}:1` }, history: { value: true, source: "default" } });
    const config = await fleet.ok(["config"]);
    expect(config).toContain("idle_seconds        1 ");
    expect(config).not.toContain("idle_seconds        86400");
    expect(config).toContain("history             true  ");
    expect(config).toContain("(after a restart: false, from config.toml:4)");
  });

  test("wait --for idle goes by the daemon's idle_seconds from the file, not its own default", async () => {
    write("idle_seconds = 1\n");
    const id = await fleet.run("sleep 3600");
    const r = await fleet.cli(["wait", String(id), "--for", "idle", "--timeout", "30"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect((await fleet.ls()).find((t) => t.id === id)?.idle).toBe(true);
  });

  test("SIGHUP reloads the daemon instead of stopping it: the same daemon, the same tasks, the new settings", async () => {
    write("idle_seconds = 30\n");
    await fleet.run("sleep 3600", ["--name", "keeper"]);
    const pid = fleet.daemonPid()!;
    write("idle_seconds = 2\n");
    process.kill(pid, "SIGHUP");
    await until("the daemon to read the file again", async () => (await daemonSettings()).idleSeconds.value === 2);
    expect(fleet.daemonPid()).toBe(pid);
    expect((await fleet.ls()).map((t) => [t.name, t.state])).toEqual([["keeper", "running"]]);
  });

  test("warnings are about the file as it is now: lines removed since the daemon started warn no more", async () => {
    write("idle_seconds = 5\nscrolback = 100\nconfirm = maybe\n");
    const first = await fleet.cli(["run", "--", "sleep 3600"]);
    expect(first.stderr).toContain("unknown key 'scrolback'");
    write("idle_seconds = 5\n");
    const config = await fleet.cli(["config"]);
    expect(config.stderr).toBe("");
    expect((await daemonSettings()).problems).toHaveLength(2);
    const reload = await fleet.cli(["config", "--reload"]);
    expect(reload.stdout).toBe(`daemon ${fleet.daemonPid()} read ${configFile()} again: nothing changed\n`);
    expect(reload.stderr).toBe("");
    expect((await daemonSettings()).problems).toEqual([]);
  });

  test("config --reload with no daemon running says so and starts none", async () => {
    const r = await fleet.cli(["config", "--reload"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`no daemon is running: the next one reads ${configFile()} when it starts\n`);
    expect(fleet.daemonPid()).toBeNull();
  });
});

describe("turning history off", () => {
  let fleet: Fleet;
  beforeEach(() => (fleet = new Fleet()));
  afterEach(async () => await fleet.stop());
  const configFile = () => join(fleet.sandbox.config, "config.toml");

  test("history = false in config.toml: the daemon keeps none, whatever shell starts it; status and config say where that came from", async () => {
    mkdirSync(fleet.sandbox.config, { recursive: true });
    writeFileSync(configFile(), "history = false\n");
    await fleet.run("echo hi; sleep 3600");
    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(status.history.enabled).toBe(false);
    expect(status.settings.history).toEqual({ value: false, source: `${configFile()}:1` });
    expect(await fleet.ok(["status"])).toContain(`history   not kept on disk (off: ${configFile()}:1)\n`);
    expect(await fleet.ok(["config"])).toContain("history             false   config.toml:1\n");
  });

  test("FLEETCOM_HISTORY=no turns it off", async () => {
    expect((await fleet.cli(["run", "--", "echo hi; sleep 3600"], { env: { FLEETCOM_HISTORY: "no" } })).code).toBe(0);
    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(status.history.enabled).toBe(false);
    expect(status.settings).toMatchObject({ history: { value: false, source: "FLEETCOM_HISTORY" }, problems: [] });
  });

  test("FLEETCOM_HISTORY=banana keeps history off, and the first command, fleetcom config and status each say why", async () => {
    const problem = "FLEETCOM_HISTORY: 'banana' is not one of on, off, true, false, yes, no, 1, 0; taking history = false to be safe";
    const env = { FLEETCOM_HISTORY: "banana" };
    const first = await fleet.cli(["run", "--", "echo hi; sleep 3600"], { env });
    expect(first.stderr).toBe(`fleetcom: warning: ${problem}\n`);
    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(status.history.enabled).toBe(false);
    expect(status.settings.problems).toEqual([problem]);
    const said = await fleet.ok(["status"]);
    expect(said).toContain("history   not kept on disk (off: FLEETCOM_HISTORY)\n");
    expect(said).toContain(`config    ${problem}\n`);
    const config = await fleet.cli(["config"], { env });
    expect(config.stderr).toBe(`fleetcom: warning: ${problem}\n`);
    expect(config.stdout).toContain("history             false   FLEETCOM_HISTORY\n");
  });
});

describe("fleetcom daemon", () => {
  let fleet: Fleet;
  beforeEach(() => (fleet = new Fleet()));
  afterEach(async () => await fleet.stop());

  test("a second daemon exits 1 and says which one holds the runtime directory", async () => {
    await fleet.run("sleep 3600");
    const pid = fleet.daemonPid();
    const r = await fleet.cli(["daemon"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`a daemon is already running (pid ${pid}) for ${fleet.sandbox.runtime}; fleetcom --kill stops it`);
    expect(fleet.daemonPid()).toBe(pid);
    expect(await fleet.ls()).toHaveLength(1);
  });
});
