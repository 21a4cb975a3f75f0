// A go-between on the daemon's socket that makes a loaded machine's timing certain: it holds the
// daemon's reply to one request and hands it over later, with what followed it, in order. The
// daemon and the client are the real ones; only the moment bytes arrive is chosen. It also records
// the connections clients open and the requests on each (what a command costs the daemon).
import { mkdtempSync, rmSync } from "node:fs";
import { type Server, type Socket, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { concatBytes } from "../../src/bytes.ts";
import { FrameDecoder, FrameKind, MAX_CLIENT_FRAME, MAX_DAEMON_FRAME, decodeJson, encodeFrame } from "../../src/wire-framing.ts";

/** `next-write`: the reply goes with the daemon's next write, so the client reads both at once; `release`: when release() is called. */
export type HoldUntil = "next-write" | "release";

interface Hold {
  op: string;
  until: HoldUntil;
  requestId: number | null;
  held: Uint8Array[] | null;
  client: Socket | null;
  onHeld(): void;
}

export class HeldReplyProxy {
  /** The runtime directory a client is pointed at (FLEETCOM_RUNTIME_DIR) to go through the proxy. */
  readonly runtime = mkdtempSync(join(tmpdir(), "fleetcom-proxy-"));
  private readonly server: Server;
  private readonly sockets: Socket[] = [];
  private hold: Hold | null = null;
  /** Every connection a client opened through the proxy, each with the ops it requested, in order. */
  readonly connections: string[][] = [];

  constructor(daemonSocket: string) {
    this.server = createServer((client) => this.relay(client, connect(daemonSocket)));
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(join(this.runtime, "default.sock"), resolve));
  }

  /** Holds the reply to the next `op` request; resolves once it is held. */
  holdReply(op: string, until: HoldUntil): Promise<void> {
    return new Promise((onHeld) => (this.hold = { op, until, requestId: null, held: null, client: null, onHeld }));
  }

  /** Hands over the held reply and everything the daemon wrote behind it. */
  release(): void {
    const hold = this.hold;
    this.hold = null;
    if (hold?.held && hold.client) hold.client.write(concatBytes(hold.held));
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    rmSync(this.runtime, { recursive: true, force: true });
  }

  private relay(client: Socket, daemon: Socket): void {
    this.sockets.push(client, daemon);
    const ops: string[] = [];
    this.connections.push(ops);
    for (const s of [client, daemon]) s.on("error", () => {});
    client.on("close", () => daemon.destroy());
    daemon.on("close", () => client.destroy());
    const fromClient = new FrameDecoder(MAX_CLIENT_FRAME);
    client.on("data", (chunk: Buffer) => {
      for (const frame of fromClient.push(chunk)) {
        const message = controlMessage(frame.kind, frame.payload);
        if (message?.type === "request" && message.op !== undefined) ops.push(message.op);
        const hold = this.hold;
        if (hold && hold.requestId === null && message?.type === "request" && message.op === hold.op) hold.requestId = message.id ?? null;
      }
      daemon.write(chunk);
    });
    const fromDaemon = new FrameDecoder(MAX_DAEMON_FRAME);
    daemon.on("data", (chunk: Buffer) => {
      const out: Uint8Array[] = [];
      for (const frame of fromDaemon.push(chunk)) {
        const bytes = encodeFrame(frame.kind, frame.payload);
        const message = controlMessage(frame.kind, frame.payload);
        const hold = this.hold;
        if (hold && hold.held === null && message?.type === "reply" && message.id === hold.requestId) {
          if (out.length > 0) client.write(concatBytes(out.splice(0)));
          hold.held = [bytes];
          hold.client = client;
          hold.onHeld();
        } else if (hold?.held && hold.until === "release") hold.held.push(bytes);
        else if (hold?.held) {
          out.push(...hold.held, bytes);
          this.hold = null;
        } else out.push(bytes);
      }
      if (out.length > 0) client.write(concatBytes(out));
    });
  }
}

function controlMessage(kind: number, payload: Uint8Array): { type?: string; op?: string; id?: number } | null {
  return kind === FrameKind.control ? (decodeJson(payload) as { type?: string; op?: string; id?: number }) : null;
}
