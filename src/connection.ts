// The daemon's side of one client connection: framing in both directions and output backpressure.
// A client that sends a bad frame is dropped. A client that reads slowly, or a task that prints
// faster than a terminal can usefully draw, stops the raw output: the client gets a fresh screen
// once its queue has drained instead, so it never slows a task and never mirrors a firehose.
import type { Socket } from "node:net";
import { FrameDecoder, FrameError, FrameKind, MAX_CLIENT_FRAME, decodeJson, encodeControl, encodeData } from "./protocol.ts";

/**
 * Raw output a client may have pending, and may be sent per rate window: a few screens' worth, as
 * tmux does. Busy logs stay byte-exact; `cat` of a huge file is drawn as a few screens a second.
 */
export function outputHighWater(cols: number, rows: number): number {
  return Math.max(64 * 1024, cols * rows * 8);
}

const RATE_WINDOW_MS = 100;
/** How often a client that is behind is checked for having drained, i.e. its screen refresh rate under a flood. */
const CATCH_UP_CHECK_MS = 30;

export interface ConnectionHandler {
  control(conn: Connection, message: unknown): void;
  data(conn: Connection, bytes: Uint8Array): void;
  closed(conn: Connection): void;
  /** The slow client has drained; it needs a fresh screen of what it follows. */
  caughtUp(conn: Connection): void;
}

export class Connection {
  private readonly decoder = new FrameDecoder(MAX_CLIENT_FRAME);
  private isBehind = false;
  private closedAlready = false;

  /** Raw output is being skipped; a fresh screen is due. */
  get behind(): boolean {
    return this.isBehind;
  }
  private windowStart = 0;
  private windowBytes = 0;

  constructor(
    readonly socket: Socket,
    private readonly handler: ConnectionHandler,
  ) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", () => this.close());
    socket.on("close", () => this.close());
  }

  private receive(chunk: Uint8Array): void {
    if (this.closedAlready) return;
    try {
      for (const frame of this.decoder.push(chunk)) {
        if (frame.kind === FrameKind.data) this.handler.data(this, frame.payload);
        else this.handler.control(this, decodeJson(frame.payload));
        if (this.closedAlready) return;
      }
    } catch (error) {
      const reason = error instanceof FrameError || error instanceof SyntaxError ? error.message : String(error);
      this.drop(`bad frame: ${reason}`);
    }
  }

  send(message: unknown): void {
    if (this.closedAlready) return;
    this.socket.write(encodeControl(message));
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
    if (this.socket.writableLength > highWater || this.windowBytes > highWater) return this.fallBehind();
    this.socket.write(encodeData(bytes));
  }

  private fallBehind(): void {
    this.isBehind = true;
    setTimeout(() => this.checkCaughtUp(), CATCH_UP_CHECK_MS);
  }

  private checkCaughtUp(): void {
    if (!this.isBehind || this.closedAlready) return;
    if (this.socket.writableLength > 0) return void setTimeout(() => this.checkCaughtUp(), CATCH_UP_CHECK_MS);
    this.windowStart = performance.now();
    this.windowBytes = 0;
    this.handler.caughtUp(this);
  }

  /** Output that must arrive whole (a serialized screen), whatever the queue. */
  sendScreen(bytes: string): void {
    if (this.closedAlready) return;
    this.isBehind = false;
    this.socket.write(encodeData(bytes));
  }

  /** Refuse the client with a message, then close. */
  drop(error: string): void {
    if (this.closedAlready) return;
    this.send({ type: "refused", error });
    this.socket.end();
    this.close();
  }

  close(): void {
    if (this.closedAlready) return;
    this.closedAlready = true;
    this.socket.destroySoon?.() ?? this.socket.end();
    this.handler.closed(this);
  }

  get closed(): boolean {
    return this.closedAlready;
  }
}
