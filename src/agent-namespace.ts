// The supervisor's private directory for agent capture assets (agents.md, instrumentation): one per
// supervisor process, 0700, under the runtime directory, made on first use and removed when the
// supervisor stops; a supervisor killed outright leaves one behind, which the next one sweeps.
// Capture files are per task run, so a replaced run can never write over its successor's capture.
// The directory is watched (inotify and friends, through node:fs watch, which Bun and Deno both
// have), so an agent's attention event reaches its task within milliseconds. A watcher is not
// trusted to report every change: Bun's drops an event now and then (oven-sh/bun#7919; here 1-5 of
// 200 two-write bursts lost their second, none under Node). So the directory is also looked over a
// moment after each event (LOOK_AGAIN_MS: a dropped event sits close behind another) and every
// SWEEP_MS, and a file whose size, time or inode moved since it was last reported is reported.
// Where watching is not possible, that look runs every POLL_MS instead.
import { isDirectory, isFile } from "./files.ts";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import type { RunAssets } from "./agent.ts";
import { isProcessAlive } from "./platform.ts";

const PREFIX = "agents-";
const POLL_MS = 500;
const LOOK_AGAIN_MS = 100;
const SWEEP_MS = 2_000;
const RUN_FILE = /^task-(\d+)-(\d+)\./;

/** Called when a file of a task run changed (`task-<id>-<run>.*`). */
export type RunFilesChanged = (taskId: number, run: number) => void;

export class AgentNamespace {
  private dir: string | null = null;
  private readonly written = new Set<string>();
  private watcher: FSWatcher | null = null;
  private poller: ReturnType<typeof setInterval> | null = null;
  private lookAgain: ReturnType<typeof setTimeout> | null = null;
  /** Each run file as last reported: size, modification time and inode. */
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly parent: string,
    private readonly changed: RunFilesChanged = () => {},
  ) {}

  /** The assets of one task run; throws when the directory cannot be made (the run goes uninstrumented). */
  assetsFor(taskId: number, run: number): RunAssets {
    const dir = this.ensure();
    return {
      dir,
      captureFile: join(dir, `task-${taskId}-${run}.json`),
      scratchBase: join(dir, `cc-${taskId}-${run}`),
      asset: (name, content, mode) => this.asset(dir, name, content, mode),
      privateDir: (path) => {
        mkdirSync(path, { mode: 0o700 });
        chmodSync(path, 0o700);
        return path;
      },
    };
  }

  /** Reports the run's files as changed after `ms`, whether or not they did: a run that is waiting for a file outside the namespace looks again. */
  lookAgainAt(taskId: number, run: number, ms: number): void {
    setTimeout(() => this.changed(taskId, run), ms).unref?.();
  }

  /** Removes a task's capture files and scratch directories, with the task. */
  removeTask(taskId: number): void {
    if (this.dir === null) return;
    for (const name of safeList(this.dir)) {
      if (!name.startsWith(`task-${taskId}-`) && !name.startsWith(`cc-${taskId}-`)) continue;
      rmSync(join(this.dir, name), { recursive: true, force: true });
      this.reported.delete(name);
    }
  }

  dispose(): void {
    this.unwatch();
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }

  private watchDir(dir: string): void {
    this.unwatch();
    try {
      this.watcher = watch(dir, (_event, name) => {
        if (name) this.report(dir, String(name));
        else this.sweep(dir);
        this.lookAgainSoon(dir);
      });
      this.watcher.on("error", () => {
        this.unwatch();
        this.sweepEvery(dir, POLL_MS);
      });
      this.sweepEvery(dir, SWEEP_MS);
    } catch {
      this.sweepEvery(dir, POLL_MS);
    }
  }

  /** Looks the directory over every `ms`: beside the watcher, or instead of it where watching failed. */
  private sweepEvery(dir: string, ms: number): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = setInterval(() => this.sweep(dir), ms);
    this.poller.unref?.();
  }

  private lookAgainSoon(dir: string): void {
    if (this.lookAgain) return;
    this.lookAgain = setTimeout(() => {
      this.lookAgain = null;
      this.sweep(dir);
    }, LOOK_AGAIN_MS);
    this.lookAgain.unref?.();
  }

  /** Reports every run file that changed since it was last reported. */
  private sweep(dir: string): void {
    for (const name of safeList(dir)) {
      if (!RUN_FILE.test(name)) continue;
      const state = fileState(join(dir, name));
      if (state !== this.reported.get(name)) this.report(dir, name, state);
    }
  }

  private report(dir: string, name: string, state = fileState(join(dir, name))): void {
    const m = RUN_FILE.exec(name);
    if (!m) return;
    this.reported.set(name, state);
    this.changed(Number(m[1]), Number(m[2]));
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    if (this.lookAgain) clearTimeout(this.lookAgain);
    this.lookAgain = null;
  }

  private ensure(): string {
    if (this.dir !== null && isDirectory(this.dir)) return this.dir;
    this.sweepDead();
    this.written.clear();
    this.reported.clear();
    this.dir = mkdtempSync(join(this.parent, `${PREFIX}${process.pid}-`));
    chmodSync(this.dir, 0o700);
    this.watchDir(this.dir);
    return this.dir;
  }

  private asset(dir: string, name: string, content: string, mode: number): string {
    const path = join(dir, name);
    if (!this.written.has(name) || !isFile(path)) {
      writeFileAtomic(path, content, mode);
      this.written.add(name);
    }
    return path;
  }

  /** Directories left by supervisors that died without cleaning up. */
  private sweepDead(): void {
    for (const name of safeList(this.parent)) {
      const pid = Number(/^agents-(\d+)-/.exec(name)?.[1]);
      if (pid && pid !== process.pid && !isProcessAlive(pid)) rmSync(join(this.parent, name), { recursive: true, force: true });
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** What tells a change: size, modification time and inode ("" when the file is gone). */
function fileState(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return "";
  }
}
