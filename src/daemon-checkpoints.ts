// Each task's checkpoints (docs/review.md, "Checkpoints and rewind"), kept by the daemon off the
// agent's path: the same tasks that get a baseline (agents, `--worktree` tasks) get checkpoint 0,
// which is their baseline's snapshot, and one more at every prompt: a `send` that submits, a line
// typed while attached, or the agent's own word that a prompt was submitted (its hook) when
// fleetcom saw none this turn. A
// checkpoint is started at once and never awaited by the prompt: the agent gets its input as
// before, and spends seconds thinking before it edits a file. One snapshot per task runs at a time.
//
// Kept: at most MAX_CHECKPOINTS per task, none older than MAX_AGE_MS. While the repository's disk
// has less than MIN_FREE_BYTES free, no checkpoint is taken for the task (one notice when that
// starts, one when it ends); those already taken stay usable.
import { type Checkpoint, checkpointOf, dropCheckpointRefs, filesChangedBetween, takeCheckpoint } from "./git-checkpoint.ts";
import { type Baseline, repositoryTop } from "./git.ts";
import { errorMessage } from "./errors.ts";
import type { Attention } from "./task-attention.ts";

const MAX_CHECKPOINTS = 200;
const MAX_AGE_MS = 30 * 24 * 3600 * 1000;
const MIN_FREE_BYTES = 1024 * 1024 * 1024;
/** The first line of a prompt as a checkpoint keeps it. */
const PROMPT_CHARS = 200;

export interface CheckpointedTask {
  readonly id: number;
  readonly cwd: string;
  readonly running: boolean;
}

interface Kept {
  top: Promise<string | null>;
  list: Checkpoint[];
  /** The snapshot under way, which the next waits for. */
  queue: Promise<void>;
  /** A checkpoint was taken for this turn's prompt: the agent's own prompt event adds none. */
  turnOpen: boolean;
  /** What was typed while attached since the last Enter: the prompt a typed Enter submits. */
  typed: string;
  /** Keys came while attached since the agent last waited: leaving the wait is theirs, not a hook's. */
  keysSinceWait: boolean;
  paused: boolean;
  gone: boolean;
}

export class TaskCheckpoints<T extends CheckpointedTask> {
  private readonly states = new Map<T, Kept>();
  private readonly instance = crypto.randomUUID().slice(0, 8);

  constructor(
    private readonly log: (message: string) => void,
    /** A checkpoint was taken or dropped: the recovery snapshot has news. */
    private readonly kept: (task: T) => void,
    /** Free space on `top`'s file system, in bytes: a seam the tests do not need, statfs by default. */
    private readonly freeBytes: (top: string) => Promise<number> = async (top) => {
      // Loaded here: node:fs/promises costs every daemon CPU at start, before its first reply.
      const s = await (await import("node:fs/promises")).statfs(top);
      return s.bavail * s.bsize;
    },
  ) {}

  /** A task started: the checkpoints a recovery kept; checkpoint 0 comes with its baseline (fromBaseline). */
  started(task: T, wanted: boolean, recorded: Checkpoint[] | undefined): void {
    if (!wanted && recorded === undefined) return;
    const top = repositoryTop(task.cwd);
    const state: Kept = {
      top,
      list: recorded ? [...recorded] : [],
      queue: Promise.resolve(),
      turnOpen: false,
      typed: "",
      keysSinceWait: false,
      paused: false,
      gone: false,
    };
    this.states.set(task, state);
  }

  /**
   * The task's baseline is taken: it is checkpoint 0 as well (one snapshot, not two racing the
   * agent's first writes), unless the task has checkpoints already (recovered, or a prompt came first).
   */
  fromBaseline(task: T, baseline: Baseline): void {
    const state = this.states.get(task);
    if (!state) return;
    const at = new Date();
    state.queue = state.queue.then(async () => {
      if (state.list.length > 0 || state.gone) return;
      try {
        const kept = await checkpointOf(baseline.top, baseline.commit, `refs/fleetcom/task-${task.id}-${this.instance}-cp0`);
        if (state.gone) return void dropCheckpointRefs(baseline.top, [kept]);
        state.list.push({ n: 0, at: at.toISOString(), prompt: "(the task started)", files: null, ...kept });
        this.kept(task);
      } catch (e) {
        this.log(`task ${task.id}: no checkpoint at its start: ${errorMessage(e)}`);
      }
    });
  }

  /** A prompt submitted through fleetcom (`send`, the web page). */
  prompt(task: T, text: string): void {
    const state = this.states.get(task);
    if (!state) return;
    state.turnOpen = true;
    this.take(task, state, firstLine(text) || "(Enter alone)");
  }

  /** Keys typed while attached: an Enter submits what was typed since the last one. */
  typed(task: T, bytes: Uint8Array): void {
    const state = this.states.get(task);
    if (!state) return;
    state.keysSinceWait = true;
    const text = Buffer.from(bytes).toString("utf8");
    const enter = text.search(/[\r\n]/);
    state.typed = withTyped(state.typed, enter === -1 ? text : text.slice(0, enter)).slice(-PROMPT_CHARS);
    if (enter === -1) return;
    const prompt = state.typed;
    state.typed = "";
    this.prompt(task, prompt === "" ? "(typed while attached)" : prompt);
  }

