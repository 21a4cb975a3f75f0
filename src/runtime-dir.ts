// The runtime directory holds the socket, the lock and the log. It must be ours alone: a symlink,
// someone else's directory or one others can enter could let another user impersonate the daemon
// or reach it, so any of those is refused rather than repaired.
//
// INVARIANT: nothing is bound, connected, locked or logged in the runtime directory except through
// an fd of it that was checked after opening (a real directory, not a symlink, owned by us, mode
// exactly 0700). On Linux every entry is reached as /proc/self/fd/<fd>/<name>, which the kernel
// resolves to that very directory: whoever renames or replaces the path after the check changes
// nothing. Elsewhere (no such path) entries are reached by name and the peer check on the socket
// (client.ts, daemon.ts) is what stops an impostor. The private directories fleetcom keeps inside
// its own (a snapshot's history) are checked the same way: never through a symlink, on the opened fd.
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, type Stats } from "node:fs";
import { join } from "node:path";
import { errnoCode, errnoWords, errorMessage, UserError } from "./errors.ts";
import { printable } from "./text-printable.ts";

/** Attempts to make and open a directory that keeps disappearing under us (L8: a cleaner racing us). */
const OPEN_ATTEMPTS = 5;

export interface RuntimeDir {
  readonly path: string;
  readonly fd: number;
  /** A path to `name` inside the checked directory, which renaming the directory's path cannot redirect (Linux). */
  entry(name: string): string;
  /** The checked directory is still the one its path names (false once it was removed or replaced). */
  stillAtPath(): boolean;
  close(): void;
}

/** Makes the runtime directory if it is missing (0700), opens it and checks it; throws a one-line UserError otherwise. */
export function openRuntimeDir(path: string): RuntimeDir {
  for (let attempt = 1; ; attempt++) {
    let created = false;
    try {
      created = mkdirSync(path, { recursive: true, mode: 0o700 }) !== undefined;
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw openFailure(path, error);
    }
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch (error) {
      if (errnoCode(error) === "ENOENT" && attempt < OPEN_ATTEMPTS) continue;
      throw openFailure(path, error, symlinkOrOther(path));
    }
    try {
      let stat = fstatSync(fd);
      // A directory we made just now is ours to set right whatever the umask; one we found is not.
      if (created && stat.uid === ownUid() && (stat.mode & 0o777) !== 0o700) {
        fchmodSync(fd, 0o700);
        stat = fstatSync(fd);
      }
      const problem = runtimeDirProblem(path, stat, ownUid());
      if (problem) throw new UserError(problem);
      return handle(path, fd, stat);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }
}

/**
 * Makes (0700) or repairs a private directory that fleetcom keeps inside one of its own (a snapshot's
 * history), never through a symlink: one found at the path was planted there, and following it would
 * chmod its target and write into it. Checked, and its group and other bits taken away, on the
 * opened fd, so the check and the repair act on the same directory. Throws a one-line UserError.
 */
export function ensureOwnPrivateDir(path: string, what: string): void {
  let fd: number;
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    if (symlinkOrOther(path) === "symlink") throw new UserError(`${what} ${printable(path)} is a symlink; refusing to use it`);
    const code = errnoCode(error);
    throw new UserError(`cannot prepare ${what} ${printable(path)}: ${code ? `${describeCode(code)} (${code})` : errorMessage(error)}`);
  }
  try {
    const stat = fstatSync(fd);
    const uid = ownUid();
    if (uid !== undefined && stat.uid !== uid)
      throw new UserError(`${what} ${printable(path)} is owned by uid ${stat.uid}, not you (uid ${uid}); refusing to use it`);
    if (stat.mode & 0o077) fchmodSync(fd, stat.mode & 0o700);
  } finally {
    closeSync(fd);
  }
}

/** Why a directory with these attributes cannot be the runtime directory, or null when it can. */
export function runtimeDirProblem(path: string, stat: Pick<Stats, "uid" | "mode" | "isDirectory">, uid: number | undefined): string | null {
  if (!stat.isDirectory()) return `runtime directory ${path} is not a directory`;
  if (uid !== undefined && stat.uid !== uid) return `runtime directory ${path} is owned by uid ${stat.uid}, not you (uid ${uid}); refusing to use it`;
  const mode = stat.mode & 0o777;
  if (mode !== 0o700) return `runtime directory ${path} has mode ${mode.toString(8).padStart(4, "0")}, not 0700 (private to you); refusing to use it`;
  return null;
}

/**
 * The one-line error for a runtime directory that could not be made or opened. ENOENT after the
 * retries means something keeps deleting it as fleetcom makes it; ENOTDIR/ELOOP from an
 * O_NOFOLLOW|O_DIRECTORY open mean a symlink or a file is there (`what` says which, from an lstat).
 */
export function openFailure(path: string, error: unknown, what: "symlink" | "other" = "other"): UserError {
  const code = errnoCode(error);
  if (code === "ENOENT") return new UserError(`runtime directory ${path} was removed while fleetcom was opening it (is something cleaning it up?); try again`);
  if ((code === "ENOTDIR" || code === "ELOOP") && what === "symlink") return new UserError(`runtime directory ${path} is a symlink; refusing to use it`);
  if (code === "ENOTDIR") return new UserError(`runtime directory ${path} is not a directory`);
  const reason = code ? `${describeCode(code)} (${code})` : String((error as Error)?.message ?? error);
  return new UserError(`cannot use runtime directory ${path}: ${reason}`);
}

function describeCode(code: string): string {
  return errnoWords(code) ?? "cannot open it";
}

function symlinkOrOther(path: string): "symlink" | "other" {
  try {
    return lstatSync(path).isSymbolicLink() ? "symlink" : "other";
  } catch {
    return "other";
  }
}

function handle(path: string, fd: number, stat: Stats): RuntimeDir {
  const viaFd = process.platform === "linux";
  let open = true;
  return {
    path,
    fd,
    entry: (name) => (viaFd ? `/proc/self/fd/${fd}/${name}` : join(path, name)),
    stillAtPath: () => {
      try {
        const now = lstatSync(path);
        return now.ino === stat.ino && now.dev === stat.dev;
      } catch {
        return false;
      }
    },
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

function ownUid(): number | undefined {
  return process.getuid?.();
}
