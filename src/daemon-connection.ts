// The daemon's side of one client connection: framing in both directions and output backpressure.
// A client that sends a bad frame is dropped. A client that reads slowly, or a task that prints
// faster than a terminal can usefully draw, stops the raw output: the client gets a fresh screen
// once its queue has drained instead, so it never slows a task and never mirrors a firehose.
//
// INVARIANT: what the daemon holds for one client is bounded whatever the client does. Raw output
// stops past a few screens; events past EVENT_HIGH_WATER wait coalesced, one per task (the latest
// state), until the socket drains; anything else (replies, attach notices) queued past
// MAX_BEHIND_BYTES plus the largest screen in flight drops the client with a reason. Replies count
// before they are built: at most MAX_REQUESTS_IN_FLIGHT of a client's requests are answered at a time
// (the rest of what it sent waits, unread, in the kernel), and a request from a client already past
// the bound drops it without being done.
import type { PeerSocket } from "./daemon-socket.ts";
import type { DaemonEvent, DaemonMessage, Refusal, TaskEvent } from "./wire-protocol.ts";
import { setImmediate } from "node:timers";
import { type Frame, FrameDecoder, FrameError, FrameKind, MAX_CLIENT_FRAME, decodeJson, encodeControl, encodeData } from "./wire-framing.ts";
import { mebibytes } from "./text-size.ts";

/**
 * Raw output a client may have pending, and may be sent per rate window: a few screens' worth, as
 * tmux does. Busy logs stay byte-exact; `cat` of a huge file is drawn as a few screens a second.
 */
export function outputHighWater(cols: number, rows: number): number {
  return Math.max(64 * 1024, cols * rows * 8);
}

const RATE_WINDOW_MS = 100;
/** Queued bytes past which events wait, coalesced, for the socket to drain. */
export const EVENT_HIGH_WATER = 64 * 1024;
/**
 * Queued bytes, beyond the largest screen sent since the queue was last empty, past which a client
 * that still is not reading is dropped: it sends requests whose replies it never takes.
 */
export const MAX_BEHIND_BYTES = 8 * 1024 * 1024;
/**
 * A client's requests being answered at once. Pipelined past it, the rest wait: 300 `peek --history`
 * requests in one read were all built before the first reply was queued (the daemon's memory grew by
 * hundreds of megabytes and it served no one else meanwhile: docs/benchmarks.md), so the bound above saw none of them in time.
 */
const MAX_REQUESTS_IN_FLIGHT = 8;
/** How long a dropped client has to read its refusal before its queue is thrown away. */
const DROP_LINGER_MS = 10_000;
/** How often a client that is behind is checked for having drained, i.e. its screen refresh rate under a flood. */
const CATCH_UP_CHECK_MS = 30;

export interface ConnectionHandler {
  /** A request's promise settles once it is answered; it counts as in flight until then. */
  control(conn: Connection, message: unknown): void | Promise<void>;
  data(conn: Connection, bytes: Uint8Array): void;
  closed(conn: Connection): void;
  /** The slow client has drained; it needs a fresh screen of what it follows. */
  caughtUp(conn: Connection): void;
}

export class Connection {
  private readonly decoder = new FrameDecoder(MAX_CLIENT_FRAME);
  private isBehind = false;
  private closedAlready = false;
  /** Frames read and not yet handled, in order from `nextHeld`: they wait while too many requests are in flight. */
  private held: Frame[] = [];
  private nextHeld = 0;
  private inFlight = 0;
  /** Reading stopped for the client's keystrokes (the task is not reading its input). */
  private inputPaused = false;

  /** Raw output is being skipped; a fresh screen is due. */
  get behind(): boolean {
    return this.isBehind;
  }
  private windowStart = 0;
  private windowBytes = 0;
  /** Events waiting for the socket to drain: the latest per task, in the order they first waited. */
  private readonly waiting = new Map<string, DaemonEvent>();
  /** The largest screen queued since the queue was last empty: a big attach is not falling behind. */
  private screenAllowance = 0;

