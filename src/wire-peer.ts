// Who is at the other end of the socket. The client checks the daemon and the daemon checks every
// client: both must run as the same uid, whatever the socket's or the directory's permissions say.
// The uid comes from the kernel (platform.ts); one that cannot be read is a refusal, not a pass.
import type { PeerUid } from "./platform.ts";

/** Why a client must not talk to the daemon listening on `socket`, or null when it runs as `uid`. */
export function daemonRefusal(socket: string, peer: PeerUid, uid: number | undefined): string | null {
  if ("unknown" in peer) return `cannot tell who is listening on ${socket} (${peer.unknown}); refusing to talk to it`;
  if (uid !== undefined && peer.uid !== uid) return `${socket} is served by uid ${peer.uid}, not you (uid ${uid}); refusing to talk to it`;
  return null;
}

/** Why the daemon must drop a client, or null when it runs as `uid`. */
export function clientRefusal(peer: PeerUid, uid: number | undefined): string | null {
  if ("unknown" in peer) return `cannot tell who connected (${peer.unknown})`;
  if (uid !== undefined && peer.uid !== uid) return `this daemon serves uid ${uid} only, not uid ${peer.uid}`;
  return null;
}

/**
 * The PID of the process that made a socket listen, when it is known. A PID of 0 is a maker in a PID
 * namespace we cannot see, and no PID (getpeereid, outside Linux) says nothing: neither is one.
 */
export function listenerPid(peer: PeerUid): number | null {
  return "pid" in peer && peer.pid !== undefined && peer.pid > 0 ? peer.pid : null;
}

/** Whether the process that made a socket listen is known to be gone, so that the socket is no daemon's. */
export function listenerGone(peer: PeerUid, alive: (pid: number) => boolean): boolean {
  const pid = listenerPid(peer);
  return pid !== null && !alive(pid);
}
