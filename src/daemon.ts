// The fleet: every task, every connected client, and what happens between them. All fleet state
// lives here; clients send requests (daemon-requests.ts answers them, daemon-ops.ts does each
// operation), get replies and events (daemon-events.ts batches them) and watch tasks' screens
// (daemon-peers.ts). The socket, the lock and the snapshot writer around it are daemon-supervisor.ts's.
import type { PeerSocket } from "./daemon-socket.ts";
import { join } from "node:path";
import { AgentNamespace } from "./agent-namespace.ts";
import { FlagProbe } from "./agent-probe.ts";
import { type Attention, isNewAttention } from "./task-attention.ts";
import { Connection, type ConnectionHandler } from "./daemon-connection.ts";
import { TaskEvents } from "./daemon-events.ts";
import { type Fleet, MAX_PENDING_INPUT, operations } from "./daemon-ops.ts";
import {
  blockInput,
  clientStats,
  endStream,
  followsLines,
  forwardOutput,
  greeted,
  isAttachedTo,
  resync,
  sendFinalScreen,
  unblockInput,
  watches,
  watching,
  type Greeting,
  type Peer,
} from "./daemon-peers.ts";
import { HISTORY_OFF, type HistoryWriter } from "./daemon-history.ts";
import { Loads } from "./daemon-load.ts";
import { TaskChanges } from "./daemon-changes.ts";
import { TaskCheckpoints } from "./daemon-checkpoints.ts";
import { InputGap } from "./daemon-input-gap.ts";
import { flagsNeeded, probedPrograms } from "./agent-run.ts";
import type { NotifyTarget } from "./config-notify.ts";
import type { Settings } from "./settings.ts";
import {
  type CrashNotice,
  type Escapee,
  hello as helloSchema,
  type OpResult,
  request as requestSchema,
  type DaemonStatus,
  type RecipeEntry,
  type SnapshotError,
  type TaskInfo,
  type TaskRef,
} from "./wire-protocol.ts";
import { FleetNotify } from "./daemon-notify-fleet.ts";
import type { Schema } from "./validator.ts";
import { cacheDir, homeDir, runtimeDir, socketPath } from "./paths.ts";
import type { SnapshotRecipe, SnapshotState } from "./daemon-snapshots.ts";
import type { SnapshotUrgency } from "./recipe-snapshot-rules.ts";
import { Task, type TaskListener } from "./daemon-task.ts";
import { type TaskStart, taskSpec } from "./daemon-task-spec.ts";
import { resolveTaskRef, taskById } from "./task-ref.ts";
import { agentProbeBudgetSetting, HANDSHAKE_TIMEOUT_MS } from "./settings.ts";
import { Typist } from "./daemon-typist.ts";
import { Handshake, runRequest } from "./daemon-requests.ts";
import { escapedFromTasks } from "./daemon-escapees.ts";
import { VERSION } from "./version.ts";
import { TaskIds } from "./daemon-task-ids.ts";
import { ResourceSampler } from "./daemon-resources.ts";
import { daemonSettings, declareAgents, reloadSettings } from "./daemon-settings.ts";
import { meantToRun, type Restarts } from "./daemon-restarts.ts";
import { savedRecipe, snapshotOf } from "./daemon-recipe.ts";
import { Services } from "./daemon-services.ts";

/** How long after its start the daemon begins asking known agents for their options (agent-probe.ts). */
const PROBE_START_DELAY_MS = 1_000;

export interface DaemonOptions {
  scrollback: number;
  /** Keep each task's history on disk and restore it on recover (`history` in settings.ts). */
  history: boolean;
  /** Where a task needing its user is told (settings.ts, docs/notify.md); FLEETCOM_NOTIFY when not given. */
  notify?: NotifyTarget[];
  /** How long a running task stays quiet before it is idle (idle_seconds; 10 s when not given). */
  idleMs?: number;
  /** What the daemon settled on at start (or its last reload), for `status` and `fleetcom config`. */
  settings?: Settings;
  /** Reads the settings again, for a reload (SIGHUP, `fleetcom config --reload`). */
  reread?: () => Settings;
  /** A connection that has not sent its hello by then is dropped (default HANDSHAKE_TIMEOUT_MS). */
  handshakeTimeoutMs?: number;
  log(message: string): void;
}

