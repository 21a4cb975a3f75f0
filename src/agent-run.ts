// The agent side of one task run: what is executed for the command as typed, and which conversation
// the run is in, from the evidence in the precedence of agent.ts. The agent list lives here; an
// agent's knowledge lives in its own agent-<name>.ts.
//
// Resume only what exists (agents.md): a known ID goes into a save, a snapshot or a rerun only once
// the agent's own store holds that conversation, since the real CLIs refuse to resume an ID they
// have no transcript for, and the task would then fail at every start.
import type { Env } from "./paths.ts";
import { commandCode } from "./agent-commandcode.ts";
import { claude } from "./agent-claude.ts";
import { codex } from "./agent-codex.ts";
import { grok } from "./agent-grok.ts";
import { gemini } from "./agent-gemini.ts";
import { qwen } from "./agent-qwen.ts";
import { opencode } from "./agent-opencode.ts";
import { join } from "node:path";
import { entriesOf, linesSince, modifiedMs, textOf } from "./agent-files.ts";
import type { AgentNamespace } from "./agent-namespace.ts";
import type { AgentSignal } from "./task-attention.ts";
import { liveGroupOf } from "./proc.ts";
import { type Agent, type Launch, type LiveState, type RunAssets, conversationId, detect, idCheckOf, instrumentedCommand, resumeCommand } from "./agent.ts";
import { type UsageStore, usageStoreFor } from "./agent-usage.ts";
import type { TokenUsage } from "./task-usage.ts";

export const AGENTS: readonly Agent[] = [claude, codex, grok, commandCode, gemini, qwen, opencode];

/** The agents the user declared in config.toml (agent-declared.ts), set by the daemon at start and at a reload. */
let declared: readonly Agent[] = [];

/** Every agent a command can run: the built-in ones first, so a declared one never takes a built-in's word. */
export function knownAgents(): readonly Agent[] {
  return declared.length === 0 ? AGENTS : [...AGENTS, ...declared];
}

/** The declared agents from now on; those whose executable a built-in agent already answers to are returned, unused. */
export function declareAgents(agents: readonly Agent[]): Agent[] {
  const builtIn = new Set(AGENTS.flatMap((a) => a.words));
  declared = agents.filter((a) => !a.words.some((w) => builtIn.has(w)));
  return agents.filter((a) => !declared.includes(a));
}

export interface RunContext {
  taskId: number;
  run: number;
  cwd: string;
  /** The launching client's environment; only the agent's `envKeys` are kept. */
  env: Env;
  spawnedAt: Date;
  namespace: AgentNamespace;
  /** The options the program's binary lists in its `--help`; null when that is not known (agent-probe.ts). */
  flagsOf(program: string): ReadonlySet<string> | null;
  log(message: string): void;
}

/** What to hand to `$SHELL -c` and the extra environment, and the run's conversation tracker, if any. */
export interface Prepared {
  executed: string;
  env: Record<string, string>;
  run: AgentRun | null;
}

export function prepareRun(command: string, ctx: RunContext): Prepared {
  const launch = detect(command, knownAgents());
  if (!launch) return { executed: command, env: {}, run: null };
  const unsupported = unsupportedFlags(launch, ctx);
  if (unsupported !== null) {
    ctx.log(`task ${ctx.taskId}: ${launch.agent.name} runs as typed: ${unsupported}`);
    return { executed: command, env: {}, run: new AgentRun(launch, ctx, null, launch.id) };
  }
  let assets: RunAssets | null = null;
  try {
    assets = ctx.namespace.assetsFor(ctx.taskId, ctx.run);
    const instrumented = launch.agent.instrument(launch, assets, ctx.env, ctx.cwd);
    if (instrumented) {
      if (instrumented.warning) ctx.log(`task ${ctx.taskId}: ${launch.agent.name}: ${instrumented.warning}`);
      const run = new AgentRun(launch, ctx, assets, instrumented.pinned);
      return { executed: instrumentedCommand(launch, instrumented.args), env: instrumented.env, run };
    }
  } catch (error) {
    // Never block the spawn: the task runs as typed and the other evidence still counts.
    ctx.log(`task ${ctx.taskId}: ${launch.agent.name} runs uninstrumented: ${(error as Error)?.message ?? error}`);
  }
  return { executed: command, env: {}, run: new AgentRun(launch, ctx, null, launch.id) };
}

