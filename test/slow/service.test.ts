// The daemon and the service manager (client-service-manager.ts): autostart in a systemd scope of its own
// where that keeps the fleet past a logout, what `status` says about a logout, and
// `fleetcom service install|uninstall|status`. systemd-run, systemctl, loginctl and launchctl are
// fakes on PATH that record their argv; the machine's own systemd is used only where a user manager
// answers (skipped, and named so, elsewhere).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasUserManager, installService, launchdPlist, lingering, logoutOutlook, systemdQuote, systemdUnit } from "../../src/client-service-manager.ts";
import { Fleet } from "../harness/fleet.ts";
import { fleetcomArgv, makeSandbox, type Sandbox } from "../harness/helpers.ts";

// What runs fleetcom here: main.ts, or the binary `make test` built.
const SELF = fleetcomArgv([]).at(-1)!;
const BINARY = fleetcomArgv([]).length === 1 ? SELF : null;
const RECORD = `printf '%s' "$(basename "$0")" >> "$FAKE_LOG"; for a in "$@"; do printf ' %s' "$a" >> "$FAKE_LOG"; done; echo >> "$FAKE_LOG"`;
const FAKES: Record<string, string> = {
  "systemd-run": `${RECORD}\n[ -n "$FAKE_SCOPE_FAIL" ] && exit 1\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n`,
  systemctl: `${RECORD}\ncase "$*" in\n  *is-system-running*) echo "\${FAKE_MANAGER:-running}"; [ "\${FAKE_MANAGER:-running}" = running ] ;;\n  *is-enabled*) echo enabled ;;\n  *is-active*) echo active ;;\n  *) [ -n "$FAKE_SYSTEMCTL_EXIT" ] && echo "Failed to connect to bus: No medium found" >&2; exit "\${FAKE_SYSTEMCTL_EXIT:-0}" ;;\nesac\n`,
  loginctl: `${RECORD}\ncase "$1" in\n  show-user) echo "\${FAKE_LINGER:-yes}" ;;\n  show-session) echo "\${FAKE_KILL:-yes}" ;;\nesac\n`,
  launchctl: `${RECORD}\n`,
};

// systemd-analyze, where this machine has it: `verify` says whether systemd would run a unit, and at
// debug level it also dumps the unit as systemd parsed it (the command line and the environment).
const ANALYZE = Bun.which("systemd-analyze");
const ANALYZED = ANALYZE ? "" : " (skipped: no systemd-analyze on PATH)";

/** What systemd makes of a unit file: its complaints (`FILE:LINE: …`), the argv it would exec (`$$` made `$`, as systemd does when it runs it), and the environment line. */
function systemdReads(unitFile: string): { code: number; complaints: string[]; argv: string[]; environment: string | undefined } {
  const r = Bun.spawnSync([ANALYZE!, "verify", unitFile], { env: { ...process.env, SYSTEMD_LOG_LEVEL: "debug" }, stdout: "pipe", stderr: "pipe" });
  const lines = `${r.stdout.toString()}\n${r.stderr.toString()}`.split("\n");
  const name = unitFile.split("/").at(-1)!;
  const commandLine = lines.find((l) => /^\s*Command Line: /.test(l))?.replace(/^\s*Command Line: /, "") ?? "";
  const words = [...commandLine.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] ?? m[2]!).replace(/\\(.)/g, "$1"));
  return {
    code: r.exitCode,
    complaints: lines.filter((l) => l.includes(`${name}:`) && /\.service:\d+:|not executable|special characters/.test(l)),
    argv: words.map((w, i) => (i === 0 ? w : w.replaceAll("$$", "$"))),
    environment: lines.find((l) => /^\s*Environment: /.test(l))?.replace(/^\s*Environment: /, ""),
  };
}