/**
 * What the supervisor around the daemon (daemon-supervisor.ts) gives it, once, at construction:
 * each hook has exactly one holder, so none can be left unset or silently replaced.
 */
export interface DaemonHooks {
  /** The writer of the history kept on disk (daemon-history.ts); null while history is off. */
  history: HistoryWriter | null;
  /** After every command that can change a saved recipe (the recovery snapshots hang here). */
  recipeChanged(urgency?: SnapshotUrgency): void;
  /** A recovery of the lost fleet's snapshot cleared the crash notice. */
  crashCleared(): void;
  /** The teardown is over: every task has ended and every client is let go. */
  stopped(): void;
}

export class Daemon implements TaskListener, ConnectionHandler, Fleet {
  private readonly tasks = new Map<number, Task>();
  private readonly peers = new Map<Connection, Greeting | Peer>();
  private readonly events = new TaskEvents({
    peers: () => this.greeted(),
    tasks: () => this.tasks.values(),
    holds: (task) => this.holds(task),
    outputSettled: (task) => this.noteSavedForm(task),
  });
  private readonly ids = new TaskIds();
  readonly resources = new ResourceSampler({
    tasks: () => this.tasks.values(),
    peers: () => this.greeted(),
    changed: (task) => this.taskChanged(task, false),
    overMemory: (task, reason) => this.services.overMemory(task, reason),
  });
  private readonly changes = new TaskChanges<Task>(
    (t) => this.tasks.get(t.id) === t && this.events.broadcast("changed", t.info()),
    (m) => this.options.log(m),
    () => this.hooks.recipeChanged(),
    runtimeDir(),
    (t, baseline) => this.checkpoints.fromBaseline(t, baseline),
  );
  readonly checkpoints = new TaskCheckpoints<Task>(
    (m) => this.options.log(m),
    (t) => this.tasks.get(t.id) === t && this.hooks.recipeChanged(),
  );
  /** A recovered task took an id below one in use, so `tasks` is no longer in id order until `inIdOrder`. */
  private outOfIdOrder = false;
  private highestId = 0;
  /** Clients dropped for not reading what was queued for them (status reports it). */
  private droppedBehind = 0;
  private stopping: Promise<void> | null = null;
  /** What ran when the teardown began: the stop ends them, but a recovery must start them again. */
  private runningAtStop: Set<Task> | null = null;
  private readonly agents = new AgentNamespace(runtimeDir(), (id, run) => this.agentFilesChanged(id, run));
  private readonly probe: FlagProbe;
  /** Starts the probe's watch once a just-started daemon has had time to answer its first client. */
  private readonly probeStart: ReturnType<typeof setTimeout>;
  readonly typist = new Typist();
  private readonly handlers = operations(this);
  readonly startedAt = new Date();
  /** Readiness probes, start order and restart policies (daemon-services.ts). */
  private readonly services = new Services({
    tasks: () => this.tasks.values(),
    holds: (task) => this.holds(task),
    stopping: () => this.stopping !== null,
    scrollback: () => this.options.scrollback,
    changed: (task, recipeChanged) => this.taskChanged(task, recipeChanged),
    log: (message) => this.options.log(message),
  });
  /** The restart policies' timers, for the operations (kill, restart, rerun). */
  readonly restarts: Restarts = this.services.restarts;
  /** Every `load` (daemon-load.ts): the tasks it starts are the fleet's. */
  readonly loads = new Loads({
    hold: (name, after, start) => this.services.order.hold(name, after, start),
    reserveIds: (ids) => this.ids.reserve(ids),
    prepareAgent: (peer, command, cwd) => this.prepareAgent(peer, command, cwd),
    recovered: (snapshot) => this.recovered(snapshot),
    snapshotNow: () => this.hooks.recipeChanged("now"),
    spawn: (peer, start) => this.spawn(peer, start),
    running: () => [...this.tasks.values()].filter(meantToRun),
    keepsHistory: () => this.hooks.history !== null,
    stopping: () => this.stopping !== null,
    log: (message) => this.options.log(message),
  });
  /** What the recovery snapshot writer last reported (daemon-snapshots.ts). */
  private snapshot: SnapshotState = { error: null, pendingSince: null };
  /** When attached clients last typed: periodic work waits for a gap (daemon-input-gap.ts). */
  readonly inputGap = new InputGap();
  /** Who this daemon is this start, and the lost fleet's notice (daemon-requests.ts). */
  private readonly handshake = new Handshake(() => this.options.settings?.problems ?? []);
  private readonly hooks: DaemonHooks;
  /** What of the fleet's news goes to notify's destinations (daemon-notify-fleet.ts). */
  private readonly notify: FleetNotify;

