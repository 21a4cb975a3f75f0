// A client's view of one task: the peer's state (greeting, then greeted: subscribed or not, and
// attached to a task, following one, or following its lines), and the streams that keep its screen
// exact. A screen (or, for `peek --follow`, text) is taken at an exact point of the task's output,
// and the output that arrived while it was being taken follows it: no gap, no overlap. The daemon
// owns the peers; this file knows one peer at a time.
import type { Connection } from "./daemon-connection.ts";
import { outputHighWater } from "./daemon-connection.ts";
import { setImmediate } from "node:timers";
import type { Task } from "./daemon-task.ts";
import type { TaskLog } from "./daemon-logs.ts";
import type { LogFilter } from "./recipe-log.ts";
import type { Hello, TaskInfo } from "./wire-protocol.ts";

/**
 * Lines a `logs --follow` client may have queued and unread before further lines are counted
 * instead of sent (and the count sent when it reads again): the task never waits for a reader, and
 * the daemon never holds more than this for one.
 */
export const MAX_LINES_BEHIND = 4 * 1024 * 1024;

/** A client that has not said hello yet: nothing else it sends is taken, and it is dropped if the hello does not come in time. */
export interface Greeting {
  stage: "greeting";
  conn: Connection;
  handshakeTimer: ReturnType<typeof setTimeout>;
}

/** A client whose screen follows a task's output: `attach`, or `peek --follow` (as text). */
interface Screen<Kind extends string> {
  kind: Kind;
  task: Task;
  /** Output that arrived while this peer's screen snapshot was being taken; sent right after it. */
  held: Uint8Array[] | null;
}

export interface Attached extends Screen<"attached"> {
  /** The task's unread input made the daemon stop reading this peer's keystrokes. */
  inputBlocked: boolean;
}

export type Watching = Attached | Screen<"following">;

/** What a client is sent of one task besides replies and events: at most one stream at a time. */
export type View = { kind: "none" } | Watching | { kind: "lines"; task: Task; stream: LineStream };

const NO_VIEW: View = Object.freeze({ kind: "none" });

/**
 * A client that said hello. Subscribing is beside its view, not one of them: `attach` subscribes
 * on its own connection to hear of the other tasks (ui-attach.ts).
 */
export interface Peer {
  stage: "greeted";
  conn: Connection;
  hello: Hello;
  subscribed: boolean;
  view: View;
}

export function greeted(greeting: Greeting, hello: Hello): Peer {
  return { stage: "greeted", conn: greeting.conn, hello, subscribed: false, view: NO_VIEW };
}

/** This peer's view if it shows `task`'s output. */
export function watching(peer: Peer, task: Task): Watching | null {
  const view = peer.view;
  return (view.kind === "attached" || view.kind === "following") && view.task === task ? view : null;
}

/** Whether `task`'s output goes to this peer. */
export function watches(peer: Peer, task: Task): boolean {
  return watching(peer, task) !== null;
}

/** Whether this peer is attached to `task`. */
export function isAttachedTo(peer: Peer, task: Task): boolean {
  return peer.view.kind === "attached" && peer.view.task === task;
}

/**
 * Looking is not answering: attaching leaves the task's attention as it is (a `!` stays until the
 * user types into the task, daemon.ts data()), so passing through with `Ctrl-\ w` keeps the triage list.
 * Without a size (the web view) the task keeps its own. Whether the task's size changed.
 */
export function attach(peer: Peer, task: Task, size: { cols: number; rows: number } | null): boolean {
  detach(peer);
  const view: Attached = { kind: "attached", task, held: null, inputBlocked: false };
  peer.view = view;
  const resized = size !== null && task.resize(size.cols, size.rows);
  sendScreen(peer, view);
  return resized;
}

export function follow(peer: Peer, task: Task, lines?: number): void {
  detach(peer);
  const view: Watching = { kind: "following", task, held: null };
  peer.view = view;
  sendText(peer, view, lines);
}