  /** The task's attention changed: an agent that waits opens a new turn; one that stops waiting with no prompt seen had one submitted (its hook). */
  attention(task: T, before: Attention | null, now: Attention | null): void {
    const agentWait = (a: Attention | null) => a?.state === "input" || a?.state === "permission";
    if (agentWait(now)) this.waiting(task);
    else if (now === null && agentWait(before) && task.running) this.answeredElsewhere(task);
  }

  /** The agent waits again: the next prompt opens a new turn. */
  private waiting(task: T): void {
    const state = this.states.get(task);
    if (!state) return;
    state.turnOpen = false;
    state.keysSinceWait = false;
  }

  /** The agent left its wait with no prompt fleetcom saw (its prompt-submit hook): a checkpoint all the same. */
  private answeredElsewhere(task: T): void {
    const state = this.states.get(task);
    if (!state || state.turnOpen || state.keysSinceWait) return;
    state.turnOpen = true;
    this.take(task, state, "(a prompt fleetcom did not see)");
  }

  /** The task's checkpoints, oldest first, the repository's top, and whether checkpointing is paused. */
  async list(task: T): Promise<{ top: string | null; paused: boolean; checkpoints: Checkpoint[] }> {
    const state = this.states.get(task);
    if (!state) return { top: null, paused: false, checkpoints: [] };
    await state.queue;
    return { top: await state.top, paused: state.paused, checkpoints: state.list };
  }

  /** What a recovery snapshot keeps of the task. */
  recorded(task: T): Checkpoint[] | undefined {
    const list = this.states.get(task)?.list;
    return list && list.length > 0 ? list : undefined;
  }

  private take(task: T, state: Kept, prompt: string): void {
    const at = new Date();
    state.queue = state.queue.then(() => this.snapshot(task, state, prompt, at));
  }

  private async snapshot(task: T, state: Kept, prompt: string, at: Date): Promise<void> {
    const top = await state.top;
    if (top === null || state.gone) return;
    try {
      if (!(await this.roomFor(task, state, top))) return;
      const previous = state.list.at(-1);
      const n = previous === undefined ? 0 : previous.n + 1;
      const taken = await takeCheckpoint(top, `refs/fleetcom/task-${task.id}-${this.instance}-cp${n}`, `fleetcom checkpoint ${n} of task ${task.id}`);
      const files = previous === undefined ? null : await filesChangedBetween(top, previous.commit, taken.commit);
      if (state.gone) return void dropCheckpointRefs(top, [taken]);
      state.list.push({ n, at: at.toISOString(), prompt, files, ...taken });
      await this.prune(top, state, at.getTime());
      this.kept(task);
    } catch (e) {
      this.log(`task ${task.id}: no checkpoint: ${errorMessage(e)}`);
    }
  }

  /** Whether the disk has room; the pause and the resume each told once. */
  private async roomFor(task: T, state: Kept, top: string): Promise<boolean> {
    const free = await this.freeBytes(top).catch(() => Number.POSITIVE_INFINITY);
    const room = free >= MIN_FREE_BYTES;
    if (room === state.paused) {
      state.paused = !room;
      this.log(
        room ? `task ${task.id}: checkpoints resumed: the disk has room again` : `task ${task.id}: checkpoints paused: the disk holding ${top} is low on space`,
      );
    }
    return room;
  }

  private async prune(top: string, state: Kept, now: number): Promise<void> {
    const keep = state.list.filter((c, i) => i >= state.list.length - MAX_CHECKPOINTS && now - Date.parse(c.at) <= MAX_AGE_MS);
    if (keep.length === state.list.length) return;
    const dropped = state.list.filter((c) => !keep.includes(c));
    state.list = keep;
    await dropCheckpointRefs(top, dropped);
  }

  /** The task is removed: its checkpoints' refs go, once any snapshot under way has ended. */
  removed(task: T): void {
    const state = this.states.get(task);
    if (!state) return;
    state.gone = true;
    this.states.delete(task);
    void state.queue.then(async () => {
      const top = await state.top;
      if (top !== null) await dropCheckpointRefs(top, state.list);
    });
  }
}

function firstLine(text: string): string {
  const line = text.split(/\r?\n|\r/).find((l) => l.trim() !== "") ?? "";
  return line.trim().slice(0, PROMPT_CHARS);
}

/** The line so far with keys typed onto it: escape sequences and control keys dropped, a backspace taking the last character back. */
function withTyped(line: string, text: string): string {
  let out = line;
  for (const ch of text.replace(/\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)/g, "")) {
    if (ch === "\x7f" || ch === "\b") out = out.slice(0, -1);
    else if (ch >= " ") out += ch;
  }
  return out;
}
