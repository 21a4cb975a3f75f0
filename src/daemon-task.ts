// One task: a shell command in its own PTY and session, the headless screen it draws on, and its
// life (running, idle, exited; rerun in place). The daemon owns tasks; a task never talks to clients.
import type { AgentNamespace } from "./agent-namespace.ts";
import type { FlagProbe } from "./agent-probe.ts";
import { type AgentSignal, type Attention, type AttentionEvent, NO_ATTENTION, RESUMED_QUIET_MS, nextAttention, promptLine } from "./task-attention.ts";
import { type AgentRun, prepareRun } from "./agent-run.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import type { WorktreeRecord } from "./recipe.ts";
import { isIdle } from "./task-idle.ts";
import { DEFAULT_IDLE_SECONDS } from "./settings.ts";
import { spawnPty, type Pty } from "./term-pty.ts";
import type { Baseline } from "./git.ts";
import type { ChangeStats } from "./text-changes.ts";
import { ProcessGroup, terminateGroup } from "./daemon-process-group.ts";
import { forgetGroup, watchGroup } from "./daemon-reaper.ts";
import { Screen, type TaskScreen } from "./term-screen.ts";
import type { LineWatch } from "./term-lines.ts";
import { type RestoredHistory, withRestored } from "./recipe-history.ts";
import { FinishedScreen } from "./term-screen-finished.ts";
import { TerminalScan } from "./text-scan.ts";
import type { ProcStat } from "./proc.ts";
import type { TaskResources } from "./task-resources.ts";
import type { ServiceFields } from "./recipe-services.ts";
import { type Readiness, notReadyText } from "./task-ready.ts";
import { type RestartState, restartState, runSeparator } from "./task-restart.ts";
import type { TaskLog } from "./daemon-logs.ts";
import type { TaskSpec } from "./daemon-task-spec.ts";

const KILL_GRACE_MS = 2_000;
/** How far back the CPU sparkline reaches. */
export const CPU_TRAIL_MS = 60_000;

export interface TaskListener {
  output(task: Task, chunk: Uint8Array): void;
  reply(task: Task, data: string): void;
  exited(task: Task): void;
  /** Input that waited for the task has all reached its PTY. */
  inputDrained(task: Task): void;
  /** The task's attention changed; `before` is what it was. */
  attention(task: Task, before: Attention | null): void;
  /** A run has started (the first, a rerun): its readiness probe begins (daemon-ready.ts). */
  started?(task: Task): void;
}

export class Task {
  readonly id: number;
  readonly cwd: string;
  /** What runs; a rerun of an agent makes it the resume form. */
  command: string;
  /** The command as typed, which a rerun keeps: what the task is called without a name. */
  readonly typed: string;
  /** The git worktree the client made for the task, kept in its recipe. */
  readonly worktree: WorktreeRecord | null;
  /** Variables given with `run --env` (TaskSpec givenEnv). */
  private readonly givenEnv: Record<string, string>;
  /** Resident memory, in bytes, its group may use (`--max-memory`); null for no limit. */
  readonly maxMemory: number | null;
  /** The run's CPU and memory at the last sample (daemon-resources.ts); null until sampled. */
  resources: TaskResources | null = null;
  /** The run's CPU at each sample, with when (performance.now), the oldest dropped past a minute. */
  cpuTrail: { at: number; cpu: number }[] = [];
  /** Why fleetcom stopped this run itself (over its memory limit); null when it did not. */
  stopReason: string | null = null;
  /** Started by a load (TaskInfo loaded). */
  readonly loaded: boolean;
  name: string | null;
  group: string | null;
  /** Its readiness probe, start order and stop, kept for its recipe. */
  readonly service: ServiceFields;
  /** Whether this run's probe has passed; set by daemon-ready.ts, null without a probe. */
  readiness: Readiness | null = null;
  tagged = false;
  /** Whether its news goes to notify's destinations (`fleetcom notify off|on`). */
  notify = true;
  run = 0;
  /** Its git baseline and what it changed since (daemon-changes.ts), once counted. */
  baseline: Baseline | null = null;
  changes: ChangeStats | null = null;
  /** The live emulator while the task runs; once it has exited and been parsed, a compact copy. */
  screen!: TaskScreen;
  pid: number | null = null;
  exitCode: number | null = null;
  signal: string | null = null;
  startedAt = new Date();
  endedAt: Date | null = null;
  /** Why the run could not start (no PTY to be had: the fd limit), null when it started. */
  startError: string | null = null;
  /** Wall-clock time of the last output, for people; idleness uses `lastActivity`. */
  lastOutputAt: number | null = null;
  /** Monotonic time (performance.now) of the run's start or its last output. */
  private lastActivity = performance.now();
  /** The run's process group (null when the run could not start). */
  private processGroup: ProcessGroup | null = null;
  /** The supported agent this run is, and its conversation; null for any other command. */
  agent: AgentRun | null = null;
  cols: number;
  rows: number;
  /** History from before a recovery, shown above its marker line (recipe-history.ts); null unless recovered. */
  restored: RestoredHistory | null = null;
  /** Output since the history on disk was last written: the one thing the output path does for it (daemon-history.ts). */
  historyDirty = false;
  /** Its log on disk, which every chunk of output is handed to (daemon-logs.ts); null while history is off. */
  diskLog: TaskLog | null = null;
  /** Lines of scrollback the emulator keeps, which bounds the history. */
  private scrollback = 0;
  private pty: Pty | null = null;
  private scan = new TerminalScan();
  private tracker = NO_ATTENTION;
  /** A resumed agent run not yet heard from: armed until it goes quiet, speaks, is attended or ends. */
  private resumeQuiet: { timer: ReturnType<typeof setTimeout> | null } | null = null;
  private readonly agents: AgentNamespace;
  private readonly probe: Pick<FlagProbe, "flagsOf">;
  private readonly log: (message: string) => void;
  /** Quiet this long, the task is idle; a reload of idle_seconds changes it. */
  idleMs: number;
  /** Who waits for this run to end (`ended`). */
  private endWaiters: (() => void)[] = [];
  /** Its restart policy and where it stands with it (task-restart.ts, daemon-restarts.ts). */
  restartState: RestartState;
  /** While it waits out its backoff: when the policy starts it again (epoch ms). */
  nextRestartAt: number | null = null;
  /** This run was ended on purpose (kill, restart, rm --force): no policy starts it again. */
  stoppedOnPurpose = false;
  /** The environment of the client that last started it, kept in memory for a policy's restarts. */
  private startEnv: Record<string, string> = {};
  /** What this task's earlier runs printed, each run under its separator line: its history goes on across reruns. */
  private earlierRuns: string[] = [];