/** The program word of an agent command whose instrumentation needs launch flags; null for any other. */
export function flagsNeeded(command: string): { program: string; flags: readonly string[] } | null {
  const launch = detect(command, knownAgents());
  const flags = launch?.agent.launchFlags(launch) ?? [];
  return launch && flags.length > 0 ? { program: launch.program, flags } : null;
}

/**
 * What a user typed to start what a save or snapshot stored as `command`: an agent's resume form was
 * written by fleetcom, so it stands for the program word as typed; any other command is as typed. For
 * a recipe that does not record the typed form (a saved session, an older snapshot).
 */
export function typedForm(command: string): string {
  const launch = detect(command, knownAgents());
  return launch?.id ? launch.program : command;
}

/** The program words of the agents whose instrumentation needs launch flags: what the daemon asks ahead of any spawn. */
export function probedPrograms(): string[] {
  return knownAgents()
    .flatMap((agent) => agent.words)
    .filter((word) => flagsNeeded(word) !== null);
}

/** Why the binary cannot take the launch flags, or null when it lists them all in its --help. */
function unsupportedFlags(launch: Launch, ctx: RunContext): string | null {
  const needed = launch.agent.launchFlags(launch);
  if (needed.length === 0) return null;
  const listed = ctx.flagsOf(launch.program);
  if (listed === null) return `could not learn in time which options ${launch.program} takes`;
  const missing = needed.filter((flag) => !listed.has(flag));
  return missing.length === 0 ? null : `${launch.program} --help lists no ${missing.join(", ")}`;
}

/** How often a run whose registry entry is not found yet looks again. */
const LIVE_LOOK_MS = 2_000;

/**
 * The registry entry `<dir>/<pid>.json` of a process in the run's process group: the shell the
 * task runs may have exec'd the agent (same pid) or started it as a child (same group).
 */
function livePidIn(dir: string, pgid: number): number | null {
  const pids = entriesOf(dir)
    .map((e) => /^(\d+)\.json$/.exec(e.name)?.[1])
    .filter((p): p is string => p !== undefined)
    .map(Number);
  return pids.find((pid) => pid === pgid) ?? pids.find((pid) => liveGroupOf(pid) === pgid) ?? null;
}

/** A resumed run that ends within this long, with its conversation nowhere in the store, failed to resume. */
export const FAILED_AT_ONCE_MS = 10_000;

/**
 * How long a read of the capture channel stands without word from the namespace watcher: ls and
 * every batch of events ask for the conversation, and reading the files each time cost a read per
 * task per call. A watcher event re-reads at once; this bound covers what it cannot see (a file
 * made deep below the watched directory).
 */
const CAPTURE_FRESH_MS = 2_000;

/**
 * How long the usage read from the store stands while the agent works: output asks for it with
 * every batch of events, and a turn's end (the agent's events) reads it again at once.
 */
const USAGE_FRESH_MS = 3_000;

/**
 * How long a wait is held back for the reply its agent writes after the hook (Command Code's is
 * written a few ms later); past it the wait goes as it is, its message from the screen.
 */
const REPLY_HOLD_MS = 2_000;
/** How often a held wait looks for the reply. */
const REPLY_LOOK_MS = 50;

export class AgentRun {
  private hint: string | null = null;
  /** The capture channel as last read, and when (monotonic ms). */
  private capture: { id: string | null; at: number } | null = null;
  private stored: string | null = null;
  /** IDs the store was seen to hold; a transcript does not go away while a task runs. */
  private readonly held = new Set<string>();
  /** The run was a resume form that ended at once, its conversation not in the store. */
  private failedAtOnce = false;
  /** What `savedFormChanged` last saw. */
  private lastResumable: string | null = null;
  /** The run's process group while it runs; the agent's live registry entry is one of its members. */
  private pgid: number | null = null;
  private livePid: number | null = null;
  private liveLookedAt = Number.NEGATIVE_INFINITY;
  /** The conversation the live registry last named: evidence still once the process is gone. */
  private lastLiveId: string | null = null;
  /** Set when the supervisor stops: the capture as last read, since its files are about to go. */
  private frozen: string | null | undefined = undefined;
  /** How far the run's attention events have been read. */
  private eventsRead = 0;
  /** The store of the conversation whose tokens are shown, when its agent keeps them. */
  private usageStore: { id: string; store: UsageStore | null; readAt: number; malformed: number; usage: TokenUsage | null } | null = null;
  private usageDue = true;
  private readonly env: Env;
  private readonly cwd: string;
  private readonly spawnedAt: Date;
  private readonly log: (message: string) => void;
  private readonly taskId: number;
  /**
   * Signals read but not given yet: a wait whose reply the agent has not written yet, and what came
   * after it; `since` the event's time (wall, as file times are), `until` the bound (monotonic).
   */
  private heldSignals: { signals: AgentSignal[]; since: number; until: number } | null = null;
  private readonly lookAgain: (ms: number) => void;

