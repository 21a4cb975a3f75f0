// The supervisor: owns every task and serves clients over the socket. All fleet state lives here;
// clients send requests and get replies, events and screens. `fleetcom daemon` runs it detached
// (autostart) or under a service manager; `--foreground` runs it inside the dashboard's process.
import { Buffer } from "node:buffer";
import { statSync } from "node:fs";
import type { Socket } from "node:net";
import { setImmediate } from "node:timers";
import { type } from "arktype";
import { AgentNamespace } from "./agent-namespace.ts";
import { type Attention, isNewAttention } from "./attention.ts";
import { Connection, outputHighWater, type ConnectionHandler } from "./daemon-connection.ts";
import { savedCommands } from "./agent-run.ts";
import { UserError, errorMessage } from "./errors.ts";
import { label } from "./ui-format.ts";
import { normalizeGroup, normalizeName } from "./recipe-labels.ts";
import { hello as helloSchema, opArgs, request as requestSchema, type Hello, type Op, type RecipeEntry, type Request, type TaskInfo } from "./wire-protocol.ts";
import { runNotifier } from "./daemon-notifier.ts";
import { Endpoint } from "./daemon-endpoint.ts";
import { commandTooLong } from "./recipe.ts";
import { socketPath, runtimeDir } from "./paths.ts";
import { PROTOCOL_VERSION } from "./wire-framing.ts";
import type { SnapshotState } from "./daemon-snapshots.ts";
import { Task, type TaskListener } from "./daemon-task.ts";
import { resolveTaskRef } from "./task-ref.ts";
import { pathBytes } from "./text-path.ts";
import { VERSION } from "./version.ts";

const CHANGE_EVENT_INTERVAL_MS = 250;
/** Input a task may have waiting unread: `send` past it is refused, attached keystrokes wait. */
export const MAX_PENDING_INPUT = 1024 * 1024;
/** A load yields to other clients after this much work: four spawns, or 512 skipped entries. */
const CHECKS_PER_TURN = 512;
const CHECKS_PER_SPAWN = CHECKS_PER_TURN / 4;
/** How often running tasks are checked for having turned idle (idle.ts). */
const IDLE_SWEEP_MS = 1_000;

export interface DaemonOptions {
  scrollback: number;
  /** A connection that has not sent its hello by then is dropped (default HANDSHAKE_TIMEOUT_MS). */
  handshakeTimeoutMs?: number;
  log(message: string): void;
}

/** Long enough for any client on a loaded machine (the hello is its first write), short enough that silent connections cannot pile up until the daemon runs out of fds. */
export const HANDSHAKE_TIMEOUT_MS = 5_000;

/** FLEETCOM_HANDSHAKE_TIMEOUT_MS (milliseconds, for tests); a bad value falls back with a warning in the log. */
export function handshakeTimeoutSetting(env: string | undefined, log: (m: string) => void): number {
  if (env === undefined || env === "") return HANDSHAKE_TIMEOUT_MS;
  if (/^\d+$/.test(env.trim()) && Number(env) > 0) return Number(env);
  log(`FLEETCOM_HANDSHAKE_TIMEOUT_MS='${env}' is not a positive whole number; using ${HANDSHAKE_TIMEOUT_MS}`);
  return HANDSHAKE_TIMEOUT_MS;
}

interface Peer {
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

type Handler = (peer: Peer, args: any) => unknown | Promise<unknown>;

export class Daemon implements TaskListener, ConnectionHandler {
  private readonly tasks = new Map<number, Task>();
  private readonly peers = new Map<Connection, Peer>();
  private readonly changed = new Set<Task>();
  private changeTimer: ReturnType<typeof setTimeout> | null = null;
  /** Running tasks whose turn to idle subscribers have been told of; output takes a task out. */
  private readonly reportedIdle = new Set<Task>();
  private readonly idleSweep = setInterval(() => this.sweepIdle(), IDLE_SWEEP_MS);
  private nextId = 1;
  /** Clients dropped for not reading what was queued for them (status reports it). */
  private droppedBehind = 0;
  private stopping: Promise<void> | null = null;
  private readonly agents = new AgentNamespace(runtimeDir(), (id, run) => this.tasks.get(id)?.agentFilesChanged(run));
  readonly startedAt = new Date();
  onStop: () => void = () => {};
  /** Called after every command that can change a saved recipe (recovery snapshots hang here). */
  onRecipeChange: () => void = () => {};
  /** What the recovery snapshot writer last reported (daemon-snapshots.ts). */
  private snapshot: SnapshotState = { error: null, pendingSince: null };