  /**
   * `makeHooks`: the supervisor's collaborators, which read the fleet back (the snapshot and history
   * writers), so they are built from the daemon; called once, last, when every field is set.
   */
  constructor(
    readonly options: DaemonOptions,
    makeHooks: (daemon: Daemon) => DaemonHooks,
  ) {
    declareAgents(options.settings, true, options.log);
    const budgetMs = agentProbeBudgetSetting(process.env.FLEETCOM_AGENT_PROBE_MS, options.log);
    this.probe = new FlagProbe({ cacheFile: join(cacheDir(), "agent-flags.json"), budgetMs, log: options.log });
    // Asked ahead of the first spawn (a real agent's first --help outlasts the spawn's budget), but
    // not before the first replies: an autostarted daemon's first client is waiting on it, and the
    // watch's PATH walk, stats and `--help` children would compete with that on a loaded machine.
    // A spawn sooner than this asks for itself (prepare).
    this.probeStart = setTimeout(() => this.probe.watch(probedPrograms(), process.env, homeDir()), PROBE_START_DELAY_MS);
    this.probeStart.unref?.();
    const fleet = { task: (id: number) => this.tasks.get(id), isAttached: (task: Task) => this.isAttached(task), log: options.log };
    this.notify = new FleetNotify(fleet, options.notify ?? (process.env.FLEETCOM_NOTIFY ? [process.env.FLEETCOM_NOTIFY] : []), options.settings);
    this.hooks = makeHooks(this);
  }

  accept(socket: PeerSocket): void {
    const conn = new Connection(socket, this, () => {
      this.droppedBehind += 1;
      this.options.log(`dropped a client that stopped reading (${conn.queuedBytes} bytes queued for it)`);
    });
    const timeout = this.options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
    const handshakeTimer = setTimeout(() => conn.drop(`no handshake within ${timeout} ms`), timeout);
    handshakeTimer.unref?.();
    this.peers.set(conn, { stage: "greeting", conn, handshakeTimer });
  }

  /** The clients that said hello: only they are sent events and streams. */
  private *greeted(): Generator<Peer> {
    for (const peer of this.peers.values()) if (peer.stage === "greeted") yield peer;
  }

  // ---- connection events -------------------------------------------------------------------

  control(conn: Connection, message: unknown): void | Promise<void> {
    const peer = this.peers.get(conn);
    if (!peer) return;
    if (peer.stage === "greeting") return this.greet(peer, message);
    if (!requestSchema.allows(message)) return void this.refuse(peer, "invalid request", requestSchema, message);
    return runRequest(this.handlers, peer, message, this.options.log);
  }

  data(conn: Connection, bytes: Uint8Array): void {
    const peer = this.peers.get(conn);
    if (peer?.stage !== "greeted") return conn.drop("data before handshake");
    const view = peer.view;
    if (view.kind !== "attached") return;
    const task = view.task;
    // The user answers what the task asked before the task sees the answer: written first, the
    // keys reach the PTY at once, and a fast agent's next Stop could land before this and be cleared.
    this.checkpoints.typed(task, bytes);
    task.attended();
    this.notify.typed(task);
    task.write(bytes);
    this.inputGap.input();
    // Keystrokes cannot be refused: past the bound, stop reading them until the task reads, as a
    // terminal blocks the typist. The client's own queue holds the rest.
    if (task.pendingInput > MAX_PENDING_INPUT) blockInput(peer, view);
  }

