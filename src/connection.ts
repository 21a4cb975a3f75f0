// The daemon's side of one client connection: framing in both directions and output backpressure.
// A client that sends a bad frame is dropped; a client that reads slowly stops getting raw output
// (its queue is bounded) and gets a fresh screen once it has drained, so it never slows a task.
import type { Socket } from "node:net";
import { FrameDecoder, FrameError, FrameKind, MAX_CLIENT_FRAME, decodeJson, encodeControl, encodeData } from "./protocol.ts";

/**
 * Pending output beyond this and the client is treated as slow: a few screens' worth, as tmux does.
 * A client that cannot keep up gets a fresh screen instead of a backlog it would take seconds to
 * draw, and a task's firehose is never mirrored byte for byte into a terminal that cannot take it.
 */
export function outputHighWater(cols: number, rows: number): number {
  return Math.max(64 * 1024, cols * rows * 8);
}

export interface ConnectionHandler {
  control(conn: Connection, message: unknown): void;
  data(conn: Connection, bytes: Uint8Array): void;
  closed(conn: Connection): void;
  /** The slow client has drained; it needs a fresh screen of what it follows. */
  caughtUp(conn: Connection): void;
}

export class Connection {
  private readonly decoder = new FrameDecoder(MAX_CLIENT_FRAME);
  private behind = false;
  private closedAlready = false;

  constructor(
    readonly socket: Socket,
    private readonly handler: ConnectionHandler,
  ) {
    socket.on("data", (chunk) => this.receive(chunk));
    socket.on("drain", () => this.drained());
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
  sendOutput(bytes: Uint8Array | string, highWater: number): void {
    if (this.closedAlready || this.behind) return;
    if (this.socket.writableLength > highWater) {
      this.behind = true;
      return;
    }
    this.socket.write(encodeData(bytes));
  }

  /** Output that must arrive whole (a serialized screen), whatever the queue. */
  sendScreen(bytes: string): void {
    if (this.closedAlready) return;
    this.behind = false;
    this.socket.write(encodeData(bytes));
  }

  private drained(): void {
    if (!this.behind || this.closedAlready) return;
    this.handler.caughtUp(this);
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
