// Each running task's CPU and memory (task-resources.ts), read from /proc in one pass over every
// process (on macOS, one `ps` of every process), every SAMPLE_INTERVAL_MS while a client that shows
// them is subscribed (the dashboard, the web view), once for an `ls` that finds the last sample
// older than that, and for tasks with `--max-memory`, whose limit is watched whether anyone looks or
// not. Nobody looking and no limit, or no running task: nothing is read.
//
// SECURITY: a task's use is summed only over the members of a process group proven to be still the
// task's (daemon-process-group.ts `membersIn`), so a reused PID never lends a task a stranger's
// processes, and --max-memory can never stop a run because of someone else's.
import type { Peer } from "./daemon-peers.ts";
import { CPU_TRAIL_MS, type Task } from "./daemon-task.ts";
import { hasProc, listProcStats, pageSize, TICKS_PER_SECOND, ticksNow } from "./proc.ts";
import { childProcess } from "./platform.ts";
import {
  type CpuMemory,
  groupResources,
  NOTHING_SAMPLED,
  overMemoryReason,
  parsePsLine,
  type ProcessRead,
  processKey,
  type TaskResources,
} from "./task-resources.ts";

export const SAMPLE_INTERVAL_MS = 2_000;
/** A `ps` that has not answered by then is given up on, and that sample with it. */
const PS_TIMEOUT_MS = 5_000;

/** The fleet as the sampler sees it. */
export interface SampledFleet {
  tasks(): Iterable<Task>;
  peers(): Iterable<Peer>;
  /** A task's figures changed: subscribers hear of it. */
  changed(task: Task): void;
  /**
   * A running task's group uses more memory than its --max-memory: the daemon decides what follows
   * (a restart under the task's policy, or a stop with `reason`). Told at every sample while it stays over.
   */
  overMemory(task: Task, reason: string): void;
}

export class ResourceSampler {
  /** Subscribed clients that asked for the figures; a client gone is dropped at the next tick. */
  private readonly watchers = new Set<Peer>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private previous: CpuMemory = NOTHING_SAMPLED;
  /** Monotonic time (performance.now) of the last sample. */
  private lastAt = Number.NEGATIVE_INFINITY;
  private samples = 0;
  /** The sample being read (a `ps` takes a while): a second asker waits for the same one. */
  private sampling: Promise<void> | null = null;
  private readonly readProcesses = hasProc() ? async () => fromProc() : fromPs;

  constructor(private readonly fleet: SampledFleet) {}

  /** A subscriber shows the figures: sampled now (unless they are fresh), and then on every tick while it stays. */
  watch(peer: Peer): Promise<void> {
    this.watchers.add(peer);
    this.keepSampling();
    return this.fresh();
  }

  /** A subscriber that no longer shows them (it subscribed again without asking). */
  unwatch(peer: Peer): void {
    this.watchers.delete(peer);
  }

  /** For `ls`: figures at most one interval old, sampled now when the last sample is older. */
  fresh(): Promise<void> {
    return performance.now() - this.lastAt >= SAMPLE_INTERVAL_MS ? this.sample() : Promise.resolve();
  }

  /** Starts the ticks when someone looks or a running task has a memory limit (a task with one was started). */
  keepSampling(): void {
    if (this.timer === null && this.needed()) this.timer = setInterval(() => this.tick(), SAMPLE_INTERVAL_MS);
  }

  status(): { samples: number; watchers: number } {
    this.dropGoneWatchers();
    return { samples: this.samples, watchers: this.watchers.size };
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    if (this.needed()) void this.sample();
    else this.stop();
  }

  private needed(): boolean {
    this.dropGoneWatchers();
    if (this.watchers.size > 0) return true;
    for (const task of this.fleet.tasks()) if (task.running && task.maxMemory !== null) return true;
    return false;
  }

  private dropGoneWatchers(): void {
    if (this.watchers.size === 0) return;
    const present = new Set(this.fleet.peers());
    for (const peer of this.watchers) if (!present.has(peer)) this.watchers.delete(peer);
  }

  private sample(): Promise<void> {
    this.sampling ??= this.sampleOnce().finally(() => {
      this.sampling = null;
    });
    return this.sampling;
  }

  private async sampleOnce(): Promise<void> {
    // Only a running task has figures: with none, every process on the machine would be read for no
    // row (the autostarted daemon's first `ls` meets an empty fleet).
    if (!this.anyRunning()) return;
    const read = await this.readProcesses();
    if (read === null) return;
    const { processes, now } = read;
    this.samples += 1;
    this.lastAt = performance.now();
    const ticks = new Map<string, number>();
    for (const task of this.fleet.tasks()) {
      if (!task.running) continue;
      const members = task.groupMembers(processes, now);
      for (const p of members) ticks.set(processKey(p), p.cpuTicks);
      this.record(task, groupResources(members, this.previous, now));
    }
    this.previous = { at: now, ticks };
  }

  private anyRunning(): boolean {
    for (const task of this.fleet.tasks()) if (task.running) return true;
    return false;
  }

  private record(task: Task, figures: TaskResources): void {
    const before = task.resources;
    task.resources = figures;
    const at = performance.now();
    task.cpuTrail = [...task.cpuTrail.filter((p) => at - p.at < CPU_TRAIL_MS), { at, cpu: figures.cpu }];
    // Only a client that shows the figures is told they moved: an `ls`'s sample builds no event.
    if (this.watchers.size > 0 && !sameFigures(before, figures)) this.fleet.changed(task);
    if (task.maxMemory !== null && figures.rss > task.maxMemory) this.fleet.overMemory(task, overMemoryReason(figures.rss, task.maxMemory));
  }
}

/** Every process and what it uses, and now in the ticks their start times count. */
interface ProcessesNow {
  processes: ProcessRead[];
  now: number;
}

/** Linux: one pass over /proc/<pid>/stat; null without /proc. */
function fromProc(): ProcessesNow | null {
  const stats = listProcStats();
  const now = ticksNow();
  if (stats === null || now === null) return null;
  const page = pageSize();
  const processes = stats.map(({ rssPages, ...p }) => ({ ...p, rssBytes: rssPages * page }));
  return { processes, now };
}

/**
 * Without /proc (macOS): one `ps` of every process, its start from its elapsed time on the monotonic
 * clock, in the same ticks as /proc's; null when ps fails or takes too long.
 */
export function fromPs(): Promise<ProcessesNow | null> {
  const argv = ["-A", "-o", "pid=,pgid=,rss=,time=,etime="];
  return new Promise((resolve) => {
    childProcess().execFile("ps", argv, { timeout: PS_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) return resolve(null);
      const now = Math.round((performance.now() * TICKS_PER_SECOND) / 1000);
      const processes = String(stdout)
        .split("\n")
        .map((line) => parsePsLine(line, TICKS_PER_SECOND, now))
        .filter((p): p is ProcessRead => p !== null);
      resolve({ processes, now });
    });
  });
}

function sameFigures(a: TaskResources | null, b: TaskResources): boolean {
  return a !== null && a.cpu === b.cpu && a.rss === b.rss && a.threads === b.threads && a.processes === b.processes;
}

/**
 * Stops a run over its memory limit, once, and says why: on its screen, in daemon.log and in its
 * TaskInfo `stopReason`. False when it is already being stopped.
 */
export function stopOverMemory(task: Task, reason: string, log: (message: string) => void): boolean {
  if (task.stopReason !== null) return false;
  task.stopReason = reason;
  log(`task ${task.id} stopped: ${reason}`);
  task.screen.write(`\r\nfleetcom: stopped: ${reason}\r\n`);
  void task.terminate();
  return true;
}