  constructor(
    private readonly launch: Launch,
    ctx: RunContext,
    private readonly assets: RunAssets | null,
    private readonly pinned: string | null,
  ) {
    this.env = Object.fromEntries(launch.agent.envKeys.filter((k) => ctx.env[k] !== undefined).map((k) => [k, ctx.env[k]]));
    this.cwd = ctx.cwd;
    this.spawnedAt = ctx.spawnedAt;
    this.log = ctx.log;
    this.taskId = ctx.taskId;
    this.lookAgain = (ms) => ctx.namespace.lookAgainAt(ctx.taskId, ctx.run, ms);
  }

  get agent(): string {
    return this.launch.agent.name;
  }

  /** The run is a resume form: a conversation came back and the agent sits at its prompt once drawn. */
  get resumed(): boolean {
    return this.launch.id !== null;
  }

  /** The run's process started: its group is where the live registry's entry is looked for. */
  spawned(pgid: number): void {
    this.pgid = pgid;
  }

  /**
   * Reads the exit hint once the task has exited and all its output is in the terminal, and notes
   * whether a resume form failed at once: ended within seconds, its conversation not in the store.
   */
  exited(lines: readonly string[], now = Date.now()): void {
    this.pgid = null;
    this.hint = this.launch.agent.exitHint(lines, this.env);
    const id = this.launch.id;
    this.failedAtOnce = id !== null && now - this.spawnedAt.getTime() < FAILED_AT_ONCE_MS && !this.holds(id);
  }

  /** The conversation from the exit hint, the capture channel, the live registry or the pin: what `ls` shows. */
  known(): string | null {
    const live = this.live()?.id ?? this.lastLiveId;
    return conversationId({ exitHint: this.hint, captured: this.captured(), live, pinned: this.pinned }, idCheckOf(this.launch.agent));
  }

  /** What the task's row shows instead of its last screen line while the agent's registry says it waits. */
  livePreview(): string | null {
    return this.live()?.preview ?? null;
  }

  /** The running agent's registry entry (Claude's sessions/<pid>.json), when it keeps one. */
  private live(): LiveState | null {
    const { liveDir, liveState } = this.launch.agent;
    if (!liveDir || !liveState || this.pgid === null || this.frozen !== undefined) return null;
    const dir = liveDir(this.env);
    if (this.livePid === null) {
      const now = Date.now();
      if (now - this.liveLookedAt < LIVE_LOOK_MS) return null;
      this.liveLookedAt = now;
      this.livePid = livePidIn(dir, this.pgid);
      if (this.livePid === null) return null;
    }
    const text = textOf(join(dir, `${this.livePid}.json`));
    let state: LiveState | null = null;
    try {
      state = text === null ? null : liveState(JSON.parse(text));
    } catch {
      // half-written: no evidence this time
    }
    if (text === null) this.livePid = null;
    if (state?.id) this.lastLiveId = state.id;
    return state;
  }

  /** The known conversation, once the agent's own store holds it: what a resume form may name. */
  resumable(): string | null {
    const id = this.known();
    return id !== null && this.holds(id) ? id : null;
  }

  /**
   * For save and snapshots: the known conversation when the store holds it (none when it does not:
   * the ID is this run's, so no other entry may stand in); with nothing known, the agent's own store
   * (a match sticks for the run).
   */
  forSave(taken: ReadonlySet<string>): string | null {
    const id = this.known();
    if (id !== null) return this.holds(id) ? id : null;
    const stored = (this.stored ??= this.launch.agent.fromStore({ cwd: this.cwd, spawnedAt: this.spawnedAt, env: this.env, taken }));
    return idCheckOf(this.launch.agent)(stored) ? stored : null;
  }