  constructor(
    readonly socket: PeerSocket,
    private readonly handler: ConnectionHandler,
    /** Called once when the client is dropped for not reading. */
    private readonly droppedBehind: () => void = () => {},
  ) {
    socket.onData((chunk) => this.receive(chunk));
    socket.onClose(() => this.close());
    socket.onDrain(() => this.flushWaiting());
  }

  /** Stop taking this client's frames (its input has nowhere to go yet); the kernel holds them. */
  pauseReading(): void {
    this.inputPaused = true;
    this.updateReading();
  }

  resumeReading(): void {
    this.inputPaused = false;
    this.updateReading();
  }

  /** The socket is read while nothing holds it back: input the task has not taken, or frames waiting their turn. */
  private updateReading(): void {
    if (this.closedAlready) return;
    if (this.inputPaused || this.holdsFrames()) this.socket.pause();
    else this.socket.resume();
  }

  /** Bytes written to this client and not yet taken by the kernel. */
  get queuedBytes(): number {
    return this.socket.queuedBytes;
  }

  /** Events held back, coalesced, until the client reads again. */
  get waitingEvents(): number {
    return this.waiting.size;
  }

  private receive(chunk: Uint8Array): void {
    if (this.closedAlready) return;
    try {
      for (const frame of this.decoder.push(chunk)) this.held.push(frame);
    } catch (error) {
      return this.badFrame(error);
    }
    this.serve();
  }

  /** Handles the frames read, in order, until MAX_REQUESTS_IN_FLIGHT requests await their replies. */
  private serve(): void {
    while (this.holdsFrames() && !this.closedAlready && this.inFlight < MAX_REQUESTS_IN_FLIGHT) {
      const frame = this.held[this.nextHeld++]!;
      if (frame.kind === FrameKind.data) {
        this.handler.data(this, frame.payload);
        continue;
      }
      let message: unknown;
      try {
        message = decodeJson(frame.payload);
      } catch (error) {
        return this.badFrame(error);
      }
      // A reply this client could not take drops it now, before the work of building the reply.
      if (this.tooFarBehind()) return;
      const answered = this.handler.control(this, message);
      if (answered) this.awaitAnswer(answered);
    }
    this.updateReading();
  }

  /** A request's turn ends with its reply; the next waits a turn of the event loop, so one client cannot hold the others up. */
  private awaitAnswer(answered: Promise<void>): void {
    this.inFlight += 1;
    const done = () => {
      this.inFlight -= 1;
      if (this.holdsFrames()) setImmediate(() => this.serve());
    };
    answered.then(done, done);
  }

  private holdsFrames(): boolean {
    if (this.nextHeld < this.held.length) return true;
    this.held = [];
    this.nextHeld = 0;
    return false;
  }

  private badFrame(error: unknown): void {
    const reason = error instanceof FrameError || error instanceof SyntaxError ? error.message : String(error);
    this.drop(`bad frame: ${reason}`);
  }

  /** A message that must arrive (a reply, an attach notice); a client this far behind is dropped. */
  send(message: DaemonMessage): void {
    if (this.closedAlready || this.tooFarBehind()) return;
    this.write(encodeControl(message));
  }

  /** Past MAX_BEHIND_BYTES (beyond the largest screen in flight) the client is dropped, with the reason. */
  private tooFarBehind(): boolean {
    const queued = this.queuedBytes;
    if (queued <= MAX_BEHIND_BYTES + this.screenAllowance) return false;
    this.droppedBehind();
    this.drop(`dropped: this client stopped reading (${mebibytes(queued)} queued for it)`);
    return true;
  }

