// A client's connection to the daemon: handshake, requests with one reply each, events, and the
// raw data stream of an attached task. Starts the daemon when none is running. No arktype here:
// this is on the start-up path of ls, attach, send and peek.
import { spawn } from "node:child_process";
import { existsSync, openSync, closeSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { EXIT, UserError } from "./errors.ts";
import type { AttachEnd, DaemonMessage, Reply, TaskEvent } from "./messages.ts";
import { logPath, runtimeDir, socketPath } from "./paths.ts";
import { FrameDecoder, FrameKind, MAX_DAEMON_FRAME, PROTOCOL_VERSION, decodeJson, encodeControl, encodeData } from "./protocol.ts";
import { selfCommand } from "./runtime.ts";
import { checkRuntimeDir, ensureRuntimeDir } from "./runtime-dir.ts";
import { VERSION } from "./version.ts";

const AUTOSTART_TIMEOUT_MS = 8_000;

export interface ClientHandlers {
  event?(event: TaskEvent): void;
  data?(bytes: Uint8Array): void;
  attachEnd?(end: AttachEnd): void;
  /** The next data is a whole screen of the attached task (messages.ts ScreenFollows). */
  screen?(): void;
  closed?(): void;
}

export class DaemonClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly decoder = new FrameDecoder(MAX_DAEMON_FRAME);
  handlers: ClientHandlers = {};
  daemonPid = 0;

  private constructor(private readonly socket: Socket) {}

  static async open(options: { autostart?: boolean; size?: { cols: number; rows: number } } = {}): Promise<DaemonClient> {
    const socket = await connectSocket(options.autostart ?? true);
    const client = new DaemonClient(socket);
    await client.handshake(options.size ?? terminalSize());
    return client;
  }

  private handshake(size: { cols: number; rows: number }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.onGreeting = (message) => {
        if (message.type === "welcome") {
          this.daemonPid = message.pid;
          resolve();
        } else if (message.type === "refused") reject(new UserError(message.error, EXIT.unreachable));
      };
      this.socket.on("data", (chunk: Buffer) => this.receive(chunk));
      this.socket.on("close", () => this.onClosed(reject));
      this.socket.on("error", () => {});
      const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
      this.send({ type: "hello", protocol: PROTOCOL_VERSION, version: VERSION, cwd: process.cwd(), env, ...size });
    });
  }

  private onGreeting: ((message: DaemonMessage) => void) | null = null;

  private receive(chunk: Uint8Array): void {
    for (const frame of this.decoder.push(chunk)) {
      if (frame.kind === FrameKind.data) {
        this.handlers.data?.(frame.payload);
        continue;
      }
      const message = decodeJson(frame.payload) as DaemonMessage;
      if (message.type === "welcome" || message.type === "refused") {
        if (message.type === "refused" && !this.onGreeting) process.stderr.write(`fleetcom: ${message.error}\n`);
        this.onGreeting?.(message);
        this.onGreeting = null;
      } else if (message.type === "reply") this.settle(message);
      else if (message.type === "event") this.handlers.event?.(message);
      else if (message.type === "attach-end") this.handlers.attachEnd?.(message);
      else if (message.type === "screen") this.handlers.screen?.();
    }
  }

  private settle(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.result);
    else waiter.reject(new UserError(reply.error ?? "the daemon refused the request"));
  }

  private onClosed(rejectHandshake: (e: Error) => void): void {
    const lost = new UserError("lost the connection to the daemon", EXIT.unreachable);
    rejectHandshake(lost);
    for (const waiter of this.pending.values()) waiter.reject(lost);
    this.pending.clear();
    this.handlers.closed?.();
  }

  request<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.send({ type: "request", id, op, args });
    });
  }

  sendData(bytes: Uint8Array | string): void {
    this.socket.write(encodeData(bytes));
  }

  private send(message: unknown): void {
    this.socket.write(encodeControl(message));
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Ends the connection without keeping the process alive for the daemon's side of the close. */
  close(): void {
    this.socket.end();
    this.socket.unref();
  }
}

export function terminalSize(): { cols: number; rows: number } {
  const out = process.stdout;
  if (out.isTTY && out.columns && out.rows) return { cols: out.columns, rows: out.rows };
  return { cols: 120, rows: 40 };
}

function tryConnect(path: string): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      resolve(socket);
    });
    socket.once("error", () => resolve(null));
  });
}

async function connectSocket(autostart: boolean): Promise<Socket> {
  const dir = runtimeDir();
  if (existsSync(dir)) checkRuntimeDir(dir);
  const path = socketPath();
  const first = await tryConnect(path);
  if (first) return first;
  if (!autostart) throw new UserError("the daemon is not running", EXIT.unreachable);
  ensureRuntimeDir(dir);
  startDaemon();
  const deadline = Date.now() + AUTOSTART_TIMEOUT_MS;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    const socket = await tryConnect(path);
    if (socket) return socket;
  }
  throw new UserError(`the daemon did not start; see ${logPath()}`, EXIT.unreachable);
}

function startDaemon(): void {
  const log = openSync(logPath(), "a", 0o600);
  const [command, ...args] = selfCommand();
  const child = spawn(command!, [...args, "daemon"], { detached: true, stdio: ["ignore", log, log], env: process.env });
  child.unref();
  closeSync(log);
}

/** Opens a connection for one command's worth of requests and always closes it. */
export async function withDaemon<T>(work: (client: DaemonClient) => Promise<T>, options: { autostart?: boolean } = {}): Promise<T> {
  const client = await DaemonClient.open(options);
  try {
    return await work(client);
  } finally {
    client.close();
  }
}