  constructor(
    spec: TaskSpec,
    private readonly listener: TaskListener,
  ) {
    this.agents = spec.agents;
    this.probe = spec.probe;
    this.log = spec.log;
    this.idleMs = spec.idleMs ?? DEFAULT_IDLE_SECONDS * 1000;
    this.id = spec.id;
    this.cwd = spec.cwd;
    this.command = spec.command;
    this.typed = spec.typed;
    this.worktree = spec.worktree;
    this.givenEnv = spec.givenEnv ?? {};
    this.maxMemory = spec.maxMemory ?? null;
    this.service = spec.service ?? {};
    this.loaded = spec.loaded ?? false;
    this.name = spec.name;
    this.group = spec.group;
    this.cols = spec.cols;
    this.rows = spec.rows;
    this.restartState = spec.restart ?? restartState();
    this.start(spec.env, spec.scrollback);
  }

  get running(): boolean {
    return this.endedAt === null;
  }

  /** Whether the task waits for its user, and why (task-attention.ts). */
  get attention(): Attention | null {
    return this.tracker.attention;
  }

  /**
   * The user typed into the task (keys while attached, `send`): the question is answered. Agent
   * events already written happened before this (an agent runs its Stop hook several times, and the
   * file watcher may not have reported them all yet): apply them first, so that none of them raises
   * the attention the user just answered.
   */
  attended(): void {
    this.disarmResumeQuiet();
    if (this.tracker.attention) this.applyAgentSignals();
    this.feel({ type: "attended" });
  }

  /** The agent's attention events file may have grown: apply what it says, in order. */
  agentFilesChanged(run: number): void {
    if (run !== this.run) return;
    this.agent?.filesChanged();
    if (!this.running) return;
    this.applyAgentSignals();
  }

  /** A wait the agent gives no reason for takes its last reply from its store, else the screen's last prompt line, as its message. */
  private applyAgentSignals(): void {
    for (const signal of this.agent?.newSignals() ?? []) {
      this.disarmResumeQuiet();
      this.feel({ type: "agent", signal: this.withMessage(signal) });
    }
  }

  private withMessage(signal: AgentSignal): AgentSignal {
    if (signal.kind !== "waiting" || signal.message !== null) return signal;
    return { ...signal, message: this.agent?.lastReply() ?? promptLine(this.screen.rowsToCursor()) };
  }