  /**
   * A task event (or another latest-state notice). While the client is behind it waits in place of
   * any earlier one for the same task, so a client that stops reading costs one entry per task.
   */
  sendEvent(event: DaemonEvent): void {
    if (this.closedAlready) return;
    if (this.waiting.size === 0 && this.queuedBytes <= EVENT_HIGH_WATER) return this.write(encodeControl(event));
    const key = eventKey(event);
    const merged = coalesce(this.waiting.get(key), event);
    if (merged === null) this.waiting.delete(key);
    else this.waiting.set(key, merged);
  }

  private flushWaiting(): void {
    if (this.closedAlready) return;
    for (const [key, event] of this.waiting) {
      if (this.queuedBytes > EVENT_HIGH_WATER) return;
      this.waiting.delete(key);
      this.write(encodeControl(event));
    }
  }

  private write(frame: Uint8Array): void {
    if (this.socket.queuedBytes === 0) this.screenAllowance = 0;
    this.socket.write(frame);
  }

  /** Raw task output; skipped while the client is behind (it gets a fresh screen later). */
  sendOutput(bytes: Uint8Array, highWater: number): void {
    if (this.closedAlready || this.isBehind) return;
    const now = performance.now();
    if (now - this.windowStart > RATE_WINDOW_MS) {
      this.windowStart = now;
      this.windowBytes = 0;
    }
    this.windowBytes += bytes.length;
    if (this.socket.queuedBytes > highWater || this.windowBytes > highWater) return this.fallBehind();
    this.write(encodeData(bytes));
  }

  private fallBehind(): void {
    this.isBehind = true;
    setTimeout(() => this.checkCaughtUp(), CATCH_UP_CHECK_MS);
  }

  private checkCaughtUp(): void {
    if (!this.isBehind || this.closedAlready) return;
    if (this.socket.queuedBytes > 0) return void setTimeout(() => this.checkCaughtUp(), CATCH_UP_CHECK_MS);
    this.windowStart = performance.now();
    this.windowBytes = 0;
    this.handler.caughtUp(this);
  }

  /** Output that must arrive whole (a serialized screen), whatever the queue. */
  sendScreen(bytes: string): void {
    if (this.closedAlready) return;
    this.isBehind = false;
    const frame = encodeData(bytes);
    this.write(frame);
    this.screenAllowance = Math.max(this.screenAllowance, frame.length);
  }

  /** Lines for `logs --follow`, which must arrive whole; the caller bounds what it queues (daemon-peers.ts). */
  sendLines(text: string): void {
    if (this.closedAlready) return;
    this.write(encodeData(text));
  }

  /**
   * Refuse the client with a message, then close. The refusal goes after whatever is queued, so a
   * client that reads again can still print it; one that never does is cut off after a while.
   */
  drop(error: string, daemon?: Refusal["daemon"]): void {
    if (this.closedAlready) return;
    this.write(encodeControl({ type: "refused", error, ...(daemon && { daemon }) } satisfies Refusal));
    this.waiting.clear();
    this.socket.end();
    if (this.socket.queuedBytes > 0) setTimeout(() => this.socket.destroy(), DROP_LINGER_MS).unref?.();
    this.close();
  }

  close(): void {
    if (this.closedAlready) return;
    this.closedAlready = true;
    this.waiting.clear();
    this.held = [];
    this.nextHeld = 0;
    this.socket.end();
    this.handler.closed(this);
  }

  get closed(): boolean {
    return this.closedAlready;
  }
}

function eventKey(event: DaemonEvent): string {
  return event.type === "event" ? `task ${event.task.id}` : event.type;
}

/**
 * What one waiting event becomes when a later one for the same task (or notice) arrives: the later
 * state, still announced as `created` if the client never heard of the task, and nothing at all
 * for a task created and removed while it was not reading. Null means drop the entry.
 */
export function coalesce(earlier: DaemonEvent | undefined, later: DaemonEvent): DaemonEvent | null {
  if (earlier?.type !== "event" || later.type !== "event") return later;
  if (earlier.event !== "created") return later;
  if (later.event === "removed") return null;
  return { ...later, event: "created" } satisfies TaskEvent;
}
