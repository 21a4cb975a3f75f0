// The service manager around the daemon (systemd on Linux, launchd on macOS): whether autostart can
// put the daemon in a scope of its own, whether the fleet outlives a logout, and the unit or agent
// that `fleetcom service install` writes. The unit and plist texts and the decisions are pure; the
// rest runs `systemctl`, `systemd-run`, `loginctl` and `launchctl` found on PATH.
//
// Why a scope only with lingering on: a process in its own scope lives under the user's systemd
// manager (user@UID.service), which logind stops at the last logout unless lingering is on. There
// the scope protects the fleet from a logind that ends the session's processes (KillUserProcesses=yes).
// Without lingering a scope would end the fleet at every last logout even where logind leaves
// session processes alone (KillUserProcesses=no, the default of Debian, Ubuntu and Fedora), which
// is what a `setsid` daemon survives.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { configDir, type Env, homeDir } from "./paths.ts";
import { type Answered, nodeOs, runBounded } from "./platform.ts";

/** The program on PATH, or null. */
export function which(program: string, env: Env = process.env): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, program);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return null;
}

/** Runs a helper with a short timeout; a missing or hanging one counts as a failure. */
export function run(program: string, args: string[], env: Env = process.env, timeoutMs = 5_000): Answered {
  const path = which(program, env);
  if (!path) return { code: null, stdout: "", stderr: "" };
  return runBounded(path, args, env, timeoutMs);
}

export function userName(env: Env = process.env): string {
  return env.USER || env.LOGNAME || nodeOs().userInfo().username;
}

/** A systemd user manager answers (Linux): `systemctl --user is-system-running` says it is up. */
export function hasUserManager(env: Env = process.env, os: string = process.platform): boolean {
  if (os !== "linux" || !env.XDG_RUNTIME_DIR) return false;
  const state = run("systemctl", ["--user", "is-system-running"], env).stdout;
  return ["running", "degraded", "starting", "initializing"].includes(state);
}

/** logind's Linger for this user: true, false, or null when loginctl cannot say. */
export function lingering(env: Env = process.env): boolean | null {
  const r = run("loginctl", ["show-user", userName(env), "--property=Linger", "--value"], env);
  return r.code === 0 && (r.stdout === "yes" || r.stdout === "no") ? r.stdout === "yes" : null;
}

/** logind's KillUserProcesses: whether it ends a session's processes at logout; null when unknown. */
export function killsUserProcesses(env: Env = process.env): boolean | null {
  const r = run("loginctl", ["show-session", "--property=KillUserProcesses", "--value"], env);
  return r.code === 0 && (r.stdout === "yes" || r.stdout === "no") ? r.stdout === "yes" : null;
}

/**
 * How autostart runs the daemon: `systemd-run --user --scope` when a user manager answers and
 * lingering is on (see the top of this file), else null (a new session, `setsid`).
 */
export function scopeCommand(daemon: string[], env: Env = process.env, os: string = process.platform): string[] | null {
  if (os !== "linux" || !which("systemd-run", env) || !hasUserManager(env, os) || lingering(env) !== true) return null;
  const unit = `fleetcom-daemon-${Date.now().toString(36)}`;
  return ["systemd-run", "--user", "--scope", "--quiet", "--collect", `--unit=${unit}`, "--description=fleetcom daemon", "--", ...daemon];
}

/** What `status` says about a logout, on Linux with logind; null elsewhere or when nothing can be known. */
export interface LogoutOutlook {
  lingering: boolean | null;
  killUserProcesses: boolean | null;
  /** Whether the fleet outlives the user's last logout, as far as logind's settings tell. */
  survives: boolean | null;
  /** One line for a person, or null when there is nothing to do. */
  advice: string | null;
}

/** Pure: the outlook from logind's two settings. */
export function logoutOutlook(linger: boolean | null, killUser: boolean | null, user: string): LogoutOutlook | null {
  if (linger === null) return null;
  const keep = `loginctl enable-linger ${user} keeps it running`;
  if (linger) return { lingering: true, killUserProcesses: killUser, survives: true, advice: null };
  if (killUser === false) {
    return {
      lingering: false,
      killUserProcesses: false,
      survives: true,
      advice: `lingering is off: the fleet outlives a logout only while logind leaves your processes alone (KillUserProcesses=no); ${keep} in any case`,
    };
  }
  return { lingering: false, killUserProcesses: killUser, survives: false, advice: `the fleet stops when you log out (lingering is off); ${keep}` };
}

