// The supervisor's private directory for agent capture assets (agents.md, instrumentation): one per
// supervisor process, 0700, under the runtime directory, made on first use and removed when the
// supervisor stops; a supervisor killed outright leaves one behind, which the next one sweeps.
// Capture files are per task run, so a replaced run can never write over its successor's capture.
// The directory is watched (inotify and friends, through node:fs watch, which Bun and Deno both
// have), so an agent's attention event reaches its task within milliseconds without polling files;
// where watching is not possible, it is listed every POLL_MS instead.
import { isDirectory } from "./files.ts";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import type { RunAssets } from "./agent.ts";
import { isProcessAlive } from "./platform.ts";

const PREFIX = "agents-";
const POLL_MS = 500;
const RUN_FILE = /^task-(\d+)-(\d+)\./;

/** Called when a file of a task run changed (`task-<id>-<run>.*`). */
export type RunFilesChanged = (taskId: number, run: number) => void;

export class AgentNamespace {
  private dir: string | null = null;
  private readonly written = new Set<string>();
  private watcher: FSWatcher | null = null;
  private poller: ReturnType<typeof setInterval> | null = null;

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

  /** Removes a task's capture files and scratch directories, with the task. */
  removeTask(taskId: number): void {
    if (this.dir === null) return;
    for (const name of safeList(this.dir)) {
      if (name.startsWith(`task-${taskId}-`) || name.startsWith(`cc-${taskId}-`)) rmSync(join(this.dir, name), { recursive: true, force: true });
    }
  }

  dispose(): void {
    this.unwatch();
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }

  private watchDir(dir: string): void {
    this.unwatch();
    const report = (name: string) => {
      const m = RUN_FILE.exec(name);
      if (m) this.changed(Number(m[1]), Number(m[2]));
    };
    try {
      this.watcher = watch(dir, (_event, name) => {
        if (name) report(String(name));
        else for (const each of safeList(dir)) report(each);
      });
      this.watcher.on("error", () => this.pollDir(dir, report));
    } catch {
      this.pollDir(dir, report);
    }
  }

  private pollDir(dir: string, report: (name: string) => void): void {
    this.unwatch();
    this.poller = setInterval(() => safeList(dir).forEach(report), POLL_MS);
    this.poller.unref?.();
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }

  private ensure(): string {
    if (this.dir !== null && isDirectory(this.dir)) return this.dir;
    this.sweepDead();
    this.written.clear();
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

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