export function detach(peer: Peer): void {
  unblockInput(peer);
  if (peer.view.kind === "lines") peer.view.stream.stop();
  peer.view = NO_VIEW;
}

/** The stream ends (the task exited, was removed, the daemon stops): the client is told why. */
export function endStream(peer: Peer, reason: "exited" | "removed" | "shutdown", info: TaskInfo): void {
  if (peer.view.kind === "lines") {
    // Every line the task printed goes first, the one it left unfinished included.
    const lines = peer.view.stream;
    peer.view = NO_VIEW;
    return lines.end(() => {
      detach(peer);
      peer.conn.send({ type: "attach-end", reason, task: info });
    });
  }
  detach(peer);
  peer.conn.send({ type: "attach-end", reason, task: info });
}

/** Whether `task`'s lines go to this peer. */
export function followsLines(peer: Peer, task: Task): boolean {
  return peer.view.kind === "lines" && peer.view.task === task;
}

/**
 * For `logs --follow`: the last `count` lines of the task's history, then each line as the task
 * completes it (term-lines.ts), until it exits (daemon.ts ends the stream) or the peer goes.
 */
export function followLines(peer: Peer, task: Task, count?: number): void {
  detach(peer);
  const stream = new LineStream(peer);
  peer.view = { kind: "lines", task, stream };
  task
    .followLines((line) => stream.line(line))
    .then(({ history, watch }) => {
      stream.begin(count === undefined ? history : history.slice(Math.max(0, history.length - count)), watch);
      // A task that has already exited prints nothing more: its history is all there is.
      if (!watch && peer.view.kind === "lines" && peer.view.stream === stream) endStream(peer, "exited", task.info());
    });
}

/**
 * For `logs --follow` of a task whose log is kept: the log on disk (`filter` chosen, each line after
 * its time with `timestamps`), then each line as the log's writer cuts it (daemon-logs.ts
 * TaskLog.follow), until the task exits or the peer goes. One store, read and followed in one turn.
 */
export function followLog(peer: Peer, task: Task, log: TaskLog, filter: LogFilter, timestamps: boolean): void {
  detach(peer);
  const stream = new LineStream(peer);
  peer.view = { kind: "lines", task, stream };
  const followed = log.follow(filter, timestamps, (line) => stream.line(line));
  stream.begin(followed.kept, followed);
  if (!task.running) endStream(peer, "exited", task.info());
}

/** What a line stream follows: the emulator's lines (term-lines.ts) or the log's (daemon-logs.ts). */
interface LineSource {
  stop(): void;
  /** The line the run left without its line feed, or null (given through the stream meanwhile). */
  unfinished(): string | null;
}

/**
 * One `logs --follow` client's lines, in order: the history first, then lines as they complete,
 * sent in batches (one frame per turn of the event loop, not per line). A client megabytes behind
 * is sent a count of the lines it missed instead (wire-protocol.ts LinesSkipped), never more memory.
 */
export class LineStream {
  private pending: string[] = [];
  private started = false;
  private queued = false;
  private skipped = 0;
  private watch: LineSource | null = null;
  private stopped = false;
  private ending: (() => void) | null = null;

  constructor(private readonly peer: Peer) {}

  line(line: string): void {
    this.pending.push(line);
    if (!this.started || this.queued) return;
    this.queued = true;
    setImmediate(() => {
      this.queued = false;
      this.flush();
    });
  }

  /** The history, taken where the watch began: lines the watch gave meanwhile come after it. */
  begin(history: string[], watch: LineSource | null): void {
    if (this.stopped) return watch?.stop();
    this.watch = watch;
    this.pending = history.concat(this.pending);
    this.started = true;
    this.flush();
    if (this.ending) this.end(this.ending);
  }