  inputDrained(task: Task): void {
    for (const peer of this.greeted()) if (isAttachedTo(peer, task)) unblockInput(peer);
  }

  closed(conn: Connection): void {
    const peer = this.peers.get(conn);
    if (peer?.stage === "greeting") clearTimeout(peer.handshakeTimer);
    this.peers.delete(conn);
  }

  caughtUp(conn: Connection): void {
    const peer = this.peers.get(conn);
    if (peer?.stage === "greeted") resync(peer);
  }

  private greet(peer: Greeting, message: unknown): void {
    if (!helloSchema.allows(message)) return void this.refuse(peer, "invalid handshake", helloSchema, message);
    const answer = this.handshake.answer(message);
    if ("refusal" in answer) return peer.conn.drop(answer.refusal, answer.daemon);
    clearTimeout(peer.handshakeTimer);
    this.peers.set(peer.conn, greeted(peer, answer.hello));
    peer.conn.send(answer.welcome);
  }

  /**
   * Drops a client whose message failed its schema, with arktype's account of why. Wording it loads
   * arktype (validator.ts), so the client is set aside first: nothing more it sends is taken.
   */
  private async refuse(peer: Greeting | Peer, what: string, schema: Schema<unknown>, message: unknown): Promise<void> {
    this.peers.delete(peer.conn);
    if (peer.stage === "greeting") clearTimeout(peer.handshakeTimer);
    peer.conn.pauseReading();
    peer.conn.drop(`${what}: ${await schema.problem(message)}`);
  }

  /** Set once at start, before the first client is accepted. */
  setCrash(notice: CrashNotice | null): void {
    this.handshake.crash = notice;
  }

  /** A load of the lost fleet's snapshot clears the notice, for good. */
  private recovered(snapshot: string): void {
    if (this.handshake.crash?.snapshot !== snapshot) return;
    this.handshake.crash = null;
    this.hooks.crashCleared();
    for (const peer of this.greeted()) if (peer.subscribed) peer.conn.sendEvent({ type: "crash", crash: null });
  }

  // ---- task events ---------------------------------------------------------------------------

  output(task: Task, chunk: Uint8Array): void {
    // The hot path: a plain loop, no generator per chunk.
    for (const peer of this.peers.values()) {
      if (peer.stage !== "greeted") continue;
      const view = watching(peer, task);
      if (view) forwardOutput(peer, view, chunk);
    }
    this.events.output(task);
    this.typist.output(task);
    this.services.output(task, chunk);
    this.changes.output(task);
  }

  /** A run began: its readiness probe starts, and entries waiting for it to start look again. */
  started(task: Task): void {
    this.services.started(task);
  }

  /** Terminal-query replies from the headless screen go to the task only while nobody is attached. */
  reply(task: Task, data: string): void {
    if (!this.isAttached(task)) task.write(data);
  }

  /** A file of an agent run changed: apply its attention events, and snapshot a newly resumable conversation. */
  private agentFilesChanged(id: number, run: number): void {
    const task = this.tasks.get(id);
    if (!task) return;
    task.agentFilesChanged(run);
    this.noteSavedForm(task);
  }

  /**
   * A capture that changes what a save would write (a Codex thread whose first turn just ran, a
   * Claude transcript that now exists) goes through the normal snapshot debounce, not the minute
   * check: a crash in between would lose the conversation.
   */
  private noteSavedForm(task: Task): void {
    if (task.agent?.savedFormChanged()) this.hooks.recipeChanged();
  }

  /** Asks an agent binary which options it takes before a spawn that would inject some (agent-probe.ts). */
  async prepareAgent(peer: Peer, command: string, cwd: string): Promise<void> {
    const needs = flagsNeeded(command);
    if (needs) await this.probe.prepare(needs.program, peer.hello.env, cwd);
  }