  /**
   * A resumed agent shows its conversation and sits at its prompt, but says so on no channel
   * (Claude's Stop and Codex's notify come after a turn): once it has drawn and been quiet for
   * RESUMED_QUIET_MS with no word from its own channel, it waits for input.
   */
  private resumeQuietTick(): void {
    if (!this.resumeQuiet) return;
    if (this.resumeQuiet.timer) clearTimeout(this.resumeQuiet.timer);
    this.resumeQuiet.timer = setTimeout(() => {
      this.resumeQuiet = null;
      if (this.running && this.tracker.attention === null)
        this.feel({ type: "agent", signal: this.withMessage({ kind: "waiting", state: "input", message: null }) });
    }, RESUMED_QUIET_MS);
  }

  private disarmResumeQuiet(): void {
    if (this.resumeQuiet?.timer) clearTimeout(this.resumeQuiet.timer);
    this.resumeQuiet = null;
  }

  private feel(event: AttentionEvent): void {
    const before = this.tracker.attention;
    this.tracker = nextAttention(this.tracker, event, { wall: Date.now(), mono: performance.now() });
    if (this.tracker.attention !== before) this.listener.attention(this, before);
  }

  /**
   * Spawns the command; `askingEnv` is the asking client's environment and is never stored (what
   * `run --env` gave goes over it). A supported
   * agent gets its capture instrumentation in the executed string only: the command stays as typed.
   */
  start(askingEnv: Record<string, string>, scrollback: number): void {
    const clientEnv = { ...askingEnv, ...this.givenEnv };
    this.startEnv = askingEnv;
    this.stoppedOnPurpose = false;
    this.nextRestartAt = null;
    this.screen?.dispose();
    this.scrollback = scrollback;
    this.historyDirty = true;
    const screen = new Screen({ cols: this.cols, rows: this.rows, scrollback });
    screen.onReply((data) => this.listener.reply(this, data));
    this.screen = screen;
    this.run += 1;
    this.startedAt = new Date();
    this.lastActivity = performance.now();
    this.endedAt = null;
    this.exitCode = null;
    this.startError = null;
    this.signal = null;
    this.lastOutputAt = null;
    this.processGroup = null;
    this.resources = null;
    this.cpuTrail = [];
    this.stopReason = null;
    this.scan = new TerminalScan();
    this.tracker = NO_ATTENTION;
    const run = this.run;
    const flagsOf = (program: string) => this.probe.flagsOf(program, clientEnv, this.cwd);
    const prepared = prepareRun(this.command, {
      taskId: this.id,
      run,
      cwd: this.cwd,
      env: clientEnv,
      spawnedAt: this.startedAt,
      namespace: this.agents,
      flagsOf,
      log: this.log,
    });
    this.agent = prepared.run;
    this.disarmResumeQuiet();
    if (this.agent?.resumed) this.resumeQuiet = { timer: null };
    // FLEETCOM_DAEMON_PID tells a later `recover` which daemon a process it finds belongs to (client-survivors.ts).
    const env = { ...clientEnv, ...prepared.env, TERM: "xterm-256color", FLEETCOM_TASK_ID: String(this.id), FLEETCOM_DAEMON_PID: String(process.pid) };
    const shell = clientEnv.SHELL || "/bin/sh";
    try {
      this.pty = spawnPty({
        argv: [shell, "-c", prepared.executed],
        cwd: this.cwd,
        env,
        cols: this.cols,
        rows: this.rows,
        onData: (chunk) => this.onOutput(chunk),
        onInputDrained: () => this.listener.inputDrained(this),
      });
    } catch (error) {
      this.failToStart(error);
      return;
    }
    this.pid = this.pty.pid;
    const group = (this.processGroup = new ProcessGroup(this.pty.pid));
    watchGroup(group.pgid, group.leaderStart, this.log);
    this.listener.started?.(this);
    this.agent?.spawned(this.pty.pid);
    this.pty.exited.then(async (exit) => {
      // First, before any await: the runtime has reaped the leader, and its PID proves nothing now.
      group.leaderReaped();
      forgetGroup(group.pgid);
      // The exit hint is read once every byte the run printed is in the terminal.
      await this.screen.flushed();
      if (this.run !== run) return;
      this.exitCode = exit.exitCode;
      this.signal = exit.signal;
      this.endedAt = new Date();
      this.pty = null;
      this.diskLog?.ended();
      this.agent?.exited(this.screen.logicalLines());
      this.disarmResumeQuiet();
      this.feel({ type: "exited" });
      this.announceExit();
      this.finishScreen();
    });
  }

  /**
   * Resolves once the run has ended and the daemon has been told (at once when it has), or after
   * `withinMs` whatever happens: `kill` answers then, so `kill && rerun` and `rm --force` find the
   * task finished, and a run that somehow never reports its end cannot hold the request forever.
   */
  ended(withinMs: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, withinMs);
      this.endWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private announceExit(): void {
    this.listener.exited(this);
    for (const wake of this.endWaiters.splice(0)) wake();
  }

