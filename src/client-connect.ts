// How a client reaches a daemon, before a byte of the protocol: this machine's socket through the
// runtime directory's checks and the peer check, its daemon started when none runs
// (client-autostart*.ts); another host's through the forward of its daemon's socket an earlier
// connection made, or ssh and its bridge (client-ssh.ts). The protocol over what this gives is
// client.ts's.
import { join } from "node:path";
import { type Attempt, type ClientSocket, type Connected, connectClientSocket } from "./client-socket.ts";
import type { ForwardTarget, RemoteHost } from "./client-ssh.ts";
import { readRegularFile } from "./files.ts";
import { UserError } from "./errors.ts";
import { SOCKET_NAME, runtimeDir } from "./paths.ts";
import { lockHolder, socketIsThere } from "./client-target.ts";
import { startDaemon, takePrestarted } from "./client-autostart.ts";
import { AUTOSTART_BOUND_MS, followStart } from "./client-autostart-follow.ts";
import { isProcessAlive, peerUidReader, type PeerUid } from "./platform.ts";
import { daemonRefusal, listenerGone, listenerPid } from "./wire-peer.ts";
import { openRuntimeDir } from "./runtime-dir.ts";
import { connectFailure, DaemonNotRunning } from "./client-failures.ts";

/**
 * A connection, and for one carried by ssh the one line that says why it ended; `patientMs`: the
 * welcome's bound when this command followed the daemon's start (client-failures.ts); `listener`:
 * the PID of this machine's daemon that took it.
 */
export type Transport = { socket: ClientSocket; host: RemoteHost | null; why?: () => string | null; patientMs?: number; listener?: number };

export async function openTransport(host: RemoteHost | null, autostart: boolean): Promise<Transport> {
  if (!host) return { ...(await connectSocket(autostart)), host };
  const { connectSsh } = await import("./client-ssh.ts");
  const socket = await connectSsh(host);
  return { socket, host, why: socket.why };
}

/** Nothing listens on a forward's socket (its master ended): what a connect says then. */
const NO_LISTENER = new Set(["ENOENT", "ECONNREFUSED"]);

/**
 * The forward of `host`'s daemon socket that an earlier connection made (client-ssh.ts
 * forwardDaemonSocket), reached through the runtime directory's checks like our own daemon's socket
 * (the listener is our ssh), and what its record says it leads to. Otherwise `listening`: the socket
 * the forward leads to when it took the connection and dropped it (no daemon there, or forwarding
 * refused), null when there is no forward, it was made another way, or nothing listens. Its `why`
 * tells a dropped ssh connection (nothing listens any more) from the daemon there closing it.
 */
export async function connectForward(host: RemoteHost): Promise<{ transport: Transport; target: ForwardTarget } | { listening: string | null }> {
  const { forwardNames, forwardTarget } = await import("./client-ssh.ts");
  const names = forwardNames(host.name);
  const dirPath = runtimeDir();
  let target: ForwardTarget | null;
  try {
    const dir = openRuntimeDir(dirPath);
    try {
      target = forwardTarget(host, readRegularFile(dir.entry(names.record), { noFollow: true, maxBytes: 4096 }).toString());
    } finally {
      dir.close();
    }
  } catch {
    return { listening: null };
  }
  if (target === null) return { listening: null };
  const attempt = await connectVerified(dirPath, peerUidReader, names.socket).catch(() => null);
  if (!attempt) return { listening: null };
  if (!("socket" in attempt)) return { listening: NO_LISTENER.has(attempt.code) ? null : target.socket };
  const socket = attempt.socket;
  let ending = false;
  let dropped = false;
  const forwarded: ClientSocket = {
    ...socket,
    close: () => {
      ending = true;
      socket.close();
    },
    destroy: () => {
      ending = true;
      socket.destroy();
    },
    onClose: (listener) =>
      socket.onClose(async () => {
        if (!ending) {
          const probe = await connectVerified(dirPath, peerUidReader, names.socket).catch(() => null);
          dropped = probe !== null && "code" in probe && NO_LISTENER.has(probe.code);
          if (probe && "socket" in probe) probe.socket.destroy();
        }
        listener();
      }),
  };
  return { transport: { socket: forwarded, host, why: () => (dropped ? `${host.name} is unreachable: its ssh connection ended` : null) }, target };
}

