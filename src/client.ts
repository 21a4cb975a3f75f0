import { connectForward, connectVerified, openTransport, type Transport } from "./client-connect.ts";
import type { ClientSocket } from "./client-socket.ts";
import type { RemoteHost } from "./client-ssh.ts";
import { stdoutTerminalSize } from "./files.ts";
import { EXIT, UserError } from "./errors.ts";
import type {
  AttachEnd,
  ClientMessage,
  CrashChange,
  DaemonMessage,
  Notices,
  Op,
  OpArgs,
  OpResult,
  Refusal,
  Reply,
  ScreenFollows,
  SnapshotNotice,
  TaskEvent,
  Welcome,
} from "./wire-protocol.ts";
import { definedEnvironment, runtimeDir } from "./paths.ts";
import { printable } from "./text-printable.ts";
import { currentDirectory } from "./text-path.ts";
import { hostOf, type Target } from "./client-target.ts";
import { FrameDecoder, FrameKind, MAX_DAEMON_FRAME, MAX_REMOTE_FRAME, PROTOCOL_VERSION, decodeJson, encodeControl, encodeData } from "./wire-framing.ts";
import { endsWithin, isProcessAlive, peerUidReader } from "./platform.ts";
import { VERSION } from "./version.ts";
import { noWelcome, protocolError, refusalText, welcomeBoundMs } from "./client-failures.ts";
import { printNotices } from "./client-notices.ts";

export { busyDaemon, connectFailure, DaemonNotRunning, refusalText } from "./client-failures.ts";
export { crashNoticeText, noticeLines } from "./client-notices.ts";

export interface ClientHandlers {
  event?(event: TaskEvent): void;
  /** Recovery snapshots started (error) or stopped (null) failing; subscribed clients only. */
  snapshot?(notice: SnapshotNotice): void;
  /** The lost previous fleet was recovered (crash: null); subscribed clients only. */
  crash?(change: CrashChange): void;
  data?(bytes: Uint8Array): void;
  attachEnd?(end: AttachEnd): void;
  /** The next data is a whole screen of the attached task (wire-protocol.ts ScreenFollows). */
  screen?(message: ScreenFollows): void;
  /** `logs --follow`: this many lines were not sent, the client being far behind (wire-protocol.ts LinesSkipped). */
  skipped?(lines: number): void;
  /** The connection ended; `lost`: what each request still waiting was told. */
  closed?(lost: Error): void;
  /** Set by a client that handles a failed link itself (attach reconnects): the failure is not printed. */
  linkLost?: true;
}

/**
 * How long a forwarded connection waits for the daemon's welcome before the bridge is tried instead:
 * the caller's own bounds (a host's answer in `ls`, the dashboard's) apply to a client it holds, and
 * until the welcome it holds none.
 */
const FORWARD_WELCOME_MS = 2_000;

/** How long a client whose connection was dropped before the welcome waits for the daemon that dropped it to be gone. */
const LISTENER_END_MS = 2_000;

/** This machine's daemon that took the connection, and a new connection made as the command's first was. */
type Redial = { listener: number; again: () => Promise<Transport> };

