// Each task's baseline and what it changed since (docs/review.md), kept by the daemon off the spawn
// path. A task gets a baseline when it starts in a git repository and is an agent (known or
// declared) or runs in a worktree fleetcom made: taken asynchronously just after the spawn, so the
// spawn never waits on git. An agent that writes a file within that moment has the write counted in
// its baseline, not in its diff (an agent spends its first seconds starting, not editing).
//
// The `changes` figure is refreshed when the agent finishes a turn (its attention event) and, while
// the task prints, at most once per REFRESH_MS: output is the daemon's cheap sign that files may be
// changing. One refresh per task runs at a time; a request while one runs is served once it ends.
import { type Baseline, baselineExists, changesSince, dropBaseline, takeBaseline } from "./git.ts";
import { errorMessage } from "./errors.ts";
import { msSetting } from "./daemon-snapshots.ts";
import type { ChangeStats } from "./text-changes.ts";

/** While a task prints, its figure is counted again at most this often (FLEETCOM_CHANGES_INTERVAL_MS, for tests). */
const REFRESH_MS = 10_000;

/** What the tracker needs of a task. */
export interface ChangingTask {
  readonly id: number;
  readonly cwd: string;
  baseline: Baseline | null;
  changes: ChangeStats | null;
}

interface Tracked {
  timer: ReturnType<typeof setTimeout> | null;
  running: boolean;
  again: boolean;
  gone: boolean;
}

export class TaskChanges<T extends ChangingTask> {
  private readonly tracked = new Map<T, Tracked>();
  private readonly instance = crypto.randomUUID().slice(0, 8);
  private readonly refreshMs: number;

  constructor(
    /** The task's `changes` (or `baseline`) is new: tell the clients. */
    private readonly changed: (task: T) => void,
    private readonly log: (message: string) => void,
    /** A baseline was taken or kept: what a snapshot stores of the task changed, so a recovery keeps it. */
    private readonly baselineRecorded: (task: T) => void,
    /** A baseline was taken or kept: the task's first checkpoint is that same snapshot (daemon-checkpoints.ts). */
    private readonly established: (task: T, baseline: Baseline) => void = () => {},
  ) {
    this.refreshMs = msSetting(process.env, "FLEETCOM_CHANGES_INTERVAL_MS", REFRESH_MS, log);
  }

  /** A task started: its recorded baseline (a recovery) kept when git still has it, else a new one taken. */
  started(task: T, wanted: boolean, recorded: Baseline | undefined): void {
    if (!wanted && recorded === undefined) return;
    const state: Tracked = { timer: null, running: false, again: false, gone: false };
    this.tracked.set(task, state);
    void this.establish(task, recorded).then((baseline) => {
      if (state.gone) {
        if (baseline) void dropBaseline(baseline);
        return;
      }
      task.baseline = baseline;
      if (!baseline) return;
      this.baselineRecorded(task);
      this.established(task, baseline);
      this.refresh(task);
    });
  }

  private async establish(task: T, recorded: Baseline | undefined): Promise<Baseline | null> {
    try {
      if (recorded && (await baselineExists(recorded))) return recorded;
      return await takeBaseline(task.cwd, `refs/fleetcom/task-${task.id}-${this.instance}`, `fleetcom baseline of task ${task.id}`);
    } catch (e) {
      this.log(`task ${task.id}: no baseline: ${errorMessage(e)}`);
      return null;
    }
  }

  /** The task printed: files may be changing; a refresh within REFRESH_MS, if none is due already. */
  output(task: T): void {
    const state = this.tracked.get(task);
    if (!state || state.timer !== null || task.baseline === null) return;
    state.timer = setTimeout(() => {
      state.timer = null;
      this.refresh(task);
    }, this.refreshMs);
  }

  /** The agent finished a turn: its figure now. */
  refresh(task: T): void {
    const state = this.tracked.get(task);
    if (!state || task.baseline === null) return;
    if (state.running) {
      state.again = true;
      return;
    }
    state.running = true;
    void this.count(task, task.baseline).then(() => {
      state.running = false;
      if (state.again && !state.gone) {
        state.again = false;
        this.refresh(task);
      }
    });
  }

  private async count(task: T, baseline: Baseline): Promise<void> {
    try {
      const now = await changesSince(baseline.top, baseline.commit);
      const before = task.changes;
      task.changes = now;
      if (before?.files !== now.files || before.insertions !== now.insertions || before.deletions !== now.deletions) this.changed(task);
    } catch (e) {
      this.log(`task ${task.id}: changes not counted: ${errorMessage(e)}`);
    }
  }

  /** The task is removed: its baseline's ref goes (the commit is git's to collect). */
  removed(task: T): void {
    const state = this.tracked.get(task);
    if (!state) return;
    state.gone = true;
    if (state.timer !== null) clearTimeout(state.timer);
    this.tracked.delete(task);
    if (task.baseline) void dropBaseline(task.baseline);
  }

  stop(): void {
    for (const state of this.tracked.values()) if (state.timer !== null) clearTimeout(state.timer);
  }
}