type PeerReader = (fd: number | undefined) => PeerUid;
/** The peer reader, made on first use: loading libc is wasted on a client that finds no daemon. */
type LazyPeerReader = () => Promise<PeerReader>;

/**
 * One connection attempt that can only reach our own daemon: through the checked runtime directory
 * (runtime-dir.ts), then the peer's uid must be ours before a byte is sent (the hello carries the
 * whole environment).
 */
export async function connectVerified(dirPath: string, readPeer: LazyPeerReader, name = SOCKET_NAME): Promise<Attempt> {
  const dir = openRuntimeDir(dirPath);
  let attempt: Attempt;
  try {
    // No socket, no daemon: what connect() would say, without the runtime's failed connection and
    // its error (a cost on every `recover --list` or `load` with no daemon, and on each autostart).
    const path = dir.entry(name);
    attempt = socketIsThere(path) ? await connectClientSocket(path) : { code: "ENOENT" };
  } finally {
    dir.close();
  }
  if ("socket" in attempt) {
    const peer = (await readPeer())(attempt.socket.fd);
    const refusal = daemonRefusal(join(dirPath, name), peer, process.getuid?.());
    if (refusal) {
      attempt.socket.destroy();
      throw new UserError(refusal);
    }
    // A killed daemon's socket can go on listening a moment after the process is gone (seen right
    // after a SIGKILL: a listening socket with no process holding it): it takes the connection, then
    // drops it. Such a socket is no daemon, as a refused connection says.
    if (listenerGone(peer, isProcessAlive)) {
      attempt.socket.destroy();
      return { code: "ECONNREFUSED" };
    }
    const listener = listenerPid(peer);
    if (listener !== null) return { socket: attempt.socket, listener };
  }
  return attempt;
}

/** A start this long is worth a word on a terminal. */
const STARTING_NOTICE_MS = 1_000;

/**
 * The socket of this machine's daemon, started if none runs and `autostart`; `patientMs` when this
 * command followed a start: the daemon listens before it is built, and its welcome waits for that.
 */
async function connectSocket(autostart: boolean): Promise<Connected & { patientMs?: number }> {
  const dirPath = runtimeDir();
  let reader: Promise<PeerReader> | undefined;
  const readPeer = () => (reader ??= peerUidReader());
  // The daemon this command started before its code loaded (cli.ts), if it did.
  let started = await takePrestarted();
  const first = await connectVerified(dirPath, readPeer);
  if ("socket" in first) {
    started?.letGo();
    return { ...first, ...(started && { patientMs: AUTOSTART_BOUND_MS }) };
  }
  const fatal = connectFailure(first.code);
  if (fatal) throw fatal;
  // A live daemon holding the lock will not be replaced by starting another: follow it instead.
  if (!started && lockHolder(dirPath) === null) {
    if (!autostart) throw new DaemonNotRunning();
    started = await startDaemon(dirPath, true);
  }
  // Bound while the daemon starts (on the other core, where there is one), not after it listens:
  // the peer check's libc binding is a millisecond of a cold start's critical path.
  if (started) readPeer().catch(() => {});
  const notice = setTimeout(() => process.stderr.isTTY && process.stderr.write("fleetcom: starting the daemon…\n"), STARTING_NOTICE_MS);
  try {
    const connect = () => connectVerified(dirPath, readPeer);
    return { ...(await followStart(connect, dirPath, started, autostart)), patientMs: AUTOSTART_BOUND_MS };
  } finally {
    clearTimeout(notice);
  }
}

/** The byte stream to this machine's daemon through every trust check, started if none runs: what `fleetcom bridge` relays. */
export async function openDaemonSocket(): Promise<ClientSocket> {
  return (await connectSocket(true)).socket;
}