  constructor(readonly options: DaemonOptions) {}

  accept(socket: Socket): void {
    const conn = new Connection(socket, this, () => {
      this.droppedBehind += 1;
      this.options.log(`dropped a client that stopped reading (${conn.queuedBytes} bytes queued for it)`);
    });
    const timeout = this.options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
    const handshakeTimer = setTimeout(() => conn.drop(`no handshake within ${timeout} ms`), timeout);
    handshakeTimer.unref?.();
    this.peers.set(conn, { conn, hello: null, subscribed: false, attached: null, following: null, held: null, handshakeTimer, inputBlockedBy: null });
  }

  // ---- connection events -------------------------------------------------------------------

  control(conn: Connection, message: unknown): void {
    const peer = this.peers.get(conn);
    if (!peer) return;
    if (!peer.hello) return this.greet(peer, message);
    const parsed = requestSchema(message);
    if (parsed instanceof type.errors) return conn.drop(`invalid request: ${parsed.summary}`);
    this.dispatch(peer, parsed);
  }

  data(conn: Connection, bytes: Uint8Array): void {
    const peer = this.peers.get(conn);
    if (!peer?.hello) return conn.drop("data before handshake");
    const task = peer.attached;
    if (!task) return;
    task.write(bytes);
    task.attended();
    // Keystrokes cannot be refused: past the bound, stop reading them until the task reads, as a
    // terminal blocks the typist. The client's own queue holds the rest.
    if (task.pendingInput > MAX_PENDING_INPUT) {
      peer.inputBlockedBy = task;
      conn.pauseReading();
    }
  }

  inputDrained(task: Task): void {
    for (const peer of this.peers.values()) if (peer.inputBlockedBy === task) this.unblockInput(peer);
  }

  private unblockInput(peer: Peer): void {
    if (!peer.inputBlockedBy) return;
    peer.inputBlockedBy = null;
    peer.conn.resumeReading();
  }

  closed(conn: Connection): void {
    const peer = this.peers.get(conn);
    if (peer?.handshakeTimer) clearTimeout(peer.handshakeTimer);
    this.peers.delete(conn);
  }

  caughtUp(conn: Connection): void {
    const peer = this.peers.get(conn);
    if (peer?.attached) this.sendScreen(peer, peer.attached);
    else if (peer?.following) this.sendText(peer, peer.following);
  }

  private greet(peer: Peer, message: unknown): void {
    const parsed = helloSchema(message);
    if (parsed instanceof type.errors) return peer.conn.drop(`invalid handshake: ${parsed.summary}`);
    if (parsed.protocol !== PROTOCOL_VERSION) {
      return peer.conn.drop(
        `the running daemon speaks protocol ${PROTOCOL_VERSION} (fleetcom ${VERSION}), this client ${parsed.protocol} (fleetcom ${parsed.version}); run 'fleetcom --kill' (this ends the old daemon's tasks) and try again`,
      );
    }
    peer.hello = parsed;
    if (peer.handshakeTimer) clearTimeout(peer.handshakeTimer);
    peer.handshakeTimer = null;
    peer.conn.send({ type: "welcome", protocol: PROTOCOL_VERSION, version: VERSION, pid: process.pid });
  }

  private async dispatch(peer: Peer, req: Request): Promise<void> {
    const schema = opArgs[req.op];
    const args = schema(req.args ?? {});
    if (args instanceof type.errors) {
      peer.conn.send({ type: "reply", id: req.id, ok: false, error: `${req.op}: ${args.summary}` });
      return;
    }
    try {
      const result = await this.handlers[req.op](peer, args);
      peer.conn.send({ type: "reply", id: req.id, ok: true, result: result ?? null });
    } catch (error) {
      if (!(error instanceof UserError)) this.options.log(`error in ${req.op}: ${(error as Error)?.stack ?? error}`);
      peer.conn.send({ type: "reply", id: req.id, ok: false, error: errorMessage(error) });
    }
  }

