// The daemon's place in the runtime directory: the lock that makes it the only daemon, the socket
// clients reach it on, and a watch that puts both back when they are removed under it.
//
// The socket is bound under a temporary name, made 0600 and only then renamed to default.sock, all
// inside the checked 0700 directory (runtime-dir.ts): no other user can reach it at any moment,
// whatever the umask. Every accepted connection must come from our own uid (wire-peer.ts) before the
// daemon sees a byte of it.
//
// systemd-logind removes /run/user/UID at logout and /tmp cleaners remove old directories; a daemon
// that did not notice would keep its tasks where no client can reach them while the next client
// starts a second daemon. So the directory, socket and lock are checked every RUNTIME_CHECK_MS
// (three lstats) and made again when they are gone. If another daemon took the lock meanwhile (a
// client came within that second and started one), this daemon gives way: it stops its tasks after
// the final snapshot rather than run unreachable beside it.
import { closeSync, chmodSync, fstatSync, ftruncateSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { acquireLock } from "./daemon-lock.ts";
import { LOCK_NAME, LOG_NAME, SOCKET_NAME } from "./paths.ts";
import { clientRefusal } from "./wire-peer.ts";
import { openRuntimeDir, type RuntimeDir } from "./runtime-dir.ts";
import { peerUidReader, redirectStdio } from "./platform.ts";
import { listenUnix, type PeerSocket, type SocketListener } from "./daemon-socket.ts";
import { encodeControl } from "./wire-framing.ts";
import { FdReserve } from "./daemon-fd-reserve.ts";
import type { Refusal } from "./wire-protocol.ts";

export const RUNTIME_CHECK_MS = 1_000;

export interface EndpointOptions {
  log(message: string): void;
  /** A connection from our own uid. */
  accept(socket: PeerSocket): void;
  /** The runtime directory cannot be ours again (another daemon holds it, or it is refused): stop. */
  lost(reason: string): void;
}

interface Place {
  dir: RuntimeDir;
  lockFd: number;
  lockIno: number;
  server: SocketListener;
  socketIno: number;
}

/** The runtime directory with its lock held and our PID in it: the only daemon, not listening yet. */
export interface Claim {
  dir: RuntimeDir;
  lockFd: number;
}

/**
 * Takes the lock and writes our PID in it; null when another daemon holds it. The daemon does this
 * before it loads the rest of itself, which takes seconds on a loaded machine: meanwhile clients
 * wait for it rather than start another, and `--kill` can find it.
 */
export async function claimRuntimeDir(path: string): Promise<Claim | null> {
  const dir = openRuntimeDir(path);
  let lockFd: number | null;
  try {
    lockFd = await acquireLock(dir.entry(LOCK_NAME));
  } catch (error) {
    dir.close();
    throw error;
  }
  if (lockFd === null) {
    dir.close();
    return null;
  }
  writeOwnPid(lockFd);
  return { dir, lockFd };
}

export class Endpoint {
  private readonly check = setInterval(() => void this.verify(), RUNTIME_CHECK_MS);
  private repairing = false;
  private closed = false;

  private constructor(
    private readonly path: string,
    private place: Place,
    private readonly admit: (socket: PeerSocket) => void,
    private readonly options: EndpointOptions,
    private readonly reserve: FdReserve,
  ) {
    this.check.unref?.();
  }

  /** Listens on the claimed runtime directory. */
  static async open(path: string, claim: Claim, options: EndpointOptions): Promise<Endpoint> {
    const readPeer = await peerUidReader();
    const reserve = new FdReserve(options.log);
    const refuse = (socket: PeerSocket, refusal: string) => {
      socket.write(encodeControl({ type: "refused", error: refusal } satisfies Refusal));
      socket.end();
    };
    const admit = (socket: PeerSocket) => {
      const refusal = clientRefusal(readPeer(socket.fd), process.getuid?.());
      if (refusal) {
        options.log(`refused a connection: ${refusal}`);
        return refuse(socket, refusal);
      }
      // Said once in the log when it begins (daemon-fd-reserve.ts), not once per connection.
      const starved = reserve.refusal();
      if (starved) return refuse(socket, starved);
      options.accept(socket);
    };
    try {
      return new Endpoint(path, await settle(claim.dir, claim.lockFd, admit), admit, options, reserve);
    } catch (error) {
      reserve.close();
      closeSync(claim.lockFd);
      claim.dir.close();
      throw error;
    }
  }

  get socketPath(): string {
    return `${this.path}/${SOCKET_NAME}`;
  }

  /** Stops listening and removes the socket and lock, only ever our own (reached through our directory's fd). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.check);
    this.reserve.close();
    vacate(this.place, true);
  }

  /** Is the directory at its path still ours, with our socket and lock in it? */
  private intact(): boolean {
    const { dir, lockIno, socketIno } = this.place;
    return dir.stillAtPath() && inode(dir.entry(SOCKET_NAME)) === socketIno && inode(dir.entry(LOCK_NAME)) === lockIno;
  }

  private async verify(): Promise<void> {
    if (this.closed) return;
    this.reserve.check();
    if (this.repairing || this.intact()) return;
    this.repairing = true;
    try {
      await this.repair();
    } finally {
      this.repairing = false;
    }
  }

  /** The directory, socket or lock went away: make them again, or give way to the daemon that took them. */
  private async repair(): Promise<void> {
    const old = this.place;
    this.options.log(`the runtime directory ${this.path}, its socket or its lock was removed; making them again`);
    let dir: RuntimeDir;
    try {
      dir = openRuntimeDir(this.path);
    } catch (error) {
      return this.giveUp(`cannot make the runtime directory again: ${(error as Error).message}`);
    }
    // Still our lock file (only the socket went)? flock is per open file, so locking it afresh would fail against ourselves.
    const lockFd = inode(dir.entry(LOCK_NAME)) === old.lockIno ? old.lockFd : await acquireLock(dir.entry(LOCK_NAME));
    if (lockFd === null || this.closed) {
      dir.close();
      if (lockFd !== null && lockFd !== old.lockFd) closeSync(lockFd);
      return lockFd === null ? this.giveUp(`another daemon now holds ${this.path}/${LOCK_NAME}`) : undefined;
    }
    // Stop accepting on the old socket before the old directory's fd number can be reused.
    closeServer(old.server);
    try {
      this.place = await settle(dir, lockFd, this.admit);
    } catch (error) {
      if (lockFd !== old.lockFd) closeSync(lockFd);
      dir.close();
      return this.giveUp(`cannot listen in ${this.path} again: ${(error as Error).message}`);
    }
    if (old.lockFd !== lockFd) closeSync(old.lockFd);
    old.dir.close();
    await reopenLog(dir);
    this.options.log(`made the runtime directory, socket and lock again after they were removed; listening on ${this.socketPath}`);
  }

  private giveUp(reason: string): void {
    this.options.log(`${reason}; stopping every task after a final snapshot`);
    this.closed = true;
    clearInterval(this.check);
    this.reserve.close();
    vacate(this.place, false);
    this.options.lost(reason);
  }
}

/** Writes our PID into the lock we hold, then binds the socket: under a temporary name, 0600, renamed into place. */
async function settle(dir: RuntimeDir, lockFd: number, admit: (socket: PeerSocket) => void): Promise<Place> {
  writeOwnPid(lockFd);
  const temp = `${SOCKET_NAME}.${process.pid}.${++binds}.tmp`;
  removeQuietly(dir.entry(temp));
  const server = await listenUnix(dir.entry(temp), admit);
  try {
    chmodSync(dir.entry(temp), 0o600);
    // Atomically replaces a dead daemon's socket: we hold the lock, so it cannot be a live one's.
    renameSync(dir.entry(temp), dir.entry(SOCKET_NAME));
  } catch (error) {
    closeServer(server);
    removeQuietly(dir.entry(temp));
    throw error;
  }
  return { dir, lockFd, lockIno: fstatSync(lockFd).ino, server, socketIno: inode(dir.entry(SOCKET_NAME)) ?? -1 };
}

/** What `--kill` and waiting clients read to know which process holds the lock. */
function writeOwnPid(lockFd: number): void {
  ftruncateSync(lockFd);
  writeSync(lockFd, `${process.pid}\n`);
}

/**
 * A daemon started by autostart writes its log through stdout/stderr, which went with the removed
 * directory: point them at a new daemon.log. Anything else on stderr (a terminal, a journal) is left alone.
 */
async function reopenLog(dir: RuntimeDir): Promise<void> {
  try {
    const stderr = fstatSync(2);
    if (!stderr.isFile() || stderr.nlink !== 0) return;
    await logToRuntimeDir(dir);
  } catch {}
}

/** Points stdout and stderr at the runtime directory's daemon.log, appending. */
export async function logToRuntimeDir(dir: RuntimeDir): Promise<void> {
  const log = openSync(dir.entry(LOG_NAME), "a", 0o600);
  try {
    await redirectStdio(log);
  } finally {
    closeSync(log);
  }
}

/** Temporary socket names are never reused, so closing an old server can never unlink a newer socket. */
let binds = 0;

/** Through the place's directory fd: if the directory was removed or replaced, nothing of anyone else's is touched. */
function vacate(place: Place, removeFiles: boolean): void {
  closeServer(place.server);
  if (removeFiles) {
    if (inode(place.dir.entry(SOCKET_NAME)) === place.socketIno) removeQuietly(place.dir.entry(SOCKET_NAME));
    if (inode(place.dir.entry(LOCK_NAME)) === place.lockIno) removeQuietly(place.dir.entry(LOCK_NAME));
  }
  closeSync(place.lockFd);
  place.dir.close();
}

function closeServer(server: SocketListener): void {
  try {
    server.close();
  } catch {}
}

function inode(path: string): number | null {
  try {
    return lstatSync(path).ino;
  } catch {
    return null;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}
