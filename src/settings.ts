// The daemon's and the clients' settings: flags, the environment and the config file. A bad
// environment or file value must not stop a daemon from starting, so it falls back with a warning
// (the log, `fleetcom config`); a bad flag is the user's to fix.
import { FileRefused, readRegularFile } from "./files.ts";
import { parse as parseToml, TomlError } from "smol-toml";
import { errorMessage, UserError } from "./errors.ts";
import { CONFIG_NAME, configFile, type Env } from "./paths.ts";
import { DEFAULT_DETACH_KEY, type DetachKey, parseBoolean, parseDetachKey } from "./config-words.ts";
import { nearest } from "./text-nearest.ts";
import { parseSize } from "./text-size.ts";
import type { AgentsTable } from "./config-agents.ts";
import { type NotifyTarget, notifyList, notifyOne } from "./config-notify.ts";

export { type NotifyDestination, notifyDestination } from "./config-notify.ts";
export { DEFAULT_DETACH_KEY, type DetachKey, parseBoolean, parseDetachKey };

export const DEFAULT_SCROLLBACK = 2_000;
export const MAX_SCROLLBACK = 100_000;

/** How many lines each task keeps above its screen: `daemon --scrollback N`, else FLEETCOM_SCROLLBACK, else 2,000; capped at 100,000; 0 keeps none. */
export function scrollbackSetting(flag: string | undefined, env: string | undefined, log: (m: string) => void): number {
  const parse = (v: string) => (/^\d+$/.test(v.trim()) ? Math.min(Number(v), MAX_SCROLLBACK) : NaN);
  if (flag !== undefined) {
    const n = parse(flag);
    if (Number.isNaN(n)) throw new UserError(`--scrollback: expected a whole number, got '${flag}'`, 2);
    return n;
  }
  if (env !== undefined && env !== "") {
    const n = parse(env);
    if (!Number.isNaN(n)) return n;
    log(`FLEETCOM_SCROLLBACK='${env}' is not a whole number; using ${DEFAULT_SCROLLBACK}`);
  }
  return DEFAULT_SCROLLBACK;
}

/** Long enough for any client on a loaded machine (the hello is its first write), short enough that silent connections cannot pile up until the daemon runs out of fds. */
export const HANDSHAKE_TIMEOUT_MS = 5_000;

/** FLEETCOM_HANDSHAKE_TIMEOUT_MS (milliseconds, for tests); a bad value falls back with a warning in the log. */
export function handshakeTimeoutSetting(env: string | undefined, log: (m: string) => void): number {
  if (env === undefined || env === "") return HANDSHAKE_TIMEOUT_MS;
  if (/^\d+$/.test(env.trim()) && Number(env) > 0) return Number(env);
  log(`FLEETCOM_HANDSHAKE_TIMEOUT_MS='${env}' is not a positive whole number; using ${HANDSHAKE_TIMEOUT_MS}`);
  return HANDSHAKE_TIMEOUT_MS;
}

/** How long a spawn waits at most for an agent binary's --help before running the command as typed. */
export const DEFAULT_PROBE_BUDGET_MS = 300;

/** FLEETCOM_AGENT_PROBE_MS: how long a spawn may wait for an agent binary's --help (agent-probe.ts; tests raise it). */
export function agentProbeBudgetSetting(raw: string | undefined, log: (message: string) => void): number {
  if (raw === undefined || raw === "") return DEFAULT_PROBE_BUDGET_MS;
  if (/^\d+$/.test(raw.trim())) return Number(raw);
  log(`FLEETCOM_AGENT_PROBE_MS='${raw}' is not a whole number of milliseconds; using ${DEFAULT_PROBE_BUDGET_MS}`);
  return DEFAULT_PROBE_BUDGET_MS;
}

// ---- the config file ---------------------------------------------------------------------------
// The daemon's settings come from one file in the config directory, the same whichever shell
// starts the daemon, not from whatever environment the client that autostarted it happened to have; an environment variable still overrides the file, and a flag (`daemon
// --scrollback`) overrides both. A bad file never stops anything: each problem is one line naming
// the file, the line and the key, and that key keeps its default.

export { CONFIG_NAME, configFile };

export const DEFAULT_IDLE_SECONDS = 10;
/** As terminals tell of long commands only: a quick one-off's end is worth no buzz. */
export const DEFAULT_NOTIFY_MIN_RUNTIME = 30;
export const DEFAULT_NOTIFY_IDLE = 60;

