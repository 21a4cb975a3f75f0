// Which daemon a command talks to (this machine's, or another host's through --host, FLEETCOM_HOST or
// HOST:TASK), and whether this machine's runs at all, answered without loading the client: a command
// that only asks a running daemon (client-running-daemon.ts) and finds none here never evaluates
// client.ts and its socket, framing and FFI modules (a share of such a command: docs/benchmarks.md), and a command
// bound for it anyway starts one before its own code loads (client-autostart.ts).
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "./files.ts";
import { configDir, LOCK_NAME, runtimeDir, SOCKET_NAME } from "./paths.ts";
import { isProcessAlive } from "./platform.ts";
import { flockHolder, pidInLockFile } from "./proc.ts";
import { openRuntimeDir, type RuntimeDir } from "./runtime-dir.ts";
import type { RemoteHost } from "./client-ssh.ts";

/**
 * The daemon a command talks to: this machine's, or another host's over ssh. The runner resolves
 * `--host`, FLEETCOM_HOST and HOST:TASK into one once and hands it to the command, which passes it
 * on to every connection it opens; no module keeps it.
 */
export type Target = { readonly kind: "here" } | { readonly kind: "host"; readonly host: RemoteHost };

export const HERE: Target = { kind: "here" };

export function targetOf(host: RemoteHost | null): Target {
  return host === null ? HERE : { kind: "host", host };
}

/** The host a target names, or null for this machine's daemon. */
export function hostOf(target: Target): RemoteHost | null {
  return target.kind === "host" ? target.host : null;
}

/** The target the runner put beside a command's arguments (cli.ts runs every command with one). */
export function targetIn(context: object): Target {
  const target = (context as { target?: Target }).target;
  if (target === undefined) throw new Error("a command ran without its target");
  return target;
}

/**
 * Whether config.toml has a hosts table at all (client-hosts.ts reads them): a look at its text, so
 * that `ls` and `wait --any` without hosts never load the TOML parser.
 */
export function hostsMayBeAdded(): boolean {
  try {
    return readRegularFile(join(configDir(), "config.toml"), { maxBytes: 1024 * 1024 })
      .toString("utf8")
      .includes("[hosts.");
  } catch {
    return false;
  }
}

/** The PID of the live process holding daemon.lock, or null (without /proc: the PID in the file, if alive). */
export function lockHolder(dirPath: string): number | null {
  let dir: RuntimeDir;
  try {
    dir = openRuntimeDir(dirPath);
  } catch {
    return null;
  }
  try {
    return lockHolderIn(dir);
  } finally {
    dir.close();
  }
}

function lockHolderIn(dir: RuntimeDir): number | null {
  try {
    const lock = dir.entry(LOCK_NAME);
    const holder = flockHolder(lock);
    // A killed daemon's lock can stay listed a moment after the process is gone, as its socket can
    // go on listening (client-connect.ts connectVerified): a holder that is no more holds nothing. (PID 0 is
    // a holder in a PID namespace we cannot see, and still holds it.)
    if (holder !== undefined) return holder !== null && (holder === 0 || isProcessAlive(holder)) ? holder : null;
    const pid = pidInLockFile(lock);
    return pid !== null && isProcessAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Whether this process talks to this machine's daemon and none runs: no socket in the runtime
 * directory and nobody holds its lock (a daemon still starting holds it before it listens). The
 * directory is opened and checked as every connection's is, so a directory others could enter is
 * refused here too. A daemon starting a moment later is the same race a failed connection has.
 */
export function noDaemonHere(target: Target): boolean {
  if (target.kind === "host") return false;
  const dir = openRuntimeDir(runtimeDir());
  try {
    return !socketIsThere(dir.entry(SOCKET_NAME)) && lockHolderIn(dir) === null;
  } finally {
    dir.close();
  }
}

/** Anything at the socket's name but a clear "no such entry" leaves the answer to a connection. */
export function socketIsThere(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}