  /** The agent's last reply in its known conversation, from its own store; null when it keeps none or it is not found. */
  lastReply(): string | null {
    const id = this.known();
    return id === null ? null : (this.launch.agent.lastReply?.(id, { cwd: this.cwd, env: this.env }) ?? null);
  }

  /** The command a save keeps when there is no conversation to resume. */
  commandWithout(command: string): string {
    return this.failedAtOnce ? this.launch.program : command;
  }

  /**
   * What a rerun runs: the resume form of a conversation the store holds; the program as typed when
   * the last run was a resume form that failed at once (with the notice saying so); else the
   * command unchanged (a bare agent gets a fresh pin).
   */
  rerunCommand(command: string): { command: string; notice: string | null } {
    const id = this.resumable();
    if (id !== null) return { command: resumeCommand(this.launch, id)!, notice: null };
    if (!this.failedAtOnce) return { command, notice: null };
    const notice = `${command} ended at once and ${this.launch.agent.name} has no conversation ${this.launch.id}; running ${this.launch.program} as typed`;
    return { command: this.launch.program, notice };
  }

  /**
   * True when the conversation a save would resume changed since the last call: a snapshot pass is
   * due. Called as a batch of output settles, so a conversation the first turn made reaches the
   * snapshot within seconds, however it is learnt: known (pinned, captured, from the live registry or
   * the exit hint) and held by the store, or, with nothing known (opencode, an agent run as typed),
   * found in the store as a save would find it.
   */
  savedFormChanged(): boolean {
    const now = this.resumable() ?? this.storeCandidate();
    if (now === this.lastResumable) return false;
    this.lastResumable = now;
    return true;
  }

  /**
   * With nothing known, the conversation the agent's store would give a save, not checked against
   * what other tasks know: only a reason for a pass, whose save-time match (`forSave`) is the one
   * that counts. Read again each time, not kept: what it finds may be another task's (two opencodes
   * in one directory), and this run's own must still bring its pass when it appears. Only runs that
   * know nothing read it (opencode, a Codex before its first turn, an agent run as typed); an
   * opencode's look is one query of its database.
   */
  private storeCandidate(): string | null {
    if (this.known() !== null) return null;
    const found = this.launch.agent.fromStore({ cwd: this.cwd, spawnedAt: this.spawnedAt, env: this.env, taken: new Set() });
    return idCheckOf(this.launch.agent)(found) ? found : null;
  }

  private holds(id: string): boolean {
    if (this.held.has(id)) return true;
    if (!this.launch.agent.holds(id, { cwd: this.cwd, env: this.env })) return false;
    this.held.add(id);
    return true;
  }

  /** The conversation a save or snapshot already matched in the store, without looking again. */
  storedMatch(): string | null {
    return this.stored;
  }

  resumeCommand(id: string | null): string | null {
    return resumeCommand(this.launch, id);
  }

  /** What the agent said about attention since the last call, in order (task-attention.ts); `now` is monotonic. */
  newSignals(now = performance.now()): AgentSignal[] {
    const { agent } = this.launch;
    if (!this.assets || !agent.attentionFile || !agent.attentionSignal) return [];
    const file = agent.attentionFile(this.assets);
    const { lines, offset } = linesSince(file, this.eventsRead);
    this.eventsRead = offset;
    const signals = [...(this.heldSignals?.signals ?? []), ...lines.flatMap((line) => agent.attentionSignal!(line) ?? [])];
    return this.givenNow(signals, file, now);
  }

  /**
   * The signals to give now: all of them, unless one is a wait with no message of its own whose
   * reply the agent writes after its hook and has not written yet (its file unchanged since the
   * event): that one and those after it are held, and looked at again shortly, until the reply
   * file changes or REPLY_HOLD_MS have passed.
   */
  private givenNow(signals: AgentSignal[], eventsFile: string, now: number): AgentSignal[] {
    const at = signals.findIndex((s) => s.kind === "waiting" && s.message === null);
    const replyFile = at === -1 ? null : this.replyFile();
    if (replyFile === null) {
      this.heldSignals = null;
      return signals;
    }
    // File times are wall-clock; the bound is monotonic, so a clock step cannot stretch it.
    const since = this.heldSignals?.since ?? modifiedMs(eventsFile) ?? Date.now();
    const until = this.heldSignals?.until ?? now + REPLY_HOLD_MS;
    if ((modifiedMs(replyFile) ?? Number.NEGATIVE_INFINITY) >= since || now >= until) {
      this.heldSignals = null;
      return signals;
    }
    this.heldSignals = { signals: signals.slice(at), since, until };
    this.lookAgain(REPLY_LOOK_MS);
    return signals.slice(0, at);
  }