/** A setting's value and where it came from: `default`, `FLEETCOM_…`, `<file>:<line>` or `--flag`. */
export interface Resolved<T> {
  value: T;
  source: string;
}

export interface Settings {
  file: string;
  /** Where a task needing its user is told, as written: command lines and URLs (docs/notify.md); none when empty. */
  notify: Resolved<NotifyTarget[]>;
  /** A task's end is pushed as `finished` only after a run this long, in seconds (a failure always is). */
  notifyMinRuntime: Resolved<number>;
  /** Nothing is pushed about a task a client attached to it typed into this recently, in seconds. */
  notifyIdle: Resolved<number>;
  scrollback: Resolved<number>;
  /** How long a running task stays quiet before it counts as idle, in seconds. */
  idleSeconds: Resolved<number>;
  detachKey: Resolved<DetachKey>;
  /** Whether Q, X on a running task and `--kill` with running tasks ask first. */
  confirm: Resolved<boolean>;
  /** Whether the daemon keeps each task's history on disk (docs/recovery.md, History). */
  history: Resolved<boolean>;
  /** How large each task's log on disk grows before its oldest part goes (docs/logs.md). */
  logMax: Resolved<number>;
  /** Whether the dashboard rings the terminal's bell when a task starts waiting. */
  bell: Resolved<boolean>;
  /** Where `run --worktree` makes worktrees (`<dir>/<repo>/<branch>`); null: beside the repository, in `<repo>.worktrees/`. */
  worktreeDir: Resolved<string | null>;
  /**
   * The `[agents.NAME]` tables as the file has them, checked by config-agents.ts where they are used
   * (the daemon, `fleetcom config`, `fleetcom agents`), so reading the settings loads no validator.
   */
  agents: AgentsTable | null;
  /** One line per problem with the file or an environment variable; each such key kept its default. */
  problems: string[];
}

/** A value read, perhaps with parts left out (`warnings`, one line each) or taken not as written (`note`: clamped), or why it cannot be. */
type Parsed<T> = { ok: T; warnings?: string[]; note?: string } | { error: string };

/** How one setting is read from the file and the environment. */
export interface Spec<T> {
  key: string;
  env: string;
  fallback: T;
  /** What a value that cannot be read stands for, where guessing the other way could harm (history: off); without it, the next source is used. */
  safe?: T;
  fromFile(value: unknown): Parsed<T>;
  fromEnv(value: string): Parsed<T>;
}

/** The default and the least of `log_max`: a log is cut into parts, and a part holds at least a few chunks of output. */
export const DEFAULT_LOG_MAX = 100 * 1024 * 1024;
export const MIN_LOG_MAX = 64 * 1024;

function logMax(v: string | number): Parsed<number> {
  const bytes = parseSize(v);
  return bytes !== null && bytes >= MIN_LOG_MAX ? { ok: bytes } : { error: `expected a size of at least 64K such as "100M" or "1G", got ${shown(v)}` };
}

/** Each setting's spec; typed, never cast, so a spec that lacks a member (or a setting that lacks a spec) does not compile. */
type Specs = { [K in Exclude<keyof Settings, "file" | "problems" | "agents">]: Spec<Settings[K]["value"]> };

