// Where fleetcom keeps things: the session directory (sessions.md), the runtime directory
// (daemon.md) and the cache directory (agents.md). Pure functions of the environment, so every client and the daemon agree.
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

export type Env = Record<string, string | undefined>;

/** The variables that are set, as a hello or a child process takes them. */
export function definedEnvironment(env: Env = process.env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

// $HOME, else the password database's, through node:os, which is loaded only then. Not through
// platform.ts nodeOs: this module stays free of node:fs and libc's binding, which the early autostart
// (client-early-start.ts) starts the daemon without.
export function homeDir(env: Env = process.env): string {
  return env.HOME || (createRequire(import.meta.url)("node:os") as typeof import("node:os")).homedir();
}

export function configDir(env: Env = process.env, os: string = process.platform): string {
  if (env.FLEETCOM_CONFIG_DIR) return env.FLEETCOM_CONFIG_DIR;
  if (os === "darwin") return join(homeDir(env), "Library", "Application Support", "fleetcom");
  return join(env.XDG_CONFIG_HOME || join(homeDir(env), ".config"), "fleetcom");
}

/** What fleetcom can always work out again but would rather not: kept across reboots, unlike the runtime directory. */
export function cacheDir(env: Env = process.env, os: string = process.platform): string {
  if (os === "darwin") return join(homeDir(env), "Library", "Caches", "fleetcom");
  return join(env.XDG_CACHE_HOME || join(homeDir(env), ".cache"), "fleetcom");
}

export function sessionDir(env: Env = process.env, os: string = process.platform): string {
  return join(configDir(env, os), "sessions");
}

export function recoveryDir(env: Env = process.env, os: string = process.platform): string {
  return join(sessionDir(env, os), "recovery");
}

export function runtimeDir(env: Env = process.env, uid: number = process.getuid?.() ?? 0): string {
  if (env.FLEETCOM_RUNTIME_DIR) return env.FLEETCOM_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, "fleetcom");
  return join(env.TMPDIR || "/tmp", `fleetcom-${uid}`);
}

export const SOCKET_NAME = "default.sock";
export const LOCK_NAME = "daemon.lock";
export const LOG_NAME = "daemon.log";
/** Names the fd of the pipe on which an autostarted daemon says it listens (client.ts startDaemon, cmd-daemon.ts). */
export const READY_FD_VARIABLE = "FLEETCOM_READY_FD";
/** Set by the early autostart, which gives the daemon no log: it opens its own once it holds the runtime directory. */
export const OPEN_LOG_VARIABLE = "FLEETCOM_OPEN_LOG";

export function socketPath(env: Env = process.env): string {
  return join(runtimeDir(env), SOCKET_NAME);
}

export function lockPath(env: Env = process.env): string {
  return join(runtimeDir(env), LOCK_NAME);
}

export function logPath(env: Env = process.env): string {
  return join(runtimeDir(env), LOG_NAME);
}

/** `dir` with the home directory written as `~` (`~`, `~/…`), so a recipe survives a moved home and a path reads short; as it is elsewhere. */
export function tildePath(dir: string, home: string | undefined): string {
  if (!home) return dir;
  const base = resolve(home);
  if (base === "/") return dir;
  if (dir === base) return "~";
  return dir.startsWith(`${base}/`) ? `~/${dir.slice(base.length + 1)}` : dir;
}

/** The config file (settings.ts reads it): config.toml in the config directory. */
export const CONFIG_NAME = "config.toml";

export function configFile(env: Env = process.env): string {
  return join(configDir(env), CONFIG_NAME);
}