export function logoutOutlookHere(env: Env = process.env, os: string = process.platform): LogoutOutlook | null {
  if (os !== "linux" || !which("loginctl", env)) return null;
  const linger = lingering(env);
  return logoutOutlook(linger, linger === false ? killsUserProcesses(env) : null, userName(env));
}

// ---- fleetcom service install|uninstall|status ----------------------------------------------

export const SYSTEMD_UNIT = "fleetcom.service";
/** `service install --web`: the web view (docs/web.md) kept running beside the daemon, on this port. */
export const SYSTEMD_WEB_UNIT = "fleetcom-web.service";
export const WEB_PORT = 7681;
export const LAUNCHD_LABEL = "dev.fleetcom.daemon";
export const LAUNCHD_WEB_LABEL = "dev.fleetcom.web";

/**
 * The variables written into the unit or agent: the config directory this shell uses, always (so the
 * service's daemon reads the same config.toml whatever XDG_CONFIG_HOME the service manager has), and
 * the runtime directory when this shell sets one. Nothing else of this shell's environment is carried:
 * the daemon's settings come from config.toml, which a later edit changes for the service too.
 */
function carriedEnv(env: Env, os: string): [string, string][] {
  const runtime = env.FLEETCOM_RUNTIME_DIR;
  return [["FLEETCOM_CONFIG_DIR", configDir(env, os)], ...(runtime ? [["FLEETCOM_RUNTIME_DIR", runtime] as [string, string]] : [])];
}

/** A unit line ends at a newline (the rest would be a directive of its own) and XML 1.0 cannot hold most control characters: such a value is refused, never written. */
function refuseControlCharacters(what: string, value: string): void {
  if (/[\x00-\x1f\x7f]/.test(value))
    throw new ServiceError(`cannot install the service: ${what} holds a newline or another control character: ${JSON.stringify(value)}`);
}

export function systemdUnitPath(env: Env = process.env, unit = SYSTEMD_UNIT): string {
  const config = env.XDG_CONFIG_HOME || join(homeDir(env), ".config");
  return join(config, "systemd", "user", unit);
}

export function launchdPlistPath(env: Env = process.env, label = LAUNCHD_LABEL): string {
  return join(homeDir(env), "Library", "LaunchAgents", `${label}.plist`);
}

// Quoting per systemd.syntax(7), systemd.service(5) (Command lines) and systemd.exec(5) (Environment=):
// a quoted word takes C escapes (`\\`, `\"`) and specifiers (`%%` is a `%`) everywhere; `$$` is a `$`
// only in ExecStart's arguments (Environment= expands no variables, and the executable's name is taken
// as written); and systemd refuses to run an executable whose name holds `"`, `'` or `\`.

/** An argument of systemd's ExecStart: quoted, with `\`, `"`, `$` and `%` kept literal. */
export function systemdQuote(word: string): string {
  return `"${word.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\$/g, "$$$$").replace(/%/g, "%%")}"`;
}