  /** The file the agent writes its reply to after its hook, for the known conversation; null when it writes first. */
  private replyFile(): string | null {
    const id = this.known();
    const { replyWrittenAfterHook } = this.launch.agent;
    return id === null || !replyWrittenAfterHook ? null : replyWrittenAfterHook(id, { cwd: this.cwd, env: this.env });
  }

  /** Reads the capture channel one last time and keeps the answer (the supervisor removes the files). */
  freeze(): void {
    this.capture = null;
    this.frozen = this.captured();
  }

  /** The namespace watcher saw this run's files change: the next look reads the capture again, and the usage (a turn may have ended). */
  filesChanged(): void {
    this.capture = null;
    this.usageDue = true;
  }

  /**
   * The tokens of the run's conversation, from the agent's own store (agent-usage.ts): read again
   * when the agent's events said something or USAGE_FRESH_MS after the last read; null while no
   * conversation is known or when the store records none.
   */
  usage(now = performance.now()): TokenUsage | null {
    const id = this.known() ?? this.stored;
    if (id === null) return null;
    if (this.usageStore?.id !== id) {
      this.usageStore = { id, store: usageStoreFor(this.launch.agent, id, { cwd: this.cwd, env: this.env }), readAt: 0, malformed: 0, usage: null };
      this.usageDue = true;
    }
    const held = this.usageStore;
    if (held.store === null) return null;
    if (this.usageDue || now - held.readAt >= USAGE_FRESH_MS) {
      this.usageDue = false;
      held.readAt = now;
      this.readUsage(held.store, held);
    }
    return held.usage;
  }

  /** The conversation whose tokens `usage` last read, and when its store last recorded something; null before one is known. */
  usageSource(): { id: string; writtenAt: number | null } | null {
    const held = this.usageStore;
    return held === null ? null : { id: held.id, writtenAt: held.store?.writtenAt() ?? null };
  }

  /** Reads what the store gained; malformed lines it skipped are logged once each. */
  private readUsage(store: UsageStore, held: { malformed: number; usage: TokenUsage | null }): void {
    store.refresh();
    if (store.malformed > held.malformed)
      this.log(`task ${this.taskId}: ${this.launch.agent.name}'s store: ${store.malformed - held.malformed} malformed line(s) skipped`);
    held.malformed = store.malformed;
    held.usage = store.usage();
  }

  private captured(now = performance.now()): string | null {
    if (this.frozen !== undefined) return this.frozen;
    if (!this.assets) return null;
    if (this.capture && now - this.capture.at < CAPTURE_FRESH_MS) return this.capture.id;
    const id = this.launch.agent.captured({
      captureFile: this.assets.captureFile,
      scratchBase: this.assets.scratchBase,
      cwd: this.cwd,
      env: this.env,
      uid: process.getuid?.() ?? 0,
    });
    this.capture = { id, at: now };
    return id;
  }
}

/** The agent and conversation a stored command resumes (a save's or a snapshot's resume form); null for any other command. */
export function resumedBy(command: string): { agent: Agent; id: string } | null {
  const launch = detect(command, knownAgents());
  return launch?.id ? { agent: launch.agent, id: launch.id } : null;
}

/**
 * The command a save or snapshot stores for each task: the resume form when the agent's store holds
 * its conversation, else the command as typed (or the program alone, for a resume form that failed
 * at once). IDs other tasks know are never matched again in a store.
 */
export function savedCommands(tasks: readonly { command: string; agent: AgentRun | null }[]): string[] {
  const known = tasks.map((t) => t.agent?.known() ?? t.agent?.storedMatch() ?? null);
  const taken = new Set(known.filter((id): id is string => id !== null));
  return tasks.map((t) => {
    if (!t.agent) return t.command;
    const id = t.agent.forSave(taken);
    if (id !== null) taken.add(id);
    return t.agent.resumeCommand(id) ?? t.agent.commandWithout(t.command);
  });
}