  // ---- task events ---------------------------------------------------------------------------

  output(task: Task, chunk: Uint8Array): void {
    for (const peer of this.peers.values()) {
      if (peer.attached !== task && peer.following !== task) continue;
      if (peer.held) peer.held.push(chunk);
      else peer.conn.sendOutput(chunk, outputHighWater(task.cols, task.rows));
    }
    this.reportedIdle.delete(task);
    this.markChanged(task);
  }

  /** Terminal-query replies from the headless screen go to the task only while nobody is attached. */
  reply(task: Task, data: string): void {
    if (!this.isAttached(task)) task.write(data);
  }

  /** Called once every byte the run printed has been parsed. */
  exited(task: Task): void {
    this.inputDrained(task);
    const info = task.info();
    for (const peer of this.peers.values()) {
      if (peer.attached !== task && peer.following !== task) continue;
      // A client that fell behind during a flood must still end on the task's last screen.
      if (peer.conn.behind) {
        if (peer.attached) this.sendWholeScreen(peer, task.screen.serializeForAttach());
        else peer.conn.sendScreen(textView(task.screen.text()));
      }
      this.detach(peer);
      peer.conn.send({ type: "attach-end", reason: "exited", task: info });
    }
    this.onRecipeChange();
    // The exit event carries the final preview, so wait for the last output to be parsed.
    task.screen.flushed().then(() => {
      if (this.tasks.get(task.id) === task) this.broadcast("exited", task.info());
    });
  }

  /** Attention changes go out at once (scripts wait on them) and run FLEETCOM_NOTIFY on a new state. */
  attention(task: Task, before: Attention | null): void {
    if (!this.tasks.has(task.id)) return;
    const info = task.info();
    this.broadcast("changed", info);
    const command = process.env.FLEETCOM_NOTIFY;
    if (command && info.attention && isNewAttention(before, info.attention)) {
      runNotifier(command, { taskId: task.id, label: label(info), attention: info.attention }, this.options.log);
    }
  }

  /** A snapshot failure streak begins or ends: every subscribed client hears of it at once. */
  snapshotState(state: SnapshotState): void {
    const changed = state.error !== this.snapshot.error;
    this.snapshot = state;
    if (!changed) return;
    if (state.error) this.options.log(`snapshots failing since ${state.error.since}; subscribed clients told`);
    for (const peer of this.peers.values()) if (peer.subscribed) peer.conn.sendEvent({ type: "snapshot", error: state.error });
  }

  private isAttached(task: Task): boolean {
    for (const peer of this.peers.values()) if (peer.attached === task) return true;
    return false;
  }

  private hasSubscribers(): boolean {
    for (const peer of this.peers.values()) if (peer.subscribed) return true;
    return false;
  }

  private markChanged(task: Task): void {
    this.changed.add(task);
    this.changeTimer ??= setTimeout(() => this.flushChanged(), CHANGE_EVENT_INTERVAL_MS);
  }

  /** Going quiet is a change nothing else announces: tell subscribers once per quiet spell. */
  private sweepIdle(): void {
    if (!this.hasSubscribers()) return;
    const now = performance.now();
    for (const task of this.tasks.values()) {
      if (!task.idle(now) || this.reportedIdle.has(task)) continue;
      this.reportedIdle.add(task);
      this.broadcast("changed", task.info(now));
    }
  }

  private flushChanged(): void {
    this.changeTimer = null;
    // Nobody listening: skip building a TaskInfo (preview, agent files) for every chatty task.
    if (this.hasSubscribers()) {
      const now = performance.now();
      for (const task of this.changed) if (this.tasks.has(task.id)) this.broadcast("changed", task.info(now));
    }
    this.changed.clear();
  }

