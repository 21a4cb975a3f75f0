// A client's view of one task: the peer's state (attached to a task, following one, subscribed),
// and the streams that keep its screen exact. A screen (or, for `peek --follow`, text) is taken at an
// exact point of the task's output, and the output that arrived while it was being taken follows it:
// no gap, no overlap. The daemon owns the peers; this file knows one peer at a time.
import type { Connection } from "./daemon-connection.ts";
import { outputHighWater } from "./daemon-connection.ts";
import type { Task } from "./daemon-task.ts";
import type { Hello, TaskInfo } from "./wire-protocol.ts";

export interface Peer {
  conn: Connection;
  hello: Hello | null;
  subscribed: boolean;
  attached: Task | null;
  following: Task | null;
  /** Output that arrived while this peer's screen snapshot was being taken; sent right after it. */
  held: Uint8Array[] | null;
  /** Drops the connection if no hello comes in time. */
  handshakeTimer: ReturnType<typeof setTimeout> | null;
  /** The task whose unread input made the daemon stop reading this peer's keystrokes. */
  inputBlockedBy: Task | null;
}

export function newPeer(conn: Connection, handshakeTimer: ReturnType<typeof setTimeout>): Peer {
  return { conn, hello: null, subscribed: false, attached: null, following: null, held: null, handshakeTimer, inputBlockedBy: null };
}

/** Whether `task`'s output goes to this peer. */
export function watches(peer: Peer, task: Task): boolean {
  return peer.attached === task || peer.following === task;
}

export function attach(peer: Peer, task: Task, cols: number, rows: number): void {
  detach(peer);
  peer.attached = task;
  task.attended();
  task.resize(cols, rows);
  sendScreen(peer, task);
}

export function follow(peer: Peer, task: Task, lines?: number): void {
  detach(peer);
  peer.following = task;
  sendText(peer, task, lines);
}

export function detach(peer: Peer): void {
  unblockInput(peer);
  peer.attached = null;
  peer.following = null;
  peer.held = null;
}

/** The stream ends (the task exited, was removed, the daemon stops): the client is told why. */
export function endStream(peer: Peer, reason: "exited" | "removed" | "shutdown", info: TaskInfo): void {
  detach(peer);
  peer.conn.send({ type: "attach-end", reason, task: info });
}

export function unblockInput(peer: Peer): void {
  if (!peer.inputBlockedBy) return;
  peer.inputBlockedBy = null;
  peer.conn.resumeReading();
}

/** A chunk the task printed: live, or held behind a screen still being taken. */
export function forwardOutput(peer: Peer, task: Task, chunk: Uint8Array): void {
  if (peer.held) peer.held.push(chunk);
  else peer.conn.sendOutput(chunk, outputHighWater(task.cols, task.rows));
}

/** A client that fell behind during a flood, or came back from behind: the screen as it stands now. */
export function resync(peer: Peer): void {
  if (peer.attached) sendScreen(peer, peer.attached);
  else if (peer.following) sendText(peer, peer.following);
}

/** The last screen of a task that just exited, for a client that fell behind and would miss it. */
export function sendFinalScreen(peer: Peer, task: Task): void {
  if (peer.attached) sendWholeScreen(peer, task.screen.serializeForAttach());
  else peer.conn.sendScreen(textView(task.screen.text()));
}

/** The screen exactly as it stands after every byte printed so far; output after that follows it live. */
export function sendScreen(peer: Peer, task: Task): void {
  sendAtCurrentPoint(peer, task, task.screen.snapshotForAttach(), (screen) => screen);
}

/** For `peek --follow`: the screen as text, then the output that follows it. */
function sendText(peer: Peer, task: Task, lines?: number): void {
  sendAtCurrentPoint(peer, task, task.screen.textAtCurrentPoint(lines), textView);
}

/**
 * Sends a view of the screen taken at an exact point of the output stream, then the output that
 * came while the view waited for the parser: no gap, no overlap.
 */
function sendAtCurrentPoint(peer: Peer, task: Task, view: Promise<string>, frame: (view: string) => string): void {
  if (peer.held) return;
  const held: Uint8Array[] = (peer.held = []);
  view.then((taken) => {
    if (peer.held !== held) return;
    peer.held = null;
    if (peer.attached === task) sendWholeScreen(peer, frame(taken));
    else if (peer.following === task) peer.conn.sendScreen(frame(taken));
    else return;
    for (const chunk of held) peer.conn.sendOutput(chunk, outputHighWater(task.cols, task.rows));
  });
}

/** A screen for an attached client, announced so a client waiting for a redraw knows it from output. */
function sendWholeScreen(peer: Peer, screen: string): void {
  peer.conn.send({ type: "screen" });
  peer.conn.sendScreen(screen);
}

function textView(text: string): string {
  return text ? `${text}\n` : "";
}
