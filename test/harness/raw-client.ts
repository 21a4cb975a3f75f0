// One hand-driven protocol client for tests: to send what the real client never would, to make
// many requests on one connection, and to read the fleet without starting a CLI process per poll.
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { FrameDecoder, FrameKind, MAX_DAEMON_FRAME, PROTOCOL_VERSION, decodeJson, encodeControl, encodeData } from "../../src/wire-framing.ts";
import { VERSION } from "../../src/version.ts";
import type { DaemonStatus } from "../../src/wire-protocol.ts";

export interface RawReply {
  ok: boolean;
  result?: unknown;
  error?: string;
}

export class RawClient {
  readonly socket: Socket;
  /** Every control message received (replies, events, refusals), in arrival order. */
  readonly messages: any[] = [];
  /** Bytes of control frames received so far. */
  controlBytes = 0;
  /** Data frames (screens, task output) received so far, as text, and their size in bytes. */
  data = "";
  dataBytes = 0;
  closed = false;
  private readonly text = new TextDecoder();
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: RawReply) => void>();
  private readonly decoder = new FrameDecoder(MAX_DAEMON_FRAME);

  /** Connects without a handshake: `hello()` is the caller's to send, or not. */
  constructor(path: string) {
    this.socket = connect(path);
    this.socket.on("data", (chunk: Buffer) => this.receive(chunk));
    this.socket.on("close", () => this.onClose());
    this.socket.on("error", () => {});
  }

  /** Connected and greeted, as `env` from `cwd`; rejects when nothing listens. */
  static open(fleet: { sandbox: { runtime: string; home: string }; env: Record<string, string> }, cwd = fleet.sandbox.home): Promise<RawClient> {
    const client = new RawClient(join(fleet.sandbox.runtime, "default.sock"));
    return new Promise((resolve, reject) => {
      client.socket.once("error", reject);
      client.socket.once("connect", () => {
        client.hello(fleet.env, cwd);
        resolve(client);
      });
    });
  }

  hello(env: Record<string, string> = { PATH: process.env.PATH ?? "" }, cwd = "/"): void {
    this.socket.write(encodeControl({ type: "hello", protocol: PROTOCOL_VERSION, version: VERSION, cwd, env, cols: 80, rows: 24 }));
  }

  /** Resolves with the reply; a dropped connection resolves too, as a failure. */
  request(op: string, args: Record<string, unknown> = {}): Promise<RawReply> {
    if (this.closed) return Promise.resolve({ ok: false, error: "connection closed" });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(encodeControl({ type: "request", id, op, args }));
    });
  }

  /** What the daemon's status says of its clients: queues, waiting events, clients dropped for not reading. */
  async clientStats(): Promise<DaemonStatus["clients"]> {
    const reply = await this.request("status");
    if (!reply.ok) throw new Error(`status failed: ${reply.error}`);
    return (reply.result as DaemonStatus).clients;
  }

  /** Raw input, as an attached client's keystrokes. */
  sendData(bytes: Uint8Array): void {
    this.socket.write(encodeData(bytes));
  }

  /** Stops reading: the daemon's writes to this client pile up in its own queue. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    for (const frame of this.decoder.push(chunk)) {
      if (frame.kind === FrameKind.data) {
        this.dataBytes += frame.payload.length;
        this.data += this.text.decode(frame.payload, { stream: true });
        continue;
      }
      this.controlBytes += frame.payload.length;
      const message = decodeJson(frame.payload) as any;
      this.messages.push(message);
      if (message.type !== "reply") continue;
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    }
  }

  private onClose(): void {
    this.closed = true;
    for (const settle of this.waiting.values()) settle({ ok: false, error: "connection closed" });
    this.waiting.clear();
  }
}
