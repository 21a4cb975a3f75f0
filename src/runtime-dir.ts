// The runtime directory holds the socket, the lock and the log. It must be ours alone: a symlink,
// someone else's directory or one others can write to could let another user impersonate the
// daemon, so any of those is refused rather than repaired.
import { lstatSync, mkdirSync } from "node:fs";
import { UserError } from "./errors.ts";

export function ensureRuntimeDir(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new UserError(`cannot create runtime directory ${dir}: ${(error as Error).message}`);
  }
  checkRuntimeDir(dir);
  return dir;
}

export function checkRuntimeDir(dir: string): void {
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink()) throw new UserError(`runtime directory ${dir} is a symlink; refusing to use it`);
  if (!stat.isDirectory()) throw new UserError(`runtime directory ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new UserError(`runtime directory ${dir} is owned by uid ${stat.uid}, not you (uid ${uid}); refusing to use it`);
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new UserError(
      `runtime directory ${dir} is writable by group or others (mode ${(stat.mode & 0o777).toString(8)}); refusing to use it`,
    );
  }
}