const SPECS: Specs = {
  notify: {
    key: "notify",
    env: "FLEETCOM_NOTIFY",
    fallback: [],
    fromFile: (v) => {
      if (typeof v === "string") return notifyOne(v);
      if (Array.isArray(v)) return notifyList(v);
      return { error: `expected a command line or a list of destinations in quotes, got ${shown(v)}` };
    },
    fromEnv: notifyOne,
  },
  notifyMinRuntime: secondsSpec("notify_min_runtime", "FLEETCOM_NOTIFY_MIN_RUNTIME", DEFAULT_NOTIFY_MIN_RUNTIME),
  notifyIdle: secondsSpec("notify_idle", "FLEETCOM_NOTIFY_IDLE", DEFAULT_NOTIFY_IDLE),
  scrollback: {
    key: "scrollback",
    env: "FLEETCOM_SCROLLBACK",
    fallback: DEFAULT_SCROLLBACK,
    fromFile: (v) =>
      typeof v === "number" && Number.isInteger(v) && v >= 0 ? clampedScrollback(v, shown(v)) : { error: `expected a whole number of lines, got ${shown(v)}` },
    fromEnv: (v) => (/^\d+$/.test(v.trim()) ? clampedScrollback(Number(v), v.trim()) : { error: `'${v}' is not a whole number` }),
  },
  idleSeconds: {
    key: "idle_seconds",
    env: "FLEETCOM_IDLE_SECONDS",
    fallback: DEFAULT_IDLE_SECONDS,
    fromFile: (v) =>
      typeof v === "number" && Number.isFinite(v) && v > 0 && v <= 86_400
        ? { ok: v }
        : { error: `expected a number of seconds above 0 (at most 86400), got ${shown(v)}` },
    fromEnv: (v) => {
      const n = /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
      return n > 0 && n <= 86_400 ? { ok: n } : { error: `'${v}' is not a number of seconds above 0 (at most 86400)` };
    },
  },
  detachKey: {
    key: "detach_key",
    env: "FLEETCOM_DETACH_KEY",
    fallback: DEFAULT_DETACH_KEY,
    fromFile: (v) => (typeof v === "string" ? parseDetachKey(v) : { error: `expected a key such as "ctrl-\\\\" or "ctrl-b", got ${shown(v)}` }),
    fromEnv: (v) => parseDetachKey(v),
  },
  confirm: booleanSpec("confirm", "FLEETCOM_CONFIRM", true, true),
  // History can hold secrets: someone who wrote FLEETCOM_HISTORY=nope most likely meant it off.
  history: booleanSpec("history", "FLEETCOM_HISTORY", true, false),
  logMax: {
    key: "log_max",
    env: "FLEETCOM_LOG_MAX",
    fallback: DEFAULT_LOG_MAX,
    fromFile: (v) => logMax(typeof v === "number" || typeof v === "string" ? v : String(v)),
    fromEnv: logMax,
  },
  // A wait nobody hears is the harm here: an unreadable value rings.
  bell: booleanSpec("bell", "FLEETCOM_BELL", true, true),
  worktreeDir: {
    key: "worktree_dir",
    env: "FLEETCOM_WORKTREE_DIR",
    fallback: null,
    fromFile: (v) => (typeof v === "string" ? worktreeDir(v) : { error: `expected a directory in quotes, got ${shown(v)}` }),
    fromEnv: worktreeDir,
  },
};

/** An absolute directory, or one under `~/`; empty means the default. */
function worktreeDir(raw: string): Parsed<string | null> {
  const dir = raw.trim();
  if (dir === "") return { ok: null };
  return dir.startsWith("/") || dir.startsWith("~/") ? { ok: dir } : { error: `'${raw}' is not an absolute directory or one under ~/` };
}

/** Scrollback past its most is clamped to it, and said. */
function clampedScrollback(lines: number, written: string): Parsed<number> {
  if (lines <= MAX_SCROLLBACK) return { ok: lines };
  return { ok: MAX_SCROLLBACK, note: `${written} is more than the most, ${MAX_SCROLLBACK} lines; using ${MAX_SCROLLBACK}` };
}

/** A number of seconds from 0 to a day, in the file or the environment. */
function secondsSpec(key: string, env: string, fallback: number): Spec<number> {
  const inRange = (n: number): Parsed<number> => (n >= 0 && n <= 86_400 ? { ok: n } : { error: `expected a number of seconds from 0 to 86400, got ${n}` });
  return {
    key,
    env,
    fallback,
    fromFile: (v) => (typeof v === "number" && Number.isFinite(v) ? inRange(v) : { error: `expected a number of seconds, got ${shown(v)}` }),
    fromEnv: (v) => (/^\d+(\.\d+)?$/.test(v.trim()) ? inRange(Number(v)) : { error: `'${v}' is not a number of seconds` }),
  };
}

function booleanSpec(key: string, env: string, fallback: boolean, safe: boolean): Spec<boolean> {
  const read = (v: string): Parsed<boolean> => {
    const value = parseBoolean(v);
    return value === undefined ? { error: `'${v}' is not one of on, off, true, false, yes, no, 1, 0` } : { ok: value };
  };
  return {
    key,
    env,
    fallback,
    safe,
    fromFile: (v) => {
      if (typeof v === "boolean") return { ok: v };
      // `history = "off"` and `history = 0` mean what they say, as in the environment.
      if (typeof v === "string" || typeof v === "number") return read(String(v));
      return { error: `expected true or false, got ${shown(v)}` };
    },
    fromEnv: read,
  };
}

/** The file's own tables: `agents` (config-agents.ts). */
const TABLE_KEYS = ["agents"];

export const CONFIG_KEYS = [...Object.values(SPECS).map((s) => s.key), ...TABLE_KEYS];

