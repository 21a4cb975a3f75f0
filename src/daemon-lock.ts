// The daemon's lock: an flock on daemon.lock held for the daemon's whole life (platform.ts has the
// flock itself), which is what makes "exactly one daemon" race-free.
import { closeSync, fstatSync, openSync, statSync } from "node:fs";
import { tryLockExclusive } from "./platform.ts";

/**
 * The lock file's fd, locked, or null when a live daemon holds it. The kernel drops the lock when
 * its holder dies, so a stale lock file is simply taken over. A file unlinked by a daemon that was
 * stopping while we opened it would give us a lock nobody else can see: check we locked the file
 * that is at the path, else try again.
 */
export async function acquireLock(path: string): Promise<number | null> {
  for (;;) {
    const fd = openSync(path, "a+", 0o600);
    if (!(await tryLockExclusive(fd))) {
      closeSync(fd);
      return null;
    }
    if (sameFile(fd, path)) return fd;
    closeSync(fd);
  }
}

function sameFile(fd: number, path: string): boolean {
  try {
    const a = fstatSync(fd);
    const b = statSync(path);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}