  /** The task ended: the line it left unfinished, everything pending, then `done`. */
  end(done: () => void): void {
    if (!this.started) {
      this.ending = done;
      return;
    }
    let unfinished: string | null = null;
    try {
      unfinished = this.watch?.unfinished() ?? null;
    } catch {
      // the emulator was already let go (a task that exited before the watch began)
    }
    if (unfinished) this.pending.push(unfinished);
    this.flush(true);
    this.stop();
    done();
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.watch = null;
  }

  /** `last`: the stream ends, so what is pending (one turn's lines at most) and the count of the missed go whatever the queue. */
  private flush(last = false): void {
    if (this.stopped) return;
    const conn = this.peer.conn;
    if (!last && this.pending.length > 0 && conn.queuedBytes > MAX_LINES_BEHIND) {
      this.skipped += this.pending.length;
      this.pending = [];
      return;
    }
    if (this.skipped > 0) conn.send({ type: "skipped", lines: this.skipped });
    this.skipped = 0;
    if (this.pending.length > 0) conn.sendLines(`${this.pending.join("\n")}\n`);
    this.pending = [];
  }
}

/** Keystrokes stopped for the attached task's unread input (daemon.ts data()). */
export function blockInput(peer: Peer, view: Attached): void {
  view.inputBlocked = true;
  peer.conn.pauseReading();
}

export function unblockInput(peer: Peer): void {
  if (peer.view.kind !== "attached" || !peer.view.inputBlocked) return;
  peer.view.inputBlocked = false;
  peer.conn.resumeReading();
}

/** A chunk the task printed: live, or held behind a screen still being taken. */
export function forwardOutput(peer: Peer, view: Watching, chunk: Uint8Array): void {
  if (view.held) view.held.push(chunk);
  else peer.conn.sendOutput(chunk, outputHighWater(view.task.cols, view.task.rows));
}

/** A client that fell behind during a flood, or came back from behind: the screen as it stands now. */
export function resync(peer: Peer): void {
  if (peer.view.kind === "attached") sendScreen(peer, peer.view);
  else if (peer.view.kind === "following") sendText(peer, peer.view);
}

/** The last screen of a task that just exited, for a client that fell behind and would miss it. */
export function sendFinalScreen(peer: Peer, task: Task): void {
  if (peer.view.kind === "attached") sendWholeScreen(peer, task.screen.serializeForAttach(), task);
  else peer.conn.sendScreen(textView(task.screen.text()));
}

/** The screen exactly as it stands after every byte printed so far; output after that follows it live. */
export function sendScreen(peer: Peer, view: Watching): void {
  sendAtCurrentPoint(peer, view, view.task.screen.snapshotForAttach(), (screen) => screen);
}

/** For `peek --follow`: the screen as text, then the output that follows it. */
function sendText(peer: Peer, view: Watching, lines?: number): void {
  sendAtCurrentPoint(peer, view, view.task.screen.textAtCurrentPoint(lines), textView);
}

/**
 * Sends a view of the screen taken at an exact point of the output stream, then the output that
 * came while the view waited for the parser: no gap, no overlap.
 */
function sendAtCurrentPoint(peer: Peer, view: Watching, screen: Promise<string>, frame: (screen: string) => string): void {
  if (view.held) return;
  const held: Uint8Array[] = (view.held = []);
  screen.then((taken) => {
    // The peer detached, or watches anew (with its own screen under way), meanwhile.
    if (peer.view !== view) return;
    view.held = null;
    const { task } = view;
    if (view.kind === "attached") sendWholeScreen(peer, frame(taken), task);
    else peer.conn.sendScreen(frame(taken));
    for (const chunk of held) peer.conn.sendOutput(chunk, outputHighWater(task.cols, task.rows));
  });
}

/** A screen for an attached client, announced so a client waiting for a redraw knows it from output. */
function sendWholeScreen(peer: Peer, screen: string, task: Task): void {
  peer.conn.send({ type: "screen", fullScreen: task.screen.fullScreen() });
  peer.conn.sendScreen(screen);
}

function textView(text: string): string {
  return text ? `${text}\n` : "";
}