  /** Called once every byte the run printed has been parsed. */
  exited(task: Task): void {
    // Before anyone hears of the end: a run its policy restarts, or gives up on, is not told as ended.
    const answered = this.services.ended(task);
    this.inputDrained(task);
    const info = task.info();
    for (const peer of this.greeted()) {
      if (followsLines(peer, task)) endStream(peer, "exited", info);
      if (!watches(peer, task)) continue;
      // A client that fell behind during a flood must still end on the task's last screen.
      if (peer.conn.behind) sendFinalScreen(peer, task);
      endStream(peer, "exited", info);
    }
    this.hooks.recipeChanged();
    // The exit event carries the final preview, so wait for the last output to be parsed.
    task.screen.flushed().then(() => {
      if (this.tasks.get(task.id) !== task) return;
      const info = task.info();
      this.events.broadcast("exited", info);
      if (!this.stopping && !answered) this.notify.ended(task, info);
    });
  }

  /** Attention changes go out at once (scripts wait on them); a new state goes to notify's destinations. */
  attention(task: Task, before: Attention | null): void {
    if (!this.tasks.has(task.id)) return;
    const info = task.info();
    this.events.broadcast("changed", info);
    this.checkpoints.attention(task, before, info.attention);
    const isNew = info.attention !== null && isNewAttention(before, info.attention);
    // A turn's end recounts what the agent changed, whether or not anyone is told of it.
    if (isNew) this.changes.refresh(task);
    this.notify.raised(task, before, info, isNew);
  }

  /** Called after every reload (SIGHUP, `fleetcom config --reload`): the host links read the added hosts again (cmd-daemon.ts). */
  reloaded: (() => void) | null = null;

  /** An added host's news, from the link the daemon's process keeps to it (client-host-news.ts): pushed from here, named by host. */
  hostNews(host: string, task: TaskInfo, before: TaskInfo | null, current: () => TaskInfo | null): void {
    this.notify.hostNews(host, task, before, current);
  }

  notifyTest(): Promise<OpResult<"notifyTest">> {
    return this.notify.test();
  }

  /** A snapshot failure streak begins or ends: every subscribed client hears of it at once. */
  snapshotState(state: SnapshotState): void {
    const changed = state.error !== this.snapshot.error;
    this.snapshot = state;
    if (!changed) return;
    if (state.error) this.options.log(`snapshots failing since ${state.error.since}; subscribed clients told`);
    for (const peer of this.greeted()) if (peer.subscribed) peer.conn.sendEvent({ type: "snapshot", error: state.error });
  }

  private isAttached(task: Task): boolean {
    for (const peer of this.greeted()) if (isAttachedTo(peer, task)) return true;
    return false;
  }

  spawn(peer: Peer, start: TaskStart): Task {
    const id = this.ids.assign(start.recorded, (id) => this.tasks.has(id));
    const { scrollback, idleMs, log } = this.options;
    const task = new Task(taskSpec(id, start, peer.hello, { scrollback, idleMs, agents: this.agents, probe: this.probe, log }), this);
    task.diskLog = this.hooks.history?.logs.open(String(task.id)) ?? null;
    task.notify = start.notify ?? true;
    this.tasks.set(task.id, task);
    if (task.id < this.highestId) this.outOfIdOrder = true;
    this.highestId = Math.max(this.highestId, task.id);
    this.resources.keepSampling();
    this.events.broadcast("created", task.info());
    this.changes.started(task, task.agent !== null || task.worktree !== null, start.baseline);
    this.checkpoints.started(task, task.agent !== null || task.worktree !== null, start.checkpoints);
    this.hooks.recipeChanged();
    return task;
  }

  remove(task: Task): void {
    const info = task.info();
    this.tasks.delete(task.id);
    this.services.removed(task);
    this.events.forget(task);
    this.notify.forget(task.id);
    this.changes.removed(task);
    this.checkpoints.removed(task);
    for (const peer of this.greeted()) if (watches(peer, task) || followsLines(peer, task)) endStream(peer, "removed", info);
    task.dispose();
    this.hooks.history?.remove(task);
    this.events.broadcast("removed", info);
    this.hooks.recipeChanged();
  }

  taskChanged(task: Task, recipeChanged: boolean): void {
    this.events.broadcast("changed", task.info());
    if (recipeChanged) this.hooks.recipeChanged();
  }

  /** What of these tasks' runs left their process groups and so outlived the sweep (reported, never signalled). */
  escaped(tasks: readonly Task[]): Escapee[] {
    return escapedFromTasks(tasks);
  }