  /** An exited task keeps its screen as text, not as an emulator (term-screen-finished.ts). */
  private finishScreen(): void {
    const live = this.screen;
    if (!(live instanceof Screen)) return;
    live.finish((state) => {
      if (this.screen === live) this.screen = new FinishedScreen(state);
    });
  }

  /** What a rerun would run, and the notice it would give: what the binary is asked about before it (agent-probe.ts). */
  rerunCommand(): { command: string; notice: string | null } {
    return this.agent?.rerunCommand(this.command) ?? { command: this.command, notice: null };
  }

  /**
   * Runs a finished task again in place; a supported agent whose conversation is in its store
   * resumes it, and a resume form that failed at once falls back to the program as typed. Returns
   * the notice that says so (also written at the top of the new screen), or null.
   */
  rerun(clientEnv: Record<string, string>, scrollback: number): string | null {
    this.keepRunHistory();
    const next = this.rerunCommand();
    this.command = next.command;
    this.start(clientEnv, scrollback);
    // The PTY's first output comes in a later turn of the event loop, so this line stays on top.
    if (next.notice) this.screen.write(`fleetcom: ${next.notice}\r\n`);
    return next.notice;
  }

  /** A restart policy's rerun: under the environment of the client that last started the task. */
  restartByPolicy(scrollback: number): string | null {
    return this.rerun(this.startEnv, scrollback);
  }

  /** Resolves once the screen can be read at once, as a rerun reads it to keep the run's history. */
  async readable(): Promise<void> {
    if (!(this.screen instanceof Screen)) await this.screen.flushed();
  }

  /** The run that ended joins the earlier runs' history, and the next one starts under its separator line. */
  private keepRunHistory(): void {
    const limit = this.historyLimit;
    const separator = runSeparator(this.run + 1, new Date(), this);
    this.diskLog?.note(separator);
    const lines = [...this.earlierRuns, ...this.screen.historyLines(limit), separator];
    this.earlierRuns = lines.length > limit ? lines.slice(-limit) : lines;
  }

  /** The restart policy gave up: the task shows the crash loop and waits for its user (task-attention.ts). */
  crashLooped(text: string): void {
    this.feel({ type: "crash-loop", message: text });
  }

  private failToStart(error: unknown): void {
    this.startError = error instanceof Error ? error.message : String(error);
    const message = `fleetcom: could not start: ${this.startError}\r\n`;
    this.screen.write(message);
    this.exitCode = 127;
    this.endedAt = new Date();
    queueMicrotask(() => {
      this.announceExit();
      this.finishScreen();
    });
  }

  private onOutput(chunk: Uint8Array): void {
    this.historyDirty = true;
    this.lastOutputAt = Date.now();
    this.diskLog?.push(chunk, this.lastOutputAt);
    this.lastActivity = performance.now();
    // Clients first: forwarding must never wait behind the headless terminal.
    this.listener.output(this, chunk);
    this.screen.write(chunk);
    this.resumeQuietTick();
    if (this.scan.push(chunk)) this.feel({ type: "bell" });
    else if (this.tracker.attention?.state === "bell") this.feel({ type: "output" });
  }

  write(data: Uint8Array | string): void {
    this.pty?.write(data);
  }

  /** Bytes of input the task has not read yet (see Pty.pendingInput); 0 once it has exited. */
  get pendingInput(): number {
    return this.pty?.pendingInput ?? 0;
  }

  /** Whether the size changed. */
  resize(cols: number, rows: number): boolean {
    if (cols === this.cols && rows === this.rows) return false;
    this.cols = cols;
    this.rows = rows;
    this.screen.resize(cols, rows);
    this.pty?.resize(cols, rows);
    return true;
  }

  /** `now` is monotonic (performance.now). */
  idle(now = performance.now()): boolean {
    return this.running && isIdle(this.lastActivity, now, this.idleMs);
  }

  /**
   * TERM to the whole process group, KILL after the grace period to whatever is still there; only
   * while the group is provably this run's (daemon-process-group.ts), so a finished task whose PID now
   * belongs to someone else is never signalled.
   */
  async terminate(): Promise<void> {
    const { stop_signal, stop_timeout } = this.service;
    const first = stop_signal === undefined ? "SIGTERM" : ((stop_signal.startsWith("SIG") ? stop_signal : `SIG${stop_signal}`) as NodeJS.Signals);
    const graceMs = stop_timeout === undefined ? KILL_GRACE_MS : stop_timeout * 1000;
    if (this.processGroup) await terminateGroup(this.processGroup, graceMs, undefined, first);
  }

