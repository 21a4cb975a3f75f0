// The config file (settings.ts): the daemon's settings the same whichever shell starts it, the
// environment still over it, a bad line costing only its key, and `fleetcom config` saying where each
// setting came from. Plus `fleetcom daemon` refusing to be a second daemon.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { confirmSetting, detachKeySetting, loadSettings, parseDetachKey } from "../../src/settings.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { makeSandbox, type Sandbox } from "../harness/helpers.ts";

describe("reading the file (in-process)", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => sandbox.cleanup());
  const write = (text: string) => {
    mkdirSync(sandbox.config, { recursive: true });
    writeFileSync(join(sandbox.config, "config.toml"), text);
    return join(sandbox.config, "config.toml");
  };
  // The file is read once per process and path: a second text needs a directory of its own.
  let dirs = 0;
  const envWithFile = (text: string) => {
    const dir = join(sandbox.root, `config-${++dirs}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "config.toml"), text);
    return { env: { ...sandbox.env, FLEETCOM_CONFIG_DIR: dir }, file: join(dir, "config.toml") };
  };

  test("no file: every setting is its default", () => {
    const s = loadSettings(sandbox.env);
    expect([s.notify, s.scrollback, s.idleSeconds, s.confirm].map((r) => [r.value, r.source])).toEqual([
      [[], "default"],
      [2000, "default"],
      [10, "default"],
      [true, "default"],
    ]);
    expect(s.detachKey).toEqual({ value: { name: "Ctrl-\\", byte: 0x1c }, source: "default" });
    expect(s.problems).toEqual([]);
  });

  test("each key from its line of the file; the environment overrides a key; a flag overrides both", () => {
    const file = write('# mine\nnotify = "notify-send fleetcom"\nscrollback = 500\nidle_seconds = 2.5\ndetach_key = "ctrl-]"\nconfirm = false\n');
    const s = loadSettings({ ...sandbox.env, FLEETCOM_SCROLLBACK: "70", FLEETCOM_CONFIRM: "yes" });
    expect(s.notify).toEqual({ value: ["notify-send fleetcom"], source: `${file}:2` });
    expect(s.scrollback).toEqual({ value: 70, source: "FLEETCOM_SCROLLBACK" });
    expect(s.idleSeconds).toEqual({ value: 2.5, source: `${file}:4` });
    expect(s.detachKey).toEqual({ value: { name: "Ctrl-]", byte: 0x1d }, source: `${file}:5` });
    expect(s.confirm).toEqual({ value: true, source: "FLEETCOM_CONFIRM" });
    expect(loadSettings(sandbox.env, { scrollback: "9" }).scrollback).toEqual({ value: 9, source: "--scrollback" });
    expect(detachKeySetting(sandbox.env)).toEqual({ name: "Ctrl-]", byte: 0x1d });
    expect(confirmSetting(sandbox.env)).toBe(false);
    expect(confirmSetting({ ...sandbox.env, FLEETCOM_CONFIRM: "0" })).toBe(false);
  });

  test("a bad file costs only its bad keys: one line each naming the file, the line and the key", () => {
    const file = write('scrollback = "lots"\nnotify = "echo hi"\nidle_seconds = = 3\nscrolback = 10\ndetach_key = "ctrl-c"\nconfirm = false\n');
    const s = loadSettings(sandbox.env);
    expect(s.problems).toEqual([
      `${file}:1: scrollback: expected a whole number of lines, got "lots"; using the default`,
      expect.stringMatching(new RegExp(`^${file}:3: idle_seconds: not valid TOML \\(.+\\); using the default for idle_seconds$`)),
      `${file}:4: unknown key 'scrolback' (did you mean scrollback?); ignored`,
      `${file}:5: detach_key: 'ctrl-c' would take a key programs need (Ctrl-C interrupts); using the default`,
    ]);
    expect([s.scrollback.value, s.notify.value, s.idleSeconds.value, s.detachKey.value.name, s.confirm.value]).toEqual([
      2000,
      ["echo hi"],
      10,
      "Ctrl-\\",
      false,
    ]);
  });

  test("notify's list keeps its good destinations; each bad one is one line naming it, and the environment's own", () => {
    const file = write('notify = [\n  "ntfy://ntfy.sh/fleet",\n  "htps://hooks.example/x",\n  "ntfy://ntfy.sh",\n  3,\n  "notify-send hi",\n]\n');
    const s = loadSettings(sandbox.env);
    expect(s.notify).toEqual({ value: ["ntfy://ntfy.sh/fleet", "notify-send hi"], source: `${file}:1` });
    expect(s.problems).toEqual([
      `${file}:1: notify: 'htps://hooks.example/x': unknown scheme htps:// (ntfy://host/topic, ntfy+http://host:port/topic, https://… or http://…); ignored`,
      `${file}:1: notify: 'ntfy://ntfy.sh': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64); ignored`,
      `${file}:1: notify: expected a destination in quotes, got 3; ignored`,
    ]);
    // FLEETCOM_NOTIFY is one destination, a URL as well as a command line; a bad one leaves the file's list in force.
    expect(loadSettings({ ...sandbox.env, FLEETCOM_NOTIFY: "https://hooks.example/y" }).notify).toEqual({
      value: ["https://hooks.example/y"],
      source: "FLEETCOM_NOTIFY",
    });
    const bad = loadSettings({ ...sandbox.env, FLEETCOM_NOTIFY: "ntfy://x/" });
    expect(bad.notify.source).toBe(`${file}:1`);
    expect(bad.problems).toContain(
      "FLEETCOM_NOTIFY: 'ntfy://x/': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64); ignored",
    );
  });

  test("a bare word (confirm = yes) is not TOML: the line says the word needs quotes, which every setting then reads", () => {
    const bare = envWithFile("confirm = yes\n");
    expect(loadSettings(bare.env).problems).toEqual([
      `${bare.file}:1: confirm: not valid TOML (invalid value; a word needs quotes: confirm = "yes"); taking confirm = true to be safe`,
    ]);
    expect(loadSettings(envWithFile('confirm = "no"\n').env).confirm.value).toBe(false);
  });

  test("history = off without quotes is not TOML either, and turns history off: a line meant to keep output off disk never keeps it on", () => {
    const bare = envWithFile("history = off\n");
    const s = loadSettings(bare.env);
    expect(s.history).toEqual({ value: false, source: `${bare.file}:1` });
    expect(s.problems).toEqual([
      `${bare.file}:1: history: not valid TOML (invalid value; a word needs quotes: history = "off"); taking history = false to be safe`,
    ]);
  });

  test("a bad environment value is ignored, with one line naming the variable", () => {
    const s = loadSettings({ ...sandbox.env, FLEETCOM_IDLE_SECONDS: "soon", FLEETCOM_DETACH_KEY: "x" });
    expect(s.idleSeconds.value).toBe(10);
    expect(s.problems).toEqual([
      "FLEETCOM_IDLE_SECONDS: 'soon' is not a number of seconds above 0 (at most 86400); ignored",
      "FLEETCOM_DETACH_KEY: 'x' is not a control key (write it as ctrl-\\, ctrl-], ctrl-^, ctrl-_ or ctrl-<letter>); ignored",
    ]);
  });

  test("every yes/no setting reads on/off, true/false, yes/no and 1/0, in any case: FLEETCOM_HISTORY=0, false or no turns history off", () => {
    const history = (v: string) => loadSettings({ ...sandbox.env, FLEETCOM_HISTORY: v });
    for (const v of ["0", "false", "no", "off", "OFF", " Off ", "No", "FALSE"]) {
      expect(history(v).history).toEqual({ value: false, source: "FLEETCOM_HISTORY" });
      expect(history(v).problems).toEqual([]);
      expect(confirmSetting({ ...sandbox.env, FLEETCOM_CONFIRM: v })).toBe(false);
    }
    for (const v of ["1", "true", "yes", "on", " ON", "Yes"]) {
      expect(history(v).history).toEqual({ value: true, source: "FLEETCOM_HISTORY" });
      expect(confirmSetting({ ...sandbox.env, FLEETCOM_CONFIRM: v })).toBe(true);
    }
    expect(loadSettings(sandbox.env).history).toEqual({ value: true, source: "default" });
    const words = envWithFile('history = "off"\nconfirm = "no"\n');
    expect(loadSettings(words.env).history).toEqual({ value: false, source: `${words.file}:1` });
    expect(loadSettings(words.env).confirm).toEqual({ value: false, source: `${words.file}:2` });
    const toml = envWithFile("history = false\n");
    expect(loadSettings(toml.env).history).toEqual({ value: false, source: `${toml.file}:1` });
  });

  test("an unreadable history value keeps history off (it can hold secrets), an unreadable confirm asks: each with one line", () => {
    write("history = true\nconfirm = false\n");
    const s = loadSettings({ ...sandbox.env, FLEETCOM_HISTORY: "banana", FLEETCOM_CONFIRM: "sure" });
    expect(s.history).toEqual({ value: false, source: "FLEETCOM_HISTORY" });
    expect(s.confirm).toEqual({ value: true, source: "FLEETCOM_CONFIRM" });
    expect(s.problems).toEqual([
      "FLEETCOM_CONFIRM: 'sure' is not one of on, off, true, false, yes, no, 1, 0; taking confirm = true to be safe",
      "FLEETCOM_HISTORY: 'banana' is not one of on, off, true, false, yes, no, 1, 0; taking history = false to be safe",
    ]);
    const bad = envWithFile('history = "nope"\nconfirm = 3\n');
    const t = loadSettings(bad.env);
    expect([t.history, t.confirm]).toEqual([
      { value: false, source: `${bad.file}:1` },
      { value: true, source: `${bad.file}:2` },
    ]);
    expect(t.problems).toEqual([
      `${bad.file}:1: history: 'nope' is not one of on, off, true, false, yes, no, 1, 0; taking history = false to be safe`,
      `${bad.file}:2: confirm: '3' is not one of on, off, true, false, yes, no, 1, 0; taking confirm = true to be safe`,
    ]);
  });

  test.each([
    ["ctrl-\\", 0x1c],
    ["ctrl-]", 0x1d],
    ["C-b", 0x02],
    ["^A", 0x01],
    ["Ctrl+_", 0x1f],
  ])("the detach key %p is byte %p", (raw, byte) => {
    expect(parseDetachKey(raw)).toMatchObject({ ok: { byte } });
  });

  test.each(["ctrl-c", "ctrl-d", "ctrl-z", "ctrl-m", "ctrl-[", "q", "ctrl-", "alt-x"])("%p is refused as a detach key", (raw) => {
    expect(parseDetachKey(raw)).toHaveProperty("error");
  });
});

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
      `file          ${configFile()}`,
      "daemon        not running: what a daemon started from this shell would use",
      "notify        (none)  default",
      "scrollback    70      FLEETCOM_SCROLLBACK",
      "idle_seconds  10      default",
      "history       true    default",
      "log_max       100M    default",
      "detach_key    Ctrl-\\  default",
      "confirm       false   config.toml:2",
      "bell          true    default",
      "worktree_dir  (none)  default",
      "",
    ]);
    expect((await fleet.cli(["run", "--", "sleep 3600"], { env })).code).toBe(0);
    // Another shell, without the variable: the daemon keeps what it started with, and says what a restart would change.
    const after = await fleet.cli(["config"]);
    expect(after.stdout).toContain(`daemon        pid ${fleet.daemonPid()}: notify, scrollback, idle_seconds and history as it last read them`);
    expect(after.stdout).toContain("scrollback    70      FLEETCOM_SCROLLBACK  (after a restart: 5, from config.toml:1)");
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
    expect(config).toContain("idle_seconds  1 ");
    expect(config).not.toContain("idle_seconds  86400");
    expect(config).toContain("history       true  ");
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
    write("idle_seconds = 5\nscrolback = 100\nconfirm = yes\n");
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
    expect(await fleet.ok(["config"])).toContain("history       false   config.toml:1\n");
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
    expect(await fleet.ok(["status"])).toContain(`history   not kept on disk (off: FLEETCOM_HISTORY)\nconfig    ${problem}\n`);
    const config = await fleet.cli(["config"], { env });
    expect(config.stderr).toBe(`fleetcom: warning: ${problem}\n`);
    expect(config.stdout).toContain("history       false   FLEETCOM_HISTORY\n");
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