/** A directory of fakes, the log they write, and the environment that puts them first on PATH. */
function fakes(root: string, base: Record<string, string>): { env: Record<string, string>; calls(): string[] } {
  const bin = join(root, "fakebin");
  mkdirSync(bin, { recursive: true });
  for (const [name, body] of Object.entries(FAKES)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}`);
    chmodSync(join(bin, name), 0o755);
  }
  const log = join(root, "fake.log");
  const xdg = join(root, "xdg-runtime");
  mkdirSync(xdg, { recursive: true, mode: 0o700 });
  const env = { ...base, PATH: `${bin}:${base.PATH}`, FAKE_LOG: log, XDG_RUNTIME_DIR: xdg, USER: "tester", XDG_CONFIG_HOME: join(root, "xdg-config") };
  return { env, calls: () => (existsSync(log) ? readFileSync(log, "utf8").trimEnd().split("\n") : []) };
}

describe("autostart", () => {
  let fleet: Fleet;
  let calls: () => string[];
  beforeEach(() => {
    fleet = new Fleet();
    const f = fakes(fleet.sandbox.root, fleet.env);
    Object.assign(fleet.env, f.env);
    calls = f.calls;
  });
  afterEach(async () => await fleet.stop());

  test("with a user manager and lingering on, the daemon starts in its own scope (systemd-run --user --scope)", async () => {
    await fleet.run("sleep 3600");
    expect(calls()).toContain("systemctl --user is-system-running");
    expect(calls()).toContain("loginctl show-user tester --property=Linger --value");
    const scope = calls().find((c) => c.startsWith("systemd-run "));
    expect(scope).toMatch(/^systemd-run --user --scope --quiet --collect --unit=fleetcom-daemon-[0-9a-z]+ --description=fleetcom daemon -- /);
    // This same fleetcom (under Deno, its executable is named by its real path): main.ts or the binary, then daemon.
    expect(scope!.endsWith(` ${SELF} daemon`)).toBe(true);
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 3600"]);
    // Lingering on: status has nothing to warn about.
    expect(await fleet.ok(["status"])).not.toContain("logout");
    expect(JSON.parse(await fleet.ok(["status", "--json"])).logout).toEqual({ lingering: true, killUserProcesses: null, survives: true, advice: null });
  });

  test("lingering off: started as before (setsid), and status says the fleet stops at logout and how to keep it", async () => {
    fleet.env.FAKE_LINGER = "no";
    await fleet.run("sleep 3600");
    expect(calls().some((c) => c.startsWith("systemd-run"))).toBe(false);
    const status = await fleet.ok(["status"]);
    expect(status).toContain("logout    the fleet stops when you log out (lingering is off); loginctl enable-linger tester keeps it running\n");
    expect(JSON.parse(await fleet.ok(["status", "--json"])).logout).toMatchObject({ lingering: false, killUserProcesses: true, survives: false });
    // Where logind leaves session processes alone, the fleet outlives a logout, and status says what it hangs on.
    const kept = await fleet.cli(["status"], { env: { FAKE_KILL: "no" } });
    expect(kept.stdout).toContain(
      "logout    lingering is off: the fleet outlives a logout only while logind leaves your processes alone (KillUserProcesses=no); loginctl enable-linger tester keeps it running in any case\n",
    );
  });

  test("no user manager: setsid as before, no scope asked for", async () => {
    fleet.env.FAKE_MANAGER = "offline";
    await fleet.run("sleep 3600");
    expect(calls()).toEqual(["systemctl --user is-system-running"]);
    expect(await fleet.ls()).toHaveLength(1);
  });

  test("a scope that systemd refuses falls back to setsid: the daemon starts all the same", async () => {
    fleet.env.FAKE_SCOPE_FAIL = "1";
    await fleet.run("sleep 3600");
    expect(calls().some((c) => c.startsWith("systemd-run --user --scope"))).toBe(true);
    expect((await fleet.ls()).map((t) => t.state)).toEqual(["running"]);
  });
});

describe("fleetcom service", () => {
  let fleet: Fleet;
  let calls: () => string[];
  const unit = () => join(fleet.env.XDG_CONFIG_HOME!, "systemd", "user", "fleetcom.service");
  beforeEach(() => {
    fleet = new Fleet();
    const f = fakes(fleet.sandbox.root, fleet.env);
    Object.assign(fleet.env, f.env);
    calls = f.calls;
  });
  afterEach(async () => await fleet.stop());

  test("install writes the user unit and enables it now; status reports it; uninstall disables and removes it", async () => {
    const installed = await fleet.ok(["service", "install"]);
    expect(installed.trim()).toBe(`installed ${unit()}: systemd starts fleetcom daemon at login (started now)`);
    const text = readFileSync(unit(), "utf8");
    expect(text).toMatch(/^ExecStart="\/[^"]+" /m);
    expect(text).toContain(`${systemdQuote(SELF)} "daemon"\n`);
    expect(text).toContain(`Environment="FLEETCOM_CONFIG_DIR=${fleet.sandbox.config}"\nEnvironment="FLEETCOM_RUNTIME_DIR=${fleet.sandbox.runtime}"\n`);
    expect(text).toContain("KillMode=mixed\n");
    expect(text).toContain("WantedBy=default.target\n");
    expect(calls().filter((c) => c.startsWith("systemctl") && !c.includes("is-system-running"))).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable --now fleetcom.service",
    ]);
    expect((await fleet.ok(["service", "status"])).trim().split("\n")).toEqual([
      `installed ${unit()}`,
      "enabled   enabled",
      "active    active",
      "lingering yes",
    ]);
    expect((await fleet.ok(["service"])).trim().split("\n")[0]).toBe(`installed ${unit()}`);
    expect((await fleet.ok(["service", "uninstall"])).trim()).toBe(`removed ${unit()}`);
    expect(existsSync(unit())).toBe(false);
    expect(calls().slice(-2)).toEqual(["systemctl --user disable fleetcom.service", "systemctl --user daemon-reload"]);
    expect((await fleet.ok(["service", "uninstall"])).trim()).toBe(`not installed (no ${unit()})`);
  });

  test("install --web also keeps fleetcom web running beside the daemon; status names it; uninstall stops and removes both", async () => {
    const webUnit = join(fleet.env.XDG_CONFIG_HOME!, "systemd", "user", "fleetcom-web.service");
    const installed = (await fleet.ok(["service", "install", "--web"])).trim().split("\n");
    expect(installed).toEqual([
      `installed ${unit()}: systemd starts fleetcom daemon at login (started now)`,
      `installed ${webUnit}: systemd keeps fleetcom web on 127.0.0.1:7681 running beside the daemon (started now); fleetcom web --url --port 7681 prints a URL to open it`,
    ]);
    const text = readFileSync(webUnit, "utf8");
    expect(text).toContain(`${systemdQuote(SELF)} "web" "--port" "7681"\n`);
    expect(text).not.toContain("--write");
    expect(text).toContain("After=fleetcom.service\n");
    expect(text).toContain(`Environment="FLEETCOM_CONFIG_DIR=${fleet.sandbox.config}"\n`);
    expect(text).toContain("Restart=always\n");
    expect(calls().filter((c) => c.startsWith("systemctl") && !c.includes("is-system-running"))).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable --now fleetcom.service",
      "systemctl --user daemon-reload",
      "systemctl --user enable --now fleetcom-web.service",
    ]);
    expect((await fleet.ok(["service", "status"])).trim().split("\n").at(-1)).toBe(`web       active on 127.0.0.1:7681 (${webUnit})`);
    expect((await fleet.ok(["service", "uninstall"])).trim().split("\n")).toEqual([`removed ${webUnit}`, `removed ${unit()}`]);
    expect(existsSync(webUnit)).toBe(false);
    expect(calls().slice(-3)).toEqual([
      "systemctl --user disable --now fleetcom-web.service",
      "systemctl --user disable fleetcom.service",
      "systemctl --user daemon-reload",
    ]);
    await fleet.ok(["service", "install", "--web", "--write"]);
    expect(readFileSync(webUnit, "utf8")).toContain(`"web" "--port" "7681" "--write"\n`);
    const r = await fleet.cli(["service", "install", "--write"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: "fleetcom: service install: --write goes with --web\n" });
  });

  test("with a daemon running it enables without starting a second one, and says how to move the fleet; lingering off is named", async () => {
    await fleet.run("sleep 3600");
    const pid = fleet.daemonPid();
    fleet.env.FAKE_LINGER = "no";
    const out = (await fleet.ok(["service", "install"])).trim().split("\n");
    expect(out).toEqual([
      `installed ${unit()}: systemd starts fleetcom daemon at login`,
      `the daemon running now (pid ${pid}) is not the service's: fleetcom --kill, then systemctl --user start fleetcom.service, moves the fleet under it`,
      "lingering is off: the service stops at your last logout and starts at your next login; loginctl enable-linger tester keeps it running",
    ]);
    expect(calls()).toContain("systemctl --user enable fleetcom.service");
    const removed = (await fleet.ok(["service", "uninstall"])).trim().split("\n");
    expect(removed[1]).toBe(`the daemon running now (pid ${pid}) and its tasks keep running; fleetcom --kill stops them`);
    expect(fleet.daemonPid()).toBe(pid);
  });

  test("a newline in the config directory or in HOME is refused with one line: no unit written, nothing enabled", async () => {
    const injected = join(fleet.sandbox.root, "cfg\nExecStartPre=/bin/touch /tmp/PWNED\n#");
    const r = await fleet.cli(["service", "install"], { env: { FLEETCOM_CONFIG_DIR: injected } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `fleetcom: cannot install the service: FLEETCOM_CONFIG_DIR holds a newline or another control character: ${JSON.stringify(injected)}\n`,
    );
    expect(existsSync(unit())).toBe(false);
    const home = join(fleet.sandbox.root, "ho\nme");
    const h = await fleet.cli(["service", "install"], { env: { HOME: home, XDG_CONFIG_HOME: "", FLEETCOM_CONFIG_DIR: "" } });
    expect(h.code).toBe(1);
    expect(h.stderr).toBe(
      `fleetcom: cannot install the service: FLEETCOM_CONFIG_DIR holds a newline or another control character: ${JSON.stringify(join(home, ".config", "fleetcom"))}\n`,
    );
    expect(existsSync(join(home, ".config", "systemd", "user", "fleetcom.service"))).toBe(false);
    expect(calls().filter((c) => c.startsWith("systemctl") && !c.includes("is-system-running"))).toEqual([]);
  });

  test.skipIf(!BINARY || !ANALYZE)(
    `a fleetcom whose path holds a space, % or $ installs a unit that runs that very file; a quote in it is refused${BINARY ? ANALYZED : " (skipped: needs FLEETCOM_TEST_BIN)"}`,
    async () => {
      const placed = (odd: string) => {
        const exe = join(fleet.sandbox.root, `bin ${odd}`, "fleetcom");
        mkdirSync(join(fleet.sandbox.root, `bin ${odd}`));
        linkSync(BINARY!, exe);
        return exe;
      };
      const install = (exe: string) => Bun.spawnSync([exe, "service", "install"], { env: fleet.env, stdout: "pipe", stderr: "pipe" });
      const quoted = placed("q'uote");
      const refused = install(quoted);
      expect([refused.exitCode, refused.stderr.toString()]).toEqual([
        1,
        `fleetcom: cannot install the service: systemd runs no executable whose path holds ", ' or \\ (${JSON.stringify(quoted)}); copy fleetcom to a directory without them and run its service install\n`,
      ]);
      expect(existsSync(unit())).toBe(false);
      for (const odd of ["sp ace", "pct%i", "dol$lar"]) {
        const exe = placed(odd);
        expect(install(exe).exitCode).toBe(0);
        expect(systemdReads(unit())).toMatchObject({ code: 0, complaints: [], argv: [exe, "daemon"] });
      }
    },
  );

  test("install names a daemon setting this shell's environment makes, which the service will not see", async () => {
    const out = await fleet.cli(["service", "install"], { env: { FLEETCOM_HISTORY: "off", FLEETCOM_SCROLLBACK: "10" } });
    expect(out.stdout.trim().split("\n").at(-1)).toBe(
      `the service's daemon does not see this shell's FLEETCOM_SCROLLBACK, FLEETCOM_HISTORY: set scrollback, history in ${join(fleet.sandbox.config, "config.toml")} for it (fleetcom config shows where each setting comes from)`,
    );
    expect(readFileSync(unit(), "utf8")).not.toContain("FLEETCOM_HISTORY");
  });

  test("a systemctl that fails is one line with its own reason, and the unit it wrote is removed: nothing half done (issue 40, item 12)", async () => {
    fleet.env.FAKE_SYSTEMCTL_EXIT = "1";
    const r = await fleet.cli(["service", "install"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `fleetcom: systemctl --user daemon-reload failed: Failed to connect to bus: No medium found; removed ${unit()}: nothing is installed\n`,
    );
    expect(existsSync(unit())).toBe(false);
    expect((await fleet.cli(["service", "install", "--web"])).stderr).toContain(": nothing is installed\n");
    expect(existsSync(unit())).toBe(false);
  });
});