  private broadcast(event: "created" | "changed" | "exited" | "removed", task: TaskInfo): void {
    for (const peer of this.peers.values()) if (peer.subscribed) peer.conn.sendEvent({ type: "event", event, task });
  }

  // ---- operations ----------------------------------------------------------------------------

  private readonly handlers: Record<Op, Handler> = {
    ls: () => this.list(),
    status: () => this.status(),
    subscribe: (peer) => {
      peer.subscribed = true;
      // A failure that began before this client subscribed is still news to it: right after the reply.
      const error = this.snapshot.error;
      if (error) setImmediate(() => peer.conn.sendEvent({ type: "snapshot", error }));
      return this.list();
    },
    recipe: () => this.recipe(),
    shutdown: () => {
      queueMicrotask(() => this.stop());
      return null;
    },
    run: (peer, a) => {
      const cwd = a.cwd ?? peer.hello!.cwd;
      const tooLong = commandTooLong(a.command);
      if (tooLong) throw new UserError(tooLong);
      if (!isDirectory(cwd)) throw new UserError(`no such directory: ${cwd}`);
      const task = this.spawn(peer, a.command, cwd, a.group ?? null, a.name ?? null);
      return { id: task.id };
    },
    load: (peer, a: { entries: RecipeEntry[] }) => this.load(peer, a.entries),
    kill: async (_peer, a: { tasks: string[] }) => {
      const targets = a.tasks.map((ref) => this.find(ref));
      await Promise.all(targets.filter((t) => t.running).map((t) => t.terminate()));
      return { killed: targets.map((t) => t.id) };
    },
    rm: async (_peer, a: { tasks: string[] }) => {
      const targets = a.tasks.map((ref) => this.find(ref));
      const running = targets.filter((t) => t.running);
      if (running.length) throw new UserError(`task ${running.map((t) => t.id).join(", ")} is still running; kill it first`);
      await Promise.all(targets.map((t) => t.terminate()));
      for (const t of targets) this.remove(t);
      return { removed: targets.map((t) => t.id) };
    },
    rerun: (peer, a) => {
      const task = this.find(a.task);
      if (task.running) throw new UserError(`task ${task.id} is still running; only a finished task can be rerun`);
      task.rerun(peer.hello!.env, this.options.scrollback);
      this.taskChanged(task, true);
      return task.info();
    },
    tag: (_peer, a) => {
      const task = this.find(a.task);
      task.tagged = !task.tagged;
      this.taskChanged(task, false);
      return task.info();
    },
    rename: (_peer, a) => {
      const task = this.find(a.task);
      task.name = a.name === null ? null : normalizeName(a.name);
      this.taskChanged(task, true);
      return task.info();
    },
    group: (_peer, a) => {
      const task = this.find(a.task);
      task.group = a.group === null ? null : normalizeGroup(a.group);
      this.taskChanged(task, true);
      return task.info();
    },
    send: (_peer, a) => {
      const task = this.find(a.task);
      if (!task.running) throw new UserError(`task ${task.id} has exited`);
      // Refused whole, never cut: a part of a message typed into a program is worse than none.
      const size = Buffer.byteLength(a.text, "utf8");
      if (size > MAX_PENDING_INPUT) throw new UserError(`send: text too long (${size} bytes; at most 1 MiB at a time)`);
      const pending = task.pendingInput;
      if (pending + size > MAX_PENDING_INPUT) throw new UserError(`task ${task.id} is not reading its input (${mebibytes(pending)} pending)`);
      task.write(a.text);
      task.attended();
      return null;
    },
    peek: async (_peer, a) => {
      const task = this.find(a.task);
      await task.screen.flushed();
      return { text: task.screen.text(a.lines), info: task.info() };
    },
    attach: (peer, a) => this.attach(peer, a),
    detach: (peer) => {
      this.detach(peer);
      return null;
    },
    // The attached task switched screens: its client's terminal stays where it is (ui-attach.ts).
    redraw: (peer) => {
      if (peer.attached) this.sendScreen(peer, peer.attached);
      return null;
    },
    follow: (peer, a) => {
      const task = this.find(a.task);
      this.detach(peer);
      peer.following = task;
      this.sendText(peer, task, a.lines);
      return task.info();
    },
    resize: (peer, a) => {
      peer.attached?.resize(a.cols, a.rows);
      return null;
    },
  };