export class DaemonClient {
  private nextId = 1;
  /** Each request in flight with the message that asked it, sent again when the connection is made again (dialAgain). */
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; message: ClientMessage }>();
  /** Another host's daemon is not ours: its frames get a far smaller bound than our own daemon's screens. */
  private decoder: FrameDecoder;
  handlers: ClientHandlers = {};
  daemonPid = 0;
  /** Why the link to another host failed (ssh's reason), once it has; null while it stands or when it ended cleanly. */
  lostLink: string | null = null;
  /** close() or destroy() was called: the end of the connection is this side's doing. */
  private ending = false;
  /** The daemon's fleetcom version, from its welcome. */
  daemonVersion = "";
  /** The handshake: requests go out right behind the hello, and their answers wait for it. */
  private greeted: Promise<unknown> = Promise.resolve();
  /** Why this side ended the connection (no welcome in time, a frame it cannot read): every waiter's one line. */
  private failure: UserError | null = null;
  /** What the hello said, for a connection made again before the welcome. */
  private hello: ClientMessage | null = null;
  private welcomeTimer: ReturnType<typeof setTimeout> | undefined;
  /** A connection to this machine's daemon: made again once if it drops before the welcome (dialAgain). */
  private redial: Redial | null = null;

  private constructor(
    private socket: ClientSocket,
    /** The host whose daemon this is, over ssh; null: this machine's. */
    readonly host: RemoteHost | null = null,
    private readonly why?: () => string | null,
  ) {
    this.decoder = new FrameDecoder(host ? MAX_REMOTE_FRAME : MAX_DAEMON_FRAME);
  }

  /**
   * Connected, and the hello sent. The first request follows it without waiting for the welcome, so
   * a one-shot command costs one round trip; a refused handshake fails every request with its reason.
   *
   * `notices`: the daemon's one-time notices (a lost previous fleet, config problems) go to the first
   * client that asks. By default they are printed on stderr; false does not ask (status, which shows
   * them itself; recover, which is the remedy); a function takes them (the dashboard's header).
   */
  static async open(
    target: Target,
    options: {
      autostart?: boolean;
      size?: { cols: number; rows: number };
      notices?: boolean | ((notices: Notices) => void);
    } = {},
  ): Promise<DaemonClient> {
    const host = hostOf(target);
    // Asked once connected: a client that finds no daemon never builds process.stdout for it.
    const size = () => options.size ?? terminalSize();
    const notices = options.notices ?? true;
    const onNotices = notices === false ? null : notices === true ? (told: Notices) => printNotices(told, host) : notices;
    let listening: string | null = null;
    if (host) {
      const forwarded = await DaemonClient.forwarded(host, size, onNotices);
      if ("client" in forwarded) return forwarded.client;
      listening = forwarded.listening;
    }
    const autostart = options.autostart ?? true;
    const transport = await openTransport(host, autostart);
    const client = new DaemonClient(transport.socket, transport.host, transport.why);
    if (transport.listener !== undefined) client.redial = { listener: transport.listener, again: () => openTransport(null, autostart) };
    const greeted = client.handshake(size(), onNotices);
    client.greeted = greeted;
    greeted.catch(() => {});
    client.boundWelcome(greeted, welcomeBoundMs(host, transport.patientMs ?? null));
    // Through the bridge, the next command to this host goes straight to its daemon's socket.
    if (host) {
      const { forwardDaemonSocket } = await import("./client-ssh.ts");
      void greeted.then((welcome) => forwardDaemonSocket(host, welcome, listening)).catch(() => {});
    }
    return client;
  }

  /**
   * A client of `host`'s daemon through the forward of its socket, once the daemon it was made for
   * has answered: no ssh and no bridge started, and nothing but the hello sent before the welcome
   * proves the daemon (its instance). Otherwise the caller goes through the bridge, which also starts
   * the daemon there when none runs; `listening` is the socket a forward that took the connection
   * leads to (another daemon answered, or none), null when there was none to take it.
   */
  private static async forwarded(
    host: RemoteHost,
    size: () => { cols: number; rows: number },
    onNotices: ((notices: Notices) => void) | null,
  ): Promise<{ client: DaemonClient } | { listening: string | null }> {
    const forward = await connectForward(host);
    if ("listening" in forward) return forward;
    const client = new DaemonClient(forward.transport.socket, host, forward.transport.why);
    const bound = setTimeout(() => client.destroy(), FORWARD_WELCOME_MS);
    try {
      await client.handshake(size(), onNotices, forward.target.instance);
      return { client };
    } catch {
      client.destroy();
      return { listening: forward.target.socket };
    } finally {
      clearTimeout(bound);
    }
  }

  /**
   * The PID the daemon on our socket gives in its welcome, which proves it is a fleetcom daemon;
   * null when none answers (no socket, a stale one, another protocol, or no welcome in `timeoutMs`).
   * Never starts a daemon.
   */
  static async daemonPidOnSocket(timeoutMs: number): Promise<number | null> {
    const attempt = await connectVerified(runtimeDir(), peerUidReader).catch(() => null);
    if (!attempt || !("socket" in attempt)) return null;
    const socket = attempt.socket;
    const client = new DaemonClient(socket);
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    try {
      await client.handshake(terminalSize());
      return client.daemonPid || null;
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
      client.close();
    }
  }

  /** No welcome within `boundMs` ends the connection, and the handshake fails naming who did not answer. */
  private boundWelcome(greeted: Promise<unknown>, boundMs: number): void {
    clearTimeout(this.welcomeTimer);
    const timer = setTimeout(() => this.fail(noWelcome(this.host, boundMs)), boundMs);
    this.welcomeTimer = timer;
    void greeted.finally(() => clearTimeout(timer)).catch(() => {});
  }

  /** Ends the connection from this side with `error` as the one line its waiters get (and a follower prints). */
  private fail(error: UserError): void {
    if (this.failure || this.ending) return;
    this.failure = error;
    this.socket.destroy();
  }

  /** `forwardedTo`: the instance of the daemon a forwarded connection must reach (connectForward); any other is refused. */
  private handshake(
    size: { cols: number; rows: number },
    onNotices: ((notices: Notices) => void) | null = null,
    forwardedTo: string | null = null,
  ): Promise<Welcome> {
    return new Promise((resolve, reject) => {
      this.onGreeting = (message) => {
        if (message.type === "welcome") {
          if (forwardedTo !== null && message.instance !== forwardedTo) return reject(new UserError("the forward leads to another daemon"));
          this.daemonPid = message.pid;
          this.daemonVersion = message.version;
          if (message.notices && onNotices) onNotices(message.notices);
          resolve(message);
        } else if (message.type === "refused") reject(new UserError(refusalText(message, this.host), EXIT.unreachable));
      };
      this.listen(reject);
      // The local environment and directory never travel to another host: its bridge puts its own
      // (the remote login's) in their place (cmd-bridge.ts), or through a forward its daemon uses its own.
      const env = this.host ? {} : definedEnvironment();
      const cwd = this.host ? "" : currentDirectory();
      const environment = forwardedTo === null ? {} : { environment: "host" as const };
      this.hello = { type: "hello", protocol: PROTOCOL_VERSION, version: VERSION, cwd, env, ...size, ...(onNotices && { notices: true }), ...environment };
      this.send(this.hello);
    });
  }

  private listen(rejectHandshake: (e: Error) => void): void {
    this.socket.onData((chunk) => this.receive(chunk));
    this.socket.onClose(() => this.onClosed(rejectHandshake));
  }

  private onGreeting: ((message: Welcome | Refusal) => void) | null = null;

  /**
   * A frame over the bound, a payload that is not JSON, or a handler that throws on what it was given
   * (a malformed welcome from another host) is a protocol error: the connection ends with one line,
   * never an exception lost in the socket's callback while the command waits for ever.
   */
  private receive(chunk: Uint8Array): void {
    if (this.failure) return;
    try {
      for (const frame of this.decoder.push(chunk)) {
        if (frame.kind === FrameKind.data) this.handlers.data?.(frame.payload);
        // Not validated: the peer is a fleetcom daemon (ours, or another host's through its bridge)
        // that refused the hello unless it speaks this client's protocol (daemon-requests.ts Handshake); one that
        // lies and breaks a handler ends here, in the catch below.
        else this.handle(decodeJson(frame.payload) as DaemonMessage);
        if (this.failure) return;
      }
    } catch (error) {
      this.fail(protocolError(this.host, error));
    }
  }

  /** Every member of DaemonMessage has its case: one the daemon gains and the client ignores does not compile. */
  private handle(message: DaemonMessage): void {
    switch (message.type) {
      case "refused":
        if (!this.onGreeting) process.stderr.write(`fleetcom: ${printable(message.error)}\n`);
        return this.greeting(message);
      case "welcome":
        return this.greeting(message);
      case "reply":
        return this.settle(message);
      case "event":
        return this.handlers.event?.(message);
      case "snapshot":
        return this.handlers.snapshot?.(message);
      case "crash":
        return this.handlers.crash?.(message);
      case "attach-end":
        return this.handlers.attachEnd?.(message);
      case "screen":
        return this.handlers.screen?.(message);
      case "skipped":
        return this.handlers.skipped?.(message.lines);
      default:
        message satisfies never;
    }
  }

  private greeting(message: Welcome | Refusal): void {
    this.onGreeting?.(message);
    this.onGreeting = null;
  }

  private settle(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.result);
    else waiter.reject(new UserError(reply.error));
  }

  /** `cause`: why the connection could not be made again (dialAgain), which every waiter is told. */
  private onClosed(rejectHandshake: (e: Error) => void, cause: Error | null = null): void {
    const redial = this.redial;
    this.redial = null;
    if (redial && this.onGreeting && !this.failure && !this.ending) return void this.dialAgain(redial, rejectHandshake);
    const why = this.failure?.message ?? this.why?.() ?? null;
    this.lostLink = why;
    const lost = cause ?? this.failure ?? new UserError(why ?? "lost the connection to the daemon", EXIT.unreachable);
    // A link to another host that failed, or a connection this side ended, while nothing waited for
    // an answer (`peek --follow`, attach): said here, or the command would end as if the task had.
    const said = this.failure !== null || (why !== null && !this.ending);
    if (said && why !== null && !this.onGreeting && this.pending.size === 0 && !this.handlers.linkLost) {
      process.stderr.write(`fleetcom: ${printable(why)}\n`);
      process.exitCode = EXIT.unreachable;
    }
    rejectHandshake(lost);
    for (const waiter of this.pending.values()) waiter.reject(lost);
    this.pending.clear();
    this.handlers.closed?.(lost);
  }

  /**
   * This machine's daemon dropped the connection before its welcome, so it took none of the requests
   * (daemon.ts greets before it reads one). Killed while the connection waited in its backlog, or
   * ending, it is no daemon to report lost: once it is gone, the hello and every request go again
   * as a new command would send them, to a daemon started for them when this command starts one, or
   * the command hears that none runs. Once only; a listener still alive after LISTENER_END_MS means
   * the daemon meant it, and the connection is lost as before.
   */
  private async dialAgain(redial: Redial, rejectHandshake: (e: Error) => void): Promise<void> {
    clearTimeout(this.welcomeTimer);
    let transport: Transport;
    try {
      if (!(await endsWithin(() => isProcessAlive(redial.listener), LISTENER_END_MS, 5))) return this.onClosed(rejectHandshake);
      transport = await redial.again();
    } catch (error) {
      return this.onClosed(rejectHandshake, error as Error);
    }
    if (this.ending) {
      transport.socket.destroy();
      return this.onClosed(rejectHandshake);
    }
    this.socket = transport.socket;
    this.decoder = new FrameDecoder(MAX_DAEMON_FRAME);
    this.listen(rejectHandshake);
    this.boundWelcome(this.greeted, welcomeBoundMs(null, transport.patientMs ?? null));
    this.send(this.hello!);
    for (const { message } of this.pending.values()) this.send(message);
  }

  /** One operation of the contract (wire-protocol.ts): its arguments and its answer are typed by the op. */
  request<O extends Op>(op: O, ...[args]: Record<never, never> extends OpArgs<O> ? [args?: OpArgs<O>] : [args: OpArgs<O>]): Promise<OpResult<O>> {
    return this.call(op, args, () => {});
  }

  /**
   * Subscribes to the fleet's events; `apply` gets the fleet of the reply before any event behind it.
   * The daemon's next events can arrive in the same read as the reply, and they are handled as they
   * are read, before anything awaiting the reply runs: applying the reply's older fleet after them
   * would undo them (a stale row, an exit never heard).
   */
  subscribe(apply: (tasks: OpResult<"subscribe">) => void, args: OpArgs<"subscribe"> = {}): Promise<OpResult<"subscribe">> {
    return this.call("subscribe", args, apply);
  }

  /** Sends the request; `onReply` runs as its reply is read, in the reply's place among the frames. */
  private call<O extends Op>(op: O, args: OpArgs<O> | undefined, onReply: (result: OpResult<O>) => void): Promise<OpResult<O>> {
    const id = this.nextId++;
    const answered = new Promise<OpResult<O>>((resolve, reject) => {
      const resolveInPlace = (result: unknown) => {
        try {
          onReply(result as OpResult<O>);
          resolve(result as OpResult<O>);
        } catch (error) {
          reject(error);
        }
      };
      const message: ClientMessage = { type: "request", id, op, ...(args !== undefined && { args }) };
      this.pending.set(id, { resolve: resolveInPlace, reject, message });
      this.send(message);
    });
    answered.catch(() => {});
    return this.greeted.then(() => answered);
  }

  sendData(bytes: Uint8Array | string): void {
    this.socket.write(encodeData(bytes));
  }

  private send(message: ClientMessage): void {
    this.socket.write(encodeControl(message));
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Ends the connection now, whatever is in flight (a host that did not answer in time). */
  destroy(): void {
    this.ending = true;
    this.socket.destroy();
  }

  /** Ends the connection without keeping the process alive for the daemon's side of the close. */
  close(): void {
    this.ending = true;
    this.socket.close();
  }
}

/** The terminal's size for the hello; 120x40 when stdout is no terminal or does not say. */
export function terminalSize(): { cols: number; rows: number } {
  const size = stdoutTerminalSize();
  return size?.cols && size.rows ? size : { cols: 120, rows: 40 };
}

/** Opens a connection for one command's worth of requests and always closes it. */
export async function withDaemon<T>(
  target: Target,
  work: (client: DaemonClient) => Promise<T>,
  options: { autostart?: boolean; notices?: boolean } = {},
): Promise<T> {
  const client = await DaemonClient.open(target, options);
  try {
    return await work(client);
  } finally {
    client.close();
  }
}