  find(ref: TaskRef): Task {
    const tasks = this.inIdOrder();
    return "id" in ref ? taskById(ref.id, tasks) : resolveTaskRef(ref.typed, tasks);
  }

  list(): TaskInfo[] {
    const now = performance.now();
    return this.inIdOrder().map((t) => t.info(now));
  }

  /** Every task in id order, as `ls` promises: the map is put back in order once after a recovery broke it. */
  private inIdOrder(): Task[] {
    if (this.outOfIdOrder) {
      const sorted = [...this.tasks.values()].sort((a, b) => a.id - b.id);
      this.tasks.clear();
      for (const task of sorted) this.tasks.set(task.id, task);
      this.outOfIdOrder = false;
    }
    return [...this.tasks.values()];
  }

  /** What a save or snapshot stores: agents in their resume form when their conversation is known. */
  recipe(): RecipeEntry[] {
    return savedRecipe(this.inIdOrder());
  }

  /** What a recovery snapshot stores (daemon-recipe.ts), with the entries a load has not reached yet. */
  snapshotRecipe(): SnapshotRecipe {
    const running = (t: Task) => meantToRun(t) || (this.runningAtStop?.has(t) ?? false);
    const split = snapshotOf(this.inIdOrder(), running, this.hooks.history !== null, (t) => this.checkpoints.recorded(t));
    split.running.push(...this.loads.notReached());
    return split;
  }

  /** Every task, in the order `ls` lists them. */
  all(): Task[] {
    return this.inIdOrder();
  }

  /** Whether this very task is still in the fleet (a rerun may wait while someone removes it). */
  holds(task: Task): boolean {
    return this.tasks.get(task.id) === task;
  }

  snapshotError(): SnapshotError | null {
    return this.snapshot.error;
  }

  status(): DaemonStatus {
    // Counts only: building every task's info (preview, agent files) would make status cost
    // milliseconds per hundred tasks.
    const tasks = [...this.tasks.values()];
    return {
      running: true as const,
      pid: process.pid,
      version: VERSION,
      startedAt: this.startedAt.toISOString(),
      socket: socketPath(),
      tasks: { total: tasks.length, running: tasks.filter((t) => t.running).length },
      clients: clientStats(this.peers.values(), this.droppedBehind),
      snapshotError: this.snapshot.error,
      snapshotPendingSince: this.snapshot.pendingSince,
      history: this.hooks.history?.status() ?? HISTORY_OFF,
      crash: this.handshake.crash,
      settings: daemonSettings(this.options.settings),
      push: this.notify.status(),
      resources: this.resources.status(),
    };
  }

  /** Reads the settings again (SIGHUP, `fleetcom config --reload`) and goes by them (daemon-settings.ts). */
  reloadSettings(): OpResult<"reload"> {
    const result = reloadSettings(this.options, {
      tasks: () => this.tasks.values(),
      notifyTo: (targets, settings) => this.notify.configure(targets, settings),
      idleRuleChanged: () => this.events.idleRuleChanged(),
    });
    this.reloaded?.();
    return result;
  }

  /** The one teardown: TERM every task's group, KILL after the grace period, then let go. */
  stop(): Promise<void> {
    this.events.stop();
    this.changes.stop();
    this.resources.stop();
    this.runningAtStop ??= new Set([...this.tasks.values()].filter(meantToRun));
    this.services.stopping();
    this.stopping ??= (async () => {
      for (const { conn, view } of this.greeted()) if (view.kind === "attached") conn.send({ type: "attach-end", reason: "shutdown", task: view.task.info() });
      for (const peer of this.greeted()) if (peer.view.kind === "lines") endStream(peer, "shutdown", peer.view.task.info());
      // Dependents first, each with its own stop (docs/services.md).
      await this.services.stopAll([...this.tasks.values()]);
      // The final snapshot pass runs after this: keep what the capture files said, then remove them.
      for (const task of this.tasks.values()) task.agent?.freeze();
      this.agents.dispose();
      clearTimeout(this.probeStart);
      this.probe.dispose();
      for (const peer of this.peers.values()) peer.conn.close();
      this.hooks.stopped();
    })();
    return this.stopping;
  }
}