/** ExecStart's executable: quoted, `%` doubled, `$` as it is; a name systemd will not run is refused. */
function systemdExecutable(path: string): string {
  if (/["'\\]/.test(path))
    throw new ServiceError(
      `cannot install the service: systemd runs no executable whose path holds ", ' or \\ (${JSON.stringify(path)}); copy fleetcom to a directory without them and run its service install`,
    );
  return `"${path.replace(/%/g, "%%")}"`;
}

/** One `Environment=` assignment: quoted, with `\`, `"` and `%` kept literal (`$` has no meaning there). */
function systemdEnvironment(name: string, value: string): string {
  return `Environment="${`${name}=${value}`.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/%/g, "%%")}"`;
}

/**
 * The user unit. KillMode=mixed: `systemctl --user stop` sends TERM to the daemon alone, which ends
 * its tasks its own way (TERM, KILL after 2 s, a last snapshot); whatever is left after
 * TimeoutStopSec is killed. Restart=on-abnormal restarts a daemon that crashed on a signal, never one
 * that exited 1 because another daemon holds the runtime directory.
 */
export function systemdUnit(daemon: string[], env: Env = process.env): string {
  return systemdService(
    daemon,
    env,
    ["Description=fleetcom supervisor (tasks and AI agents in PTYs)"],
    ["KillMode=mixed", "TimeoutStopSec=15", "Restart=on-abnormal"],
  );
}

/**
 * The web view's unit (`service install --web`): `fleetcom web` is a client of the daemon, so it
 * starts after the daemon's unit and is restarted whenever it stops; stopping it ends no task.
 */
export function systemdWebUnit(web: string[], env: Env = process.env): string {
  return systemdService(web, env, ["Description=fleetcom web view (docs/web.md)", `After=${SYSTEMD_UNIT}`], ["Restart=always", "RestartSec=2"]);
}

function systemdService(argv: string[], env: Env, unit: string[], service: string[]): string {
  const [executable, ...args] = argv;
  for (const word of argv) refuseControlCharacters("the path of fleetcom", word);
  const vars = carriedEnv(env, "linux");
  for (const [name, value] of vars) refuseControlCharacters(name, value);
  const carried = vars.map(([name, value]) => `${systemdEnvironment(name, value)}\n`).join("");
  const [first, ...rest] = service;
  return [
    "[Unit]",
    ...unit,
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${[systemdExecutable(executable!), ...args.map(systemdQuote)].join(" ")}`,
    `${carried}${first}`,
    ...rest,
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

function xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * The launchd agent: started at login, restarted after a crash (not after exit 1: another daemon
 * runs). The web view's (`LAUNCHD_WEB_LABEL`) is restarted whenever it stops.
 */
export function launchdPlist(daemon: string[], env: Env = process.env, label = LAUNCHD_LABEL): string {
  for (const word of daemon) refuseControlCharacters("the path of fleetcom", word);
  const carried = carriedEnv(env, "darwin");
  for (const [name, value] of carried) refuseControlCharacters(name, value);
  const args = daemon.map((a) => `    <string>${xml(a)}</string>`).join("\n");
  const vars = carried.map(([name, value]) => `    <key>${name}</key>\n    <string>${xml(value)}</string>`).join("\n");
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  <string>${label}</string>`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    args,
    "  </array>",
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    vars,
    "  </dict>",
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    ...(label === LAUNCHD_LABEL ? ["  <dict>", "    <key>Crashed</key>", "    <true/>", "  </dict>"] : ["  <true/>"]),
    "  <key>ProcessType</key>",
    "  <string>Interactive</string>",
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

export interface ServiceContext {
  env: Env;
  os: string;
  /** The argv that runs `fleetcom daemon` (platform.ts selfCommand plus "daemon"). */
  daemon: string[];
  /** The pid of a daemon running now, if any. */
  runningPid: number | null;
  uid: number;
  /** The config file the service's daemon reads (carriedEnv). */
  configFile: string;
  /** The daemon's settings this shell's environment sets over that file (settings.ts daemonSettingsFromEnvironment). */
  fromEnvironment: { env: string; key: string }[];
  /** `install --web`: the argv of the `fleetcom web` to keep running beside the daemon. */
  web?: string[];
}

/** One helper call that must succeed; its failure is the user's to see, in the helper's own words, with what was done before it. */
function must(program: string, args: string[], ctx: ServiceContext, done: string): void {
  const r = run(program, args, ctx.env, 30_000);
  if (r.code === 0) return;
  const reason = r.stderr.split("\n").at(-1)?.trim();
  const why = r.code === null ? `${program} was not found on PATH` : `${program} ${args.join(" ")} failed: ${reason || `exit status ${r.code}`}`;
  throw new ServiceError(`${done}, but ${why}`);
}

export class ServiceError extends Error {}

/**
 * Installs with `install`, and when a step fails, removes what it wrote: a unit file left behind
 * would be half an install, enabled by nothing and found by the next `service status`.
 */
export function installOrUndo(
  ctx: ServiceContext,
  write: (path: string, text: string) => void,
  remove: (path: string) => void,
  install: (ctx: ServiceContext, write: (path: string, text: string) => void) => string[] = installService,
): string[] {
  const written: string[] = [];
  try {
    return install(ctx, (path, text) => {
      write(path, text);
      written.push(path);
    });
  } catch (error) {
    if (!(error instanceof ServiceError) || written.length === 0) throw error;
    for (const path of written) remove(path);
    // A step after a good daemon-reload leaves systemd knowing the unit: it forgets it on the next one.
    if (ctx.os === "linux") run("systemctl", ["--user", "daemon-reload"], ctx.env, 30_000);
    throw new ServiceError(`${error.message.replace(/^wrote [^,]*, but /, "")}; removed ${written.join(" and ")}: nothing is installed`);
  }
}

function unsupported(os: string): ServiceError {
  return new ServiceError(`no supported service manager here (${os}): fleetcom service knows systemd user units (Linux) and launchd agents (macOS)`);
}

/** The service's daemon does not see this shell's environment: a setting made only there (FLEETCOM_HISTORY=off) would silently not apply. */
function environmentNotCarried(ctx: ServiceContext): string[] {
  if (ctx.fromEnvironment.length === 0) return [];
  const vars = ctx.fromEnvironment.map((s) => s.env).join(", ");
  const keys = ctx.fromEnvironment.map((s) => s.key).join(", ");
  return [
    `the service's daemon does not see this shell's ${vars}: set ${keys} in ${ctx.configFile} for it (fleetcom config shows where each setting comes from)`,
  ];
}

/** Writes and enables the unit or agent; returns the lines to print. */
export function installService(ctx: ServiceContext, write: (path: string, text: string) => void): string[] {
  if (ctx.os === "linux") {
    const path = systemdUnitPath(ctx.env);
    write(path, systemdUnit(ctx.daemon, ctx.env));
    must("systemctl", ["--user", "daemon-reload"], ctx, `wrote ${path}`);
    // A second daemon would only exit 1 while this one holds the runtime directory.
    const now = ctx.runningPid === null ? ["--now"] : [];
    must("systemctl", ["--user", "enable", ...now, SYSTEMD_UNIT], ctx, `wrote ${path}`);
    const lines = [`installed ${path}: systemd starts fleetcom daemon at login${ctx.runningPid === null ? " (started now)" : ""}`];
    if (ctx.runningPid !== null)
      lines.push(
        `the daemon running now (pid ${ctx.runningPid}) is not the service's: fleetcom --kill, then systemctl --user start ${SYSTEMD_UNIT}, moves the fleet under it`,
      );
    if (lingering(ctx.env) === false)
      lines.push(
        `lingering is off: the service stops at your last logout and starts at your next login; loginctl enable-linger ${userName(ctx.env)} keeps it running`,
      );
    return [...lines, ...installSystemdWeb(ctx, write), ...environmentNotCarried(ctx)];
  }
  if (ctx.os === "darwin") {
    const path = launchdPlistPath(ctx.env);
    write(path, launchdPlist(ctx.daemon, ctx.env));
    must("launchctl", ["bootstrap", `gui/${ctx.uid}`, path], ctx, `wrote ${path}`);
    const lines = [`installed ${path}: launchd starts fleetcom daemon at login`];
    if (ctx.runningPid !== null)
      lines.push(
        `the daemon running now (pid ${ctx.runningPid}) is not the agent's: fleetcom --kill, then launchctl kickstart gui/${ctx.uid}/${LAUNCHD_LABEL}, moves the fleet under it`,
      );
    return [...lines, ...installLaunchdWeb(ctx, write), ...environmentNotCarried(ctx)];
  }
  throw unsupported(ctx.os);
}

/** The web view's URL: each login token is printed on demand, never into the service's log. */
const WEB_LOGIN = `fleetcom web --url --port ${WEB_PORT} prints a URL to open it`;

function installSystemdWeb(ctx: ServiceContext, write: (path: string, text: string) => void): string[] {
  if (!ctx.web) return [];
  const path = systemdUnitPath(ctx.env, SYSTEMD_WEB_UNIT);
  write(path, systemdWebUnit(ctx.web, ctx.env));
  must("systemctl", ["--user", "daemon-reload"], ctx, `wrote ${path}`);
  must("systemctl", ["--user", "enable", "--now", SYSTEMD_WEB_UNIT], ctx, `wrote ${path}`);
  return [`installed ${path}: systemd keeps fleetcom web on 127.0.0.1:${WEB_PORT} running beside the daemon (started now); ${WEB_LOGIN}`];
}

function installLaunchdWeb(ctx: ServiceContext, write: (path: string, text: string) => void): string[] {
  if (!ctx.web) return [];
  const path = launchdPlistPath(ctx.env, LAUNCHD_WEB_LABEL);
  write(path, launchdPlist(ctx.web, ctx.env, LAUNCHD_WEB_LABEL));
  must("launchctl", ["bootstrap", `gui/${ctx.uid}`, path], ctx, `wrote ${path}`);
  return [`installed ${path}: launchd keeps fleetcom web on 127.0.0.1:${WEB_PORT} running beside the daemon; ${WEB_LOGIN}`];
}

/** Disables and removes the unit or agent; a daemon running now keeps running. */
export function uninstallService(ctx: ServiceContext, remove: (path: string) => boolean): string[] {
  const web = uninstallWeb(ctx, remove);
  return [...web, ...uninstallDaemon(ctx, remove, web.length > 0)];
}

function present(path: string): boolean {
  try {
    accessSync(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/** The web view's unit or agent goes with the daemon's, and stops: it holds no task. */
function uninstallWeb(ctx: ServiceContext, remove: (path: string) => boolean): string[] {
  if (ctx.os === "linux") {
    const path = systemdUnitPath(ctx.env, SYSTEMD_WEB_UNIT);
    if (!present(path)) return [];
    // Disabled while its file is there: systemctl finds what to undo through it.
    run("systemctl", ["--user", "disable", "--now", SYSTEMD_WEB_UNIT], ctx.env);
    return remove(path) ? [`removed ${path}`] : [];
  }
  if (ctx.os === "darwin") {
    const path = launchdPlistPath(ctx.env, LAUNCHD_WEB_LABEL);
    run("launchctl", ["bootout", `gui/${ctx.uid}/${LAUNCHD_WEB_LABEL}`], ctx.env);
    return remove(path) ? [`removed ${path}`] : [];
  }
  return [];
}

function uninstallDaemon(ctx: ServiceContext, remove: (path: string) => boolean, webRemoved: boolean): string[] {
  const keeps = ctx.runningPid === null ? [] : [`the daemon running now (pid ${ctx.runningPid}) and its tasks keep running; fleetcom --kill stops them`];
  if (ctx.os === "linux") {
    const path = systemdUnitPath(ctx.env);
    if (!remove(path)) {
      if (webRemoved) must("systemctl", ["--user", "daemon-reload"], ctx, "removed the web view's unit");
      return [`not installed (no ${path})`];
    }
    // Disable only: stopping the unit would end the fleet; what runs now is the user's to stop.
    run("systemctl", ["--user", "disable", SYSTEMD_UNIT], ctx.env);
    must("systemctl", ["--user", "daemon-reload"], ctx, `removed ${path}`);
    return [`removed ${path}`, ...keeps];
  }
  if (ctx.os === "darwin") {
    const path = launchdPlistPath(ctx.env);
    // bootout stops what the agent started: the fleet, if it runs under the agent.
    run("launchctl", ["bootout", `gui/${ctx.uid}/${LAUNCHD_LABEL}`], ctx.env);
    if (!remove(path)) return [`not installed (no ${path})`];
    return [`removed ${path}`, ...keeps];
  }
  throw unsupported(ctx.os);
}

export function serviceStatus(ctx: ServiceContext, exists: (path: string) => boolean): string[] {
  if (ctx.os === "linux") {
    const path = systemdUnitPath(ctx.env);
    if (!exists(path)) return [`not installed (fleetcom service install writes ${path})`];
    const enabled = run("systemctl", ["--user", "is-enabled", SYSTEMD_UNIT], ctx.env).stdout || "unknown";
    const active = run("systemctl", ["--user", "is-active", SYSTEMD_UNIT], ctx.env).stdout || "unknown";
    const linger = lingering(ctx.env);
    const webPath = systemdUnitPath(ctx.env, SYSTEMD_WEB_UNIT);
    const web = exists(webPath) ? run("systemctl", ["--user", "is-active", SYSTEMD_WEB_UNIT], ctx.env).stdout || "unknown" : null;
    return [
      `installed ${path}`,
      `enabled   ${enabled}`,
      `active    ${active}`,
      `lingering ${linger === null ? "unknown" : linger ? "yes" : `no (loginctl enable-linger ${userName(ctx.env)} keeps the fleet over logouts)`}`,
      ...(web === null ? [] : [`web       ${web} on 127.0.0.1:${WEB_PORT} (${webPath})`]),
    ];
  }
  if (ctx.os === "darwin") {
    const path = launchdPlistPath(ctx.env);
    if (!exists(path)) return [`not installed (fleetcom service install writes ${path})`];
    const loaded = run("launchctl", ["print", `gui/${ctx.uid}/${LAUNCHD_LABEL}`], ctx.env).code === 0;
    return [`installed ${path}`, `loaded    ${loaded ? "yes" : "no"}`];
  }
  throw unsupported(ctx.os);
}