describe("unit and agent texts (pure)", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => sandbox.cleanup());

  test("systemd words keep quotes, backslashes, dollars and percents literal", () => {
    expect(systemdQuote(`/opt/my tools/fleet"com$HOME%i\\x`)).toBe(`"/opt/my tools/fleet\\"com$$HOME%%i\\\\x"`);
    expect(systemdUnit(["/usr/bin/fleetcom", "daemon"], { FLEETCOM_CONFIG_DIR: "/c" })).toContain(
      'ExecStart="/usr/bin/fleetcom" "daemon"\nEnvironment="FLEETCOM_CONFIG_DIR=/c"\nKillMode=mixed\n',
    );
  });

  test("the unit always names the config directory this shell uses, so the service's daemon reads the same config.toml", () => {
    const env = { HOME: "/home/u", XDG_CONFIG_HOME: "/home/u/xdg" };
    expect(systemdUnit(["/usr/bin/fleetcom", "daemon"], env)).toContain('Environment="FLEETCOM_CONFIG_DIR=/home/u/xdg/fleetcom"\nKillMode=mixed\n');
    expect(launchdPlist(["/usr/local/bin/fleetcom", "daemon"], { HOME: "/Users/u" })).toContain(
      "<key>FLEETCOM_CONFIG_DIR</key>\n    <string>/Users/u/Library/Application Support/fleetcom</string>",
    );
  });

  // What systemd-analyze verify (systemd 252) said of the old unit: `"`, `'`, `\` in the executable: "contains special characters";
  // `$` written `$$` there: "not executable"; `$$` in Environment= reaches the daemon doubled.
  test.skipIf(!ANALYZE)(`systemd reads the unit as meant with a space, %, $, quotes and backslashes in the paths${ANALYZED}`, () => {
    for (const odd of ["sp ace", "pct%i%%", "dol$lar$$", "dol${HOME}", "semi;colon"]) {
      const exe = join(sandbox.root, `bin ${odd}`, "fleetcom");
      mkdirSync(join(sandbox.root, `bin ${odd}`), { recursive: true });
      copyFileSync("/bin/true", exe);
      for (const more of [`q'uote`, `dq"uote`, "back\\slash", odd]) {
        const script = join(sandbox.root, `src ${more}`, "main.ts");
        const config = join(sandbox.root, `config ${more} ${odd}`);
        const unitFile = join(sandbox.root, "fleetcom.service");
        writeFileSync(unitFile, systemdUnit([exe, script, "daemon"], { FLEETCOM_CONFIG_DIR: config }));
        const read = systemdReads(unitFile);
        expect({ odd, more, ...read }).toEqual({
          odd,
          more,
          code: 0,
          complaints: [],
          argv: [exe, script, "daemon"],
          environment: `FLEETCOM_CONFIG_DIR=${config}`,
        });
      }
    }
  });

  test("an executable systemd would not run (a quote or a backslash in its path) is refused with one line", () => {
    for (const odd of [`q'uote`, `dq"uote`, "back\\slash"]) {
      expect(() => systemdUnit([`/opt/${odd}/fleetcom`, "daemon"], {})).toThrow(
        `cannot install the service: systemd runs no executable whose path holds ", ' or \\ (${JSON.stringify(`/opt/${odd}/fleetcom`)}); copy fleetcom to a directory without them and run its service install`,
      );
    }
  });

  test("a newline or another control character in a path is refused, in the unit and the agent: it would start a directive of its own", () => {
    const injected = "/c\nExecStartPre=/bin/touch /tmp/PWNED\n#";
    const refused = (what: string, value: string) =>
      `cannot install the service: ${what} holds a newline or another control character: ${JSON.stringify(value)}`;
    expect(() => systemdUnit(["/usr/bin/fleetcom", "daemon"], { FLEETCOM_CONFIG_DIR: injected })).toThrow(refused("FLEETCOM_CONFIG_DIR", injected));
    expect(() => systemdUnit(["/usr/bin/fleetcom", "daemon"], { FLEETCOM_CONFIG_DIR: "/c", FLEETCOM_RUNTIME_DIR: "/r\tx" })).toThrow(
      refused("FLEETCOM_RUNTIME_DIR", "/r\tx"),
    );
    expect(() => systemdUnit(["/opt/a\nb/fleetcom", "daemon"], {})).toThrow(refused("the path of fleetcom", "/opt/a\nb/fleetcom"));
    expect(() => launchdPlist(["/opt/a\x01b/fleetcom", "daemon"], {})).toThrow(refused("the path of fleetcom", "/opt/a\x01b/fleetcom"));
  });

  test("the launchd agent runs fleetcom daemon at load, restarts it after a crash only, with the same directories", () => {
    const plist = launchdPlist(["/Users/a b/bin/fleetcom", "daemon"], { FLEETCOM_CONFIG_DIR: "/cfg & more" });
    expect(plist).toContain("<string>dev.fleetcom.daemon</string>");
    expect(plist).toContain("<string>/Users/a b/bin/fleetcom</string>\n    <string>daemon</string>");
    expect(plist).toContain("<key>FLEETCOM_CONFIG_DIR</key>\n    <string>/cfg &amp; more</string>");
    expect(plist).toContain("<key>KeepAlive</key>\n  <dict>\n    <key>Crashed</key>\n    <true/>");
  });

  test("on macOS install writes the agent and bootstraps it with launchctl", () => {
    const f = fakes(sandbox.root, sandbox.env);
    const written: Record<string, string> = {};
    const lines = installService(
      {
        env: f.env,
        os: "darwin",
        daemon: ["/usr/local/bin/fleetcom", "daemon"],
        runningPid: null,
        uid: 501,
        configFile: "/c/config.toml",
        fromEnvironment: [],
      },
      (path, text) => (written[path] = text),
    );
    const path = join(sandbox.home, "Library", "LaunchAgents", "dev.fleetcom.daemon.plist");
    expect(Object.keys(written)).toEqual([path]);
    expect(lines).toEqual([`installed ${path}: launchd starts fleetcom daemon at login`]);
    expect(f.calls()).toEqual([`launchctl bootstrap gui/501 ${path}`]);
  });

  test("on macOS install --web also writes the web view's agent, kept alive, and bootstraps it", () => {
    const f = fakes(sandbox.root, sandbox.env);
    const written: Record<string, string> = {};
    const ctx = {
      env: f.env,
      os: "darwin",
      daemon: ["/usr/local/bin/fleetcom", "daemon"],
      runningPid: null,
      uid: 501,
      configFile: "/c/config.toml",
      fromEnvironment: [],
      web: ["/usr/local/bin/fleetcom", "web", "--port", "7681"],
    };
    installService(ctx, (path, text) => (written[path] = text));
    const agents = join(sandbox.home, "Library", "LaunchAgents");
    const web = join(agents, "dev.fleetcom.web.plist");
    expect(Object.keys(written)).toEqual([join(agents, "dev.fleetcom.daemon.plist"), web]);
    expect(written[web]).toContain("<string>dev.fleetcom.web</string>");
    expect(written[web]).toContain("<string>web</string>\n    <string>--port</string>\n    <string>7681</string>");
    expect(written[web]).toContain("<key>KeepAlive</key>\n  <true/>");
    expect(f.calls()).toEqual([`launchctl bootstrap gui/501 ${join(agents, "dev.fleetcom.daemon.plist")}`, `launchctl bootstrap gui/501 ${web}`]);
  });

  test("the logout outlook from logind's lingering and KillUserProcesses", () => {
    expect(logoutOutlook(true, null, "u")?.survives).toBe(true);
    expect(logoutOutlook(false, true, "u")?.survives).toBe(false);
    expect(logoutOutlook(false, null, "u")?.survives).toBe(false);
    expect(logoutOutlook(false, false, "u")?.survives).toBe(true);
    expect(logoutOutlook(null, null, "u")).toBeNull();
  });
});

// The real thing, only where this machine runs a systemd user manager.
const REAL = hasUserManager(process.env) && process.env.FLEETCOM_TEST_REAL_SYSTEMD !== "0";
describe(REAL ? "the machine's own systemd" : "the machine's own systemd (skipped: no systemd user manager answers here)", () => {
  test.skipIf(!REAL)("autostart puts the daemon in a scope of its own exactly when lingering is on", async () => {
    const fleet = new Fleet();
    try {
      fleet.env.XDG_RUNTIME_DIR = process.env.XDG_RUNTIME_DIR!;
      if (process.env.DBUS_SESSION_BUS_ADDRESS) fleet.env.DBUS_SESSION_BUS_ADDRESS = process.env.DBUS_SESSION_BUS_ADDRESS;
      await fleet.run("sleep 3600");
      const cgroup = readFileSync(`/proc/${fleet.daemonPid()}/cgroup`, "utf8");
      if (lingering(process.env) === true) expect(cgroup).toMatch(/fleetcom-daemon-[0-9a-z]+\.scope/);
      else expect(cgroup).not.toMatch(/fleetcom-daemon-/);
    } finally {
      await fleet.stop();
    }
  });
});