/** Keys only clients read, each in its own module: hosts (client-hosts.ts), ssh_command (client-ssh.ts), prices (config-prices.ts), run_check (config-run-check.ts). */
export const CLIENT_KEYS = ["hosts", "ssh_command", "prices", "run_check"];

function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value !== null && typeof value === "object") return Array.isArray(value) ? "an array" : "a table";
  return String(value);
}

/** A known key whose line is not valid TOML: its value is unknown, which a setting with a safe side reads as that side. */
const UNREADABLE = Symbol("unreadable");

interface FileValues {
  values: Map<string, { value: unknown; line: number }>;
  problems: string[];
  /** The file's lines, for the problems of its tables (config-agents.ts). */
  lines: string[];
}

const fileCache = new Map<string, FileValues>();

/** A config file is a few lines; the bound keeps a stray huge file (or /dev/zero) from exhausting memory. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * What the config file says, key by key with its line, and one line per problem. A TOML syntax
 * error loses only its own line: the line is left out and the rest read again (at most 20 times).
 */
export function readConfigFile(file: string): FileValues {
  const cached = fileCache.get(file);
  if (cached) return cached;
  const result: FileValues = { values: new Map(), problems: [], lines: [] };
  let text: string;
  try {
    text = readRegularFile(file, { maxBytes: MAX_CONFIG_BYTES }).toString("utf8");
  } catch (error) {
    if (error instanceof FileRefused) result.problems.push(`${error.message}; using the defaults`);
    else if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      result.problems.push(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? error}); using the defaults`);
    fileCache.set(file, result);
    return result;
  }
  const lines = text.split("\n");
  result.lines = [...lines];
  let table: Record<string, unknown> | null = null;
  for (let attempt = 0; attempt < 20 && table === null; attempt++) {
    try {
      table = parseToml(lines.join("\n"));
    } catch (error) {
      if (!(error instanceof TomlError) || error.line < 1 || error.line > lines.length || lines[error.line - 1] === "") {
        result.problems.push(`${file}: not valid TOML (${firstLine(error)}); using the defaults`);
        table = {};
        break;
      }
      const line = lines[error.line - 1]!;
      const key = /^\s*["']?([\w-]+)/.exec(line)?.[1];
      const known = key !== undefined && CONFIG_KEYS.includes(key);
      // A key given twice: TOML refuses the second, and the first is what is in effect.
      const first = key === undefined ? 0 : lineOfKey(lines, key);
      if (first > 0 && first < error.line) {
        result.problems.push(`${file}:${error.line}: ${key}: given again; line ${first} is in effect (${lines[first - 1]!.trim()}), this line is ignored`);
        lines[error.line - 1] = "";
        continue;
      }
      // `confirm = yes`: TOML wants a word in quotes, which every setting then reads (parseBoolean for yes/no).
      const word = known ? /=\s*([A-Za-z][\w-]*)\s*(?:#.*)?$/.exec(line)?.[1] : undefined;
      const hint = word === undefined ? "" : `; a word needs quotes: ${key} = "${word}"`;
      const safe = Object.values(SPECS).find((spec) => spec.key === key)?.safe;
      // A yes/no setting written as tmux writes one (`bell = off`) is taken as the quoted word would be.
      if (word !== undefined && safe !== undefined && parseBoolean(word) !== undefined) {
        result.values.set(key!, { value: word, line: error.line });
        lines[error.line - 1] = "";
        continue;
      }
      const outcome = !known ? "line ignored" : safe === undefined ? `using the default for ${key}` : `taking ${key} = ${String(safe)} to be safe`;
      result.problems.push(`${file}:${error.line}: ${key ? `${key}: ` : ""}not valid TOML (${firstLine(error)}${hint}); ${outcome}`);
      if (known) result.values.set(key, { value: UNREADABLE, line: error.line });
      lines[error.line - 1] = "";
    }
  }
  for (const [key, value] of Object.entries(table ?? {})) {
    const line = lineOfKey(lines, key);
    if (!CONFIG_KEYS.includes(key) && !CLIENT_KEYS.includes(key)) {
      const near = nearest(key, [...CONFIG_KEYS, ...CLIENT_KEYS]);
      result.problems.push(`${file}:${line}: unknown key '${key}'${near ? ` (did you mean ${near}?)` : ""}; ignored`);
      continue;
    }
    result.values.set(key, { value, line });
  }
  fileCache.set(file, result);
  return result;
}

function firstLine(error: unknown): string {
  return errorMessage(error)
    .split("\n")[0]!
    .replace(/^Invalid TOML document: /, "");
}

function lineOfKey(lines: string[], key: string): number {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return lines.findIndex((l) => new RegExp(`^\\s*["']?${escaped}["']?\\s*[=.]`).test(l)) + 1;
}

function resolveSetting<T>(spec: Spec<T>, file: string, values: FileValues, env: Env, problems: string[]): Resolved<T> {
  const safely = `taking ${spec.key} = ${String(spec.safe)} to be safe`;
  const raw = env[spec.env];
  if (raw !== undefined && raw !== "") {
    const parsed = spec.fromEnv(raw);
    for (const warning of ("ok" in parsed && parsed.warnings) || []) problems.push(`${spec.env}: ${warning}; ignored`);
    if ("ok" in parsed && parsed.note) problems.push(`${spec.env}: ${parsed.note}`);
    if ("ok" in parsed) return { value: parsed.ok, source: spec.env };
    problems.push(`${spec.env}: ${parsed.error}; ${spec.safe === undefined ? "ignored" : safely}`);
    if (spec.safe !== undefined) return { value: spec.safe, source: spec.env };
  }
  const inFile = values.values.get(spec.key);
  if (inFile) {
    const source = `${file}:${inFile.line}`;
    // Its problem is said already, as the line's TOML error.
    if (inFile.value === UNREADABLE) return spec.safe === undefined ? { value: spec.fallback, source: "default" } : { value: spec.safe, source };
    const parsed = spec.fromFile(inFile.value);
    for (const warning of ("ok" in parsed && parsed.warnings) || []) problems.push(`${source}: ${spec.key}: ${warning}; ignored`);
    if ("ok" in parsed && parsed.note) problems.push(`${source}: ${spec.key}: ${parsed.note}`);
    if ("ok" in parsed) return { value: parsed.ok, source };
    problems.push(`${source}: ${spec.key}: ${parsed.error}; ${spec.safe === undefined ? "using the default" : safely}`);
    if (spec.safe !== undefined) return { value: spec.safe, source };
  }
  return { value: spec.fallback, source: "default" };
}

/**
 * Every setting from, in order of precedence, a flag (`daemon --scrollback`), the environment, the
 * config file and the default. Pure but for reading the file once per process.
 */
export function loadSettings(env: Env = process.env, flags: { scrollback?: string | undefined; reread?: boolean } = {}): Settings {
  const file = configFile(env);
  // A reload (SIGHUP, `fleetcom config --reload`) reads the file as it is now.
  if (flags.reread) fileCache.delete(file);
  const values = readConfigFile(file);
  const problems = [...values.problems];
  const settings: Settings = {
    file,
    notify: resolveSetting(SPECS.notify, file, values, env, problems),
    notifyMinRuntime: resolveSetting(SPECS.notifyMinRuntime, file, values, env, problems),
    notifyIdle: resolveSetting(SPECS.notifyIdle, file, values, env, problems),
    scrollback: resolveSetting(SPECS.scrollback, file, values, env, problems),
    idleSeconds: resolveSetting(SPECS.idleSeconds, file, values, env, problems),
    detachKey: resolveSetting(SPECS.detachKey, file, values, env, problems),
    confirm: resolveSetting(SPECS.confirm, file, values, env, problems),
    history: resolveSetting(SPECS.history, file, values, env, problems),
    logMax: resolveSetting(SPECS.logMax, file, values, env, problems),
    bell: resolveSetting(SPECS.bell, file, values, env, problems),
    worktreeDir: resolveSetting(SPECS.worktreeDir, file, values, env, problems),
    agents: values.values.has("agents") ? { value: values.values.get("agents")!.value, file, lines: values.lines } : null,
    problems,
  };
  if (flags.scrollback !== undefined) settings.scrollback = { value: scrollbackSetting(flags.scrollback, undefined, () => {}), source: "--scrollback" };
  // The file's problems in the order of its lines, then the environment's.
  const line = (p: string) => (p.startsWith(`${file}:`) ? Number(/^:(\d+)/.exec(p.slice(file.length))?.[1] ?? 0) : Infinity);
  problems.sort((a, b) => line(a) - line(b));
  return settings;
}

/**
 * The key that leaves attached mode, for the attach screens: FLEETCOM_DETACH_KEY, else `detach_key`
 * in the config file, else Ctrl-\. A bad value keeps the default (`fleetcom config` says why).
 */
export function detachKeySetting(env: Env = process.env): DetachKey {
  return loadSettings(env).detachKey.value;
}

/** Whether Q, X on a running task and `--kill` ask before they stop anything: FLEETCOM_CONFIRM, else `confirm`, else yes. */
export function confirmSetting(env: Env = process.env): boolean {
  return loadSettings(env).confirm.value;
}

/** Whether the dashboard rings when a task starts waiting: FLEETCOM_BELL, else `bell`, else yes. */
export function bellSetting(env: Env = process.env): boolean {
  return loadSettings(env).bell.value;
}

/** The daemon's settings that come from this environment: a daemon started elsewhere (the service) reads only the file. */
export function daemonSettingsFromEnvironment(settings: Settings): { env: string; key: string }[] {
  return DAEMON_KEYS.filter((name) => settings[name].source === SPECS[name].env).map((name) => ({ env: SPECS[name].env, key: SPECS[name].key }));
}

/**
 * What a supervisor takes from the settings. `reread` reads them again for a reload, with the same
 * environment and flags: only the file can have changed.
 */
export function daemonOptions(
  settings: Settings,
  reread: () => Settings = () => loadSettings(process.env, { reread: true }),
): { scrollback: number; notify: NotifyTarget[]; idleMs: number; history: boolean; settings: Settings; reread: () => Settings } {
  return {
    scrollback: settings.scrollback.value,
    notify: settings.notify.value,
    idleMs: settings.idleSeconds.value * 1000,
    history: settings.history.value,
    settings,
    reread,
  };
}

// ---- reloading ---------------------------------------------------------------------------------
// A running daemon reads the file again on SIGHUP and on `fleetcom config --reload` (docs/daemon.md).
// Its environment and flags are those it started with, so only the file's keys can change.

/** When a daemon setting changed by a reload takes effect: at once, for tasks started (or rerun) from then on, or at the next start. */
export type ReloadApplies = "now" | "new tasks" | "restart";

const DAEMON_KEYS = ["notify", "notifyMinRuntime", "notifyIdle", "scrollback", "idleSeconds", "history"] as const;
type DaemonKey = (typeof DAEMON_KEYS)[number];

export const RELOAD_APPLIES: Record<DaemonKey, ReloadApplies> = {
  notify: "now",
  notifyMinRuntime: "now",
  notifyIdle: "now",
  // A running task's emulator was made with its scrollback; a new one gets the new size.
  scrollback: "new tasks",
  idleSeconds: "now",
  // The history writer and the snapshots' pruning are set up at start for one or the other.
  history: "restart",
};

/** A daemon setting a reload found changed, and when the new value applies. */
export interface SettingChange {
  /** As written in the file (`idle_seconds`). */
  key: string;
  from: Resolved<unknown>;
  to: Resolved<unknown>;
  applies: ReloadApplies;
}

/**
 * The settings a daemon goes by after reading `next`: each key's new value, but for a key that waits
 * for a restart; and what changed, in the file's key order. The problems are all `next`'s.
 */
export function reloadedSettings(current: Settings, next: Settings): { settings: Settings; changes: SettingChange[] } {
  const changes: SettingChange[] = [];
  for (const name of DAEMON_KEYS) {
    const [from, to] = [current[name], next[name]];
    if (JSON.stringify(from.value) !== JSON.stringify(to.value)) changes.push({ key: SPECS[name].key, from, to, applies: RELOAD_APPLIES[name] });
  }
  const kept = <K extends DaemonKey>(name: K): Settings[K] => (RELOAD_APPLIES[name] === "restart" ? current[name] : next[name]);
  const settings = {
    ...next,
    notify: kept("notify"),
    notifyMinRuntime: kept("notifyMinRuntime"),
    notifyIdle: kept("notifyIdle"),
    scrollback: kept("scrollback"),
    idleSeconds: kept("idleSeconds"),
    history: kept("history"),
  };
  return { settings, changes };
}

/**
 * When the daemon would go by this shell's value of a key instead of its own: a reload reads the
 * daemon's file under the daemon's environment, so it brings the value only when both come from
 * that file (or the default); anything else takes a restart from this shell.
 */
export function whenApplied(name: DaemonKey, daemon: { file: string; source: string }, mine: { file: string; source: string }): ReloadApplies {
  const fromFile = (s: { source: string }) => s.source === "default" || s.source.startsWith(`${daemon.file}:`);
  return daemon.file === mine.file && fromFile(daemon) && fromFile(mine) ? RELOAD_APPLIES[name] : "restart";
}