  /** Its readiness probe never passed: the task waits for its user (`not ready after 60s`). */
  notReady(timeoutSeconds: number): void {
    this.feel({ type: "not-ready", message: notReadyText(timeoutSeconds) });
  }

  /** The live members of this run's process group among `stats`, only while they prove the group is still its own (daemon-process-group.ts). */
  groupMembers<S extends ProcStat>(stats: S[], now: number | null): S[] {
    return this.running ? (this.processGroup?.membersIn(stats, now) ?? []) : [];
  }

  /** The scrollback setting counts the lines above the screen, as tmux's and xterm's do: the history is those and the screen. */
  private get historyLimit(): number {
    return this.scrollback + this.rows;
  }

  /** A recovered task starts with the history it had before, above a marker line. */
  restore(history: RestoredHistory): void {
    this.restored = history.lines.length > this.historyLimit ? { ...history, lines: history.lines.slice(-this.historyLimit) } : history;
    this.historyDirty = true;
  }

  /** The task's history (`peek --history`, grep, the copy on disk): restored lines, the marker, then its own, after every byte printed so far. */
  async history(styled = false): Promise<string[]> {
    // A live screen reads after every byte written (parsing the backlog only when it must: the
    // history writer reads every task that printed); a finished one once a resize has settled.
    if (!(this.screen instanceof Screen)) await this.screen.flushed();
    const limit = this.historyLimit;
    const live = styled ? await this.screen.styledHistoryLines(limit) : this.screen.historyLines(limit);
    return withRestored(this.restored, [...this.earlierRuns, ...live], limit);
  }

  /**
   * For `logs --follow`: the complete lines of the history, and then each line as the task completes
   * it (term-lines.ts). A task that has exited has no more: its whole history, and no watch.
   */
  async followLines(onLine: (line: string) => void): Promise<{ history: string[]; watch: LineWatch | null }> {
    const screen = this.screen;
    if (!(screen instanceof Screen) || !this.running) return { history: await this.history(), watch: null };
    const watch = await screen.followLines(onLine);
    return { history: withRestored(this.restored, [...this.earlierRuns, ...watch.history], this.historyLimit), watch };
  }

  /** `now` is monotonic (performance.now), for the idle flag. */
  info(now = performance.now()): TaskInfo {
    return {
      id: this.id,
      run: this.run,
      command: this.command,
      typed: this.typed,
      name: this.name,
      group: this.group,
      cwd: this.cwd,
      tagged: this.tagged,
      state: this.running ? "running" : "exited",
      idle: this.idle(now),
      exitCode: this.exitCode,
      signal: this.signal,
      pid: this.pid,
      startedAt: this.startedAt.toISOString(),
      endedAt: this.endedAt?.toISOString() ?? null,
      lastOutputAt: this.lastOutputAt === null ? null : new Date(this.lastOutputAt).toISOString(),
      preview: this.agent?.livePreview() ?? this.screen.previewLine(),
      agent: this.agent?.agent ?? null,
      conversation: this.agent ? (this.agent.known() ?? this.agent.storedMatch()) : null,
      attention: this.attention,
      usage: this.agent?.usage(now) ?? null,
      worktree: this.worktree,
      baseline: this.baseline,
      changes: this.changes,
      loaded: this.loaded,
      notify: this.notify,
      cols: this.cols,
      rows: this.rows,
      ...this.resourcesInfo(now),
      maxMemory: this.maxMemory,
      stopReason: this.stopReason,
      readiness: this.readiness,
      restart: this.restartState.rule.policy,
      maxRestarts: this.restartState.rule.maxRestarts,
      restarts: this.restartState.restarts,
      nextRestartAt: this.nextRestartAt === null ? null : new Date(this.nextRestartAt).toISOString(),
    };
  }

  /** The last sample's figures while the run goes on; none once it has ended. */
  private resourcesInfo(now: number): Pick<TaskInfo, "cpu" | "rss" | "threads" | "processes" | "cpuRecent"> {
    const r = this.running ? this.resources : null;
    const cpuRecent = r ? this.cpuTrail.filter((p) => now - p.at <= CPU_TRAIL_MS).map((p) => p.cpu) : [];
    return { cpu: r?.cpu ?? null, rss: r?.rss ?? null, threads: r?.threads ?? null, processes: r?.processes ?? null, cpuRecent };
  }

  dispose(): void {
    this.disarmResumeQuiet();
    this.screen.dispose();
    this.agents.removeTask(this.id);
  }
}