  /**
   * Starts every entry whose directory exists, a few at a time: spawning is synchronous (~10 ms
   * each), so between turns the daemon serves its other clients. The reply comes when all are started.
   */
  private async load(peer: Peer, entries: RecipeEntry[]): Promise<{ started: number[]; skipped: number }> {
    for (const e of entries) {
      const tooLong = commandTooLong(e.cmd);
      if (tooLong) throw new UserError(tooLong);
    }
    const started: number[] = [];
    let skipped = 0;
    const dirs = new Map<string, boolean>();
    let work = 0;
    for (const e of entries) {
      if (this.stopping) break;
      let exists = dirs.get(e.dir);
      if (exists === undefined) dirs.set(e.dir, (exists = isDirectory(e.dir)));
      if (!exists) {
        skipped += 1;
        work += 1;
      } else {
        started.push(this.spawn(peer, e.cmd, e.dir, e.group, e.name).id);
        work += CHECKS_PER_SPAWN;
      }
      if (work >= CHECKS_PER_TURN) {
        work = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return { started, skipped };
  }

  private spawn(peer: Peer, command: string, cwd: string, group: string | null, name: string | null): Task {
    const hello = peer.hello!;
    const task = new Task(
      {
        id: this.nextId++,
        command,
        cwd,
        env: hello.env,
        name: name === null ? null : normalizeName(name),
        group: group === null ? null : normalizeGroup(group),
        cols: hello.cols,
        rows: hello.rows,
        scrollback: this.options.scrollback,
        agents: this.agents,
        log: this.options.log,
      },
      this,
    );
    this.tasks.set(task.id, task);
    this.broadcast("created", task.info());
    this.onRecipeChange();
    return task;
  }

  private remove(task: Task): void {
    const info = task.info();
    this.tasks.delete(task.id);
    this.reportedIdle.delete(task);
    for (const peer of this.peers.values()) {
      if (peer.attached === task || peer.following === task) {
        this.detach(peer);
        peer.conn.send({ type: "attach-end", reason: "removed", task: info });
      }
    }
    task.dispose();
    this.broadcast("removed", info);
    this.onRecipeChange();
  }

  private taskChanged(task: Task, recipeChanged: boolean): void {
    this.broadcast("changed", task.info());
    if (recipeChanged) this.onRecipeChange();
  }

  private detach(peer: Peer): void {
    this.unblockInput(peer);
    peer.attached = null;
    peer.following = null;
    peer.held = null;
  }

  private attach(peer: Peer, a: { task: string; cols: number; rows: number }): TaskInfo {
    const task = this.find(a.task);
    this.detach(peer);
    peer.attached = task;
    task.attended();
    task.resize(a.cols, a.rows);
    this.sendScreen(peer, task);
    return task.info();
  }

  /** The screen exactly as it stands after every byte printed so far; output after that follows it live. */
  private sendScreen(peer: Peer, task: Task): void {
    this.sendAtCurrentPoint(peer, task, task.screen.snapshotForAttach(), (screen) => screen);
  }

  /** For `peek --follow`: the screen as text, then the output that follows it. */
  private sendText(peer: Peer, task: Task, lines?: number): void {
    this.sendAtCurrentPoint(peer, task, task.screen.textAtCurrentPoint(lines), textView);
  }

  /**
   * Sends a view of the screen taken at an exact point of the output stream, then the output that
   * came while the view waited for the parser: no gap, no overlap.
   */
  private sendAtCurrentPoint(peer: Peer, task: Task, view: Promise<string>, frame: (view: string) => string): void {
    if (peer.held) return;
    const held: Uint8Array[] = (peer.held = []);
    view.then((taken) => {
      if (peer.held !== held) return;
      peer.held = null;
      if (peer.attached === task) this.sendWholeScreen(peer, frame(taken));
      else if (peer.following === task) peer.conn.sendScreen(frame(taken));
      else return;
      for (const chunk of held) peer.conn.sendOutput(chunk, outputHighWater(task.cols, task.rows));
    });
  }

  /** A screen for an attached client, announced so a client waiting for a redraw knows it from output. */
  private sendWholeScreen(peer: Peer, screen: string): void {
    peer.conn.send({ type: "screen" });
    peer.conn.sendScreen(screen);
  }

  private find(ref: string): Task {
    return resolveTaskRef(ref, [...this.tasks.values()]);
  }

  list(): TaskInfo[] {
    const now = performance.now();
    return [...this.tasks.values()].map((t) => t.info(now));
  }

  /** What a save or snapshot stores: agents in their resume form when their conversation is known. */
  recipe(): RecipeEntry[] {
    const tasks = [...this.tasks.values()];
    const commands = savedCommands(tasks);
    return tasks.map((t, i) => ({ dir: t.cwd, cmd: commands[i]!, group: t.group, name: t.name }));
  }

  private status() {
    // Counts only: building every task's info (preview, agent files) would make status cost
    // milliseconds per hundred tasks.
    const tasks = [...this.tasks.values()];
    return {
      running: true,
      pid: process.pid,
      version: VERSION,
      startedAt: this.startedAt.toISOString(),
      socket: socketPath(),
      tasks: { total: tasks.length, running: tasks.filter((t) => t.running).length },
      clients: this.clientStats(),
      snapshotError: this.snapshot.error,
      snapshotPendingSince: this.snapshot.pendingSince,
    };
  }

  /** What the daemon holds for its clients: the bounds in daemon-connection.ts keep these small. */
  private clientStats() {
    let queuedBytes = 0;
    let maxQueuedBytes = 0;
    let waitingEvents = 0;
    let inputBlocked = 0;
    for (const { conn, inputBlockedBy } of this.peers.values()) {
      if (inputBlockedBy) inputBlocked += 1;
      queuedBytes += conn.queuedBytes;
      maxQueuedBytes = Math.max(maxQueuedBytes, conn.queuedBytes);
      waitingEvents += conn.waitingEvents;
    }
    return { connected: this.peers.size, queuedBytes, maxQueuedBytes, waitingEvents, droppedBehind: this.droppedBehind, inputBlocked };
  }

  /** The one teardown: TERM every task's group, KILL after the grace period, then let go. */
  stop(): Promise<void> {
    clearInterval(this.idleSweep);
    this.stopping ??= (async () => {
      for (const peer of this.peers.values()) if (peer.attached) peer.conn.send({ type: "attach-end", reason: "shutdown", task: peer.attached.info() });
      await Promise.all([...this.tasks.values()].map((t) => t.terminate()));
      // The final snapshot pass runs after this: keep what the capture files said, then remove them.
      for (const task of this.tasks.values()) task.agent?.freeze();
      this.agents.dispose();
      for (const peer of this.peers.values()) peer.conn.close();
      this.onStop();
    })();
    return this.stopping;
  }
}

function mebibytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

function textView(text: string): string {
  return text ? `${text}\n` : "";
}

function isDirectory(path: string): boolean {
  try {
    return statSync(pathBytes(path)).isDirectory();
  } catch {
    return false;
  }
}

// ---- the process around it -------------------------------------------------------------------

/** Takes the lock, listens, and serves until stopped. Resolves null when another daemon holds the lock. */
export async function serveDaemon(options: DaemonOptions): Promise<{ daemon: Daemon; stopped: Promise<void> } | null> {
  let daemon: Daemon | null = null;
  const endpoint = await Endpoint.open(runtimeDir(), {
    log: options.log,
    accept: (socket) => (daemon ? daemon.accept(socket) : socket.destroy()),
    lost: () => void daemon?.stop(),
  });
  if (!endpoint) return null;
  daemon = new Daemon(options);
  options.log(`daemon ${process.pid} listening on ${endpoint.socketPath}`);
  const stopped = new Promise<void>((resolve) => {
    daemon!.onStop = () => {
      endpoint.close();
      resolve();
    };
  });
  return { daemon, stopped };
}
