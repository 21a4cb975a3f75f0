// Each task's baseline and what it changed since (docs/review.md), kept by the daemon off the spawn
// path. A task gets a baseline when it starts in a git repository and is an agent (known or
// declared) or runs in a worktree fleetcom made: taken asynchronously just after the spawn, so the
// spawn never waits on git. An agent that writes a file within that moment has the write counted in
// its baseline, not in its diff (an agent spends its first seconds starting, not editing).
//
// The `changes` figure is refreshed when the agent finishes a turn (its attention event) and, while
// the task prints, at most once per REFRESH_MS: output is the daemon's cheap sign that files may be
// changing. The work is per repository, not per task: one snapshot of a working tree serves every
// task in it (twenty agents in one checkout cost one scan, not twenty), through an index file of the
// daemon's own in its runtime directory whose stat cache keeps a scan to the files that changed
// (git.ts). One snapshot per repository runs at a time; a request while one runs is served by the
// next, so a figure is never older than its request.
import { join } from "node:path";
import { type Baseline, baselineExists, changesBetween, dropBaseline, PrivateIndex, snapshotTreeWith, takeBaseline } from "./git.ts";
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
  gone: boolean;
  /** The snapshot its figure was last counted against: the same tree again needs no count. */
  countedTree: string;
}

/** One working tree's snapshots and the tasks waiting on the next. */
interface Repository {
  readonly index: PrivateIndex;
  readonly waiting: Set<ChangingTask>;
  timer: ReturnType<typeof setTimeout> | null;
  running: boolean;
  /** A turn ended while a snapshot ran: the next runs as soon as it ends, not after REFRESH_MS. */
  urgent: boolean;
  users: number;
}

export class TaskChanges<T extends ChangingTask> {
  private readonly tracked = new Map<T, Tracked>();
  private readonly repositories = new Map<string, Repository>();
  private readonly instance = crypto.randomUUID().slice(0, 8);
  private readonly refreshMs: number;
  private indexes = 0;

  constructor(
    /** The task's `changes` (or `baseline`) is new: tell the clients. */
    private readonly changed: (task: T) => void,
    private readonly log: (message: string) => void,
    /** A baseline was taken or kept: what a snapshot stores of the task changed, so a recovery keeps it. */
    private readonly baselineRecorded: (task: T) => void,
    /** Where the daemon's own index files go (its runtime directory). */
    private readonly indexDir: string,
    /** A baseline was taken or kept: the task's first checkpoint is that same snapshot (daemon-checkpoints.ts). */
    private readonly established: (task: T, baseline: Baseline) => void = () => {},
  ) {
    this.refreshMs = msSetting(process.env, "FLEETCOM_CHANGES_INTERVAL_MS", REFRESH_MS, log);
  }

  /** A task started: its recorded baseline (a recovery) kept when git still has it, else a new one taken. */
  started(task: T, wanted: boolean, recorded: Baseline | undefined): void {
    if (!wanted && recorded === undefined) return;
    const state: Tracked = { gone: false, countedTree: "" };
    this.tracked.set(task, state);
    void this.establish(task, recorded).then((baseline) => {
      if (state.gone) {
        if (baseline) void dropBaseline(baseline);
        return;
      }
      task.baseline = baseline;
      if (!baseline) return;
      this.repositoryOf(baseline.top).users++;
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

  private repositoryOf(top: string): Repository {
    let repository = this.repositories.get(top);
    if (!repository) {
      const index = new PrivateIndex(join(this.indexDir, `changes-${this.instance}-${++this.indexes}.index`));
      repository = { index, waiting: new Set(), timer: null, running: false, urgent: false, users: 0 };
      this.repositories.set(top, repository);
    }
    return repository;
  }

  /** The task printed: files may be changing; a count within REFRESH_MS, if none is due already. */
  output(task: T): void {
    const repository = this.waitingRepository(task);
    if (!repository || repository.timer !== null || repository.running) return;
    this.snapshotLater(task.baseline!.top, repository);
  }

  private snapshotLater(top: string, repository: Repository): void {
    repository.timer = setTimeout(() => {
      repository.timer = null;
      void this.snapshot(top, repository);
    }, this.refreshMs);
  }

  /** The agent finished a turn: its figure now. */
  refresh(task: T): void {
    const repository = this.waitingRepository(task);
    if (!repository) return;
    if (repository.running) {
      repository.urgent = true;
      return;
    }
    if (repository.timer !== null) clearTimeout(repository.timer);
    repository.timer = null;
    void this.snapshot(task.baseline!.top, repository);
  }

  /** The task's repository with the task among those waiting on its next snapshot; null for a task not followed. */
  private waitingRepository(task: T): Repository | null {
    if (!this.tracked.has(task) || task.baseline === null) return null;
    const repository = this.repositories.get(task.baseline.top);
    repository?.waiting.add(task);
    return repository ?? null;
  }

  /** One snapshot of the working tree, each waiting task's figure counted against it; the next one due if more asked meanwhile. */
  private async snapshot(top: string, repository: Repository): Promise<void> {
    repository.running = true;
    repository.urgent = false;
    const tasks = [...repository.waiting] as T[];
    repository.waiting.clear();
    try {
      const now = await snapshotTreeWith(top, repository.index);
      for (const task of tasks) await this.count(task, now);
    } catch (e) {
      this.log(`${top}: changes not counted: ${errorMessage(e)}`);
    }
    repository.running = false;
    if (this.repositories.get(top) !== repository) repository.index.remove();
    else if (repository.urgent) void this.snapshot(top, repository);
    else if (repository.waiting.size > 0) this.snapshotLater(top, repository);
  }

  private async count(task: T, now: string): Promise<void> {
    const state = this.tracked.get(task);
    if (!state || state.gone || task.baseline === null || state.countedTree === now) return;
    try {
      const counted = await changesBetween(task.baseline.top, task.baseline.commit, now);
      state.countedTree = now;
      const before = task.changes;
      task.changes = counted;
      if (before?.files !== counted.files || before.insertions !== counted.insertions || before.deletions !== counted.deletions) this.changed(task);
    } catch (e) {
      this.log(`task ${task.id}: changes not counted: ${errorMessage(e)}`);
    }
  }

  /** The task is removed: its baseline's ref goes (the commit is git's to collect), and its repository's index with its last task. */
  removed(task: T): void {
    const state = this.tracked.get(task);
    if (!state) return;
    state.gone = true;
    this.tracked.delete(task);
    if (!task.baseline) return;
    void dropBaseline(task.baseline);
    const repository = this.repositories.get(task.baseline.top);
    if (!repository) return;
    repository.waiting.delete(task);
    if (--repository.users > 0) return;
    if (repository.timer !== null) clearTimeout(repository.timer);
    this.repositories.delete(task.baseline.top);
    repository.index.remove();
  }

  stop(): void {
    for (const repository of this.repositories.values()) {
      if (repository.timer !== null) clearTimeout(repository.timer);
      repository.index.remove();
    }
  }
}
