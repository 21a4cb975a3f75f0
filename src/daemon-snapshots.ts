// The recovery snapshot writer that runs inside a supervisor (the daemon, or a `--foreground` core):
// a pass two seconds after the first recipe change no snapshot holds, coalescing bursts (at once for a
// load just accepted), and a check every minute for changes no command announces. Every write is atomic and followed by a prune (recovery.md).
import { existsSync, readdirSync, rmSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "./errors.ts";
import { homeDir, recoveryDir, type Env } from "./paths.ts";
import { processStartedAtMs } from "./proc.ts";
import {
  couldBeWriter,
  shouldWriteSnapshot,
  snapshotFileName,
  snapshotLabel,
  snapshotPassDue,
  snapshotsToPrune,
  type SnapshotFile,
  type SnapshotName,
  type SnapshotUrgency,
} from "./recipe-snapshot-rules.ts";
import { isProcessAlive } from "./platform.ts";
import { removeStaleTempFiles, writeFileAtomic } from "./atomic-write.ts";
import type { SnapshotError } from "./wire-protocol.ts";
import { formatRecipe, type RecipeEntry } from "./recipe.ts";
import { ensurePrivateDir } from "./recipe-sessions.ts";
import { historyDirsToPrune } from "./recipe-history.ts";

export const DEFAULT_DEBOUNCE_MS = 2_000;
export const DEFAULT_CHECK_MS = 60_000;

export interface SnapshotSettings {
  debounceMs: number;
  checkMs: number;
}

/** The fleet as a snapshot keeps it: what a recovery starts, and the finished tasks it must not. */
export interface SnapshotRecipe {
  running: RecipeEntry[];
  finished: RecipeEntry[];
}

/** What a supervisor exposes to the writer; always go through `recipe()` so resume forms are used. */
export interface SnapshotSource {
  readonly startedAt: Date;
  recipe(): RecipeEntry[];
  /** The recipe split by whether each task still runs, each entry with its history key (recipe-history.ts) while history is kept; without it every task counts as running. */
  snapshotRecipe?(): SnapshotRecipe;
  /** Told whenever the writer's state changes, so the supervisor can tell its clients (L10). */
  snapshotState?(state: SnapshotState): void;
}

/**
 * `error`: the failure that began the current streak of failed passes, null once a pass succeeds.
 * `pendingSince`: the first fleet change no snapshot on disk holds yet.
 */
export interface SnapshotState {
  error: SnapshotError | null;
  pendingSince: string | null;
}

export interface SnapshotWriterOptions extends SnapshotSettings {
  dir: string;
  home: string;
  /** History is kept (`history` in settings.ts); when not, each prune removes what dead supervisors kept. */
  history?: boolean;
  log(message: string): void;
}

export class SnapshotWriter {
  readonly file: string;
  private readonly name: string;
  private debounce: ReturnType<typeof setTimeout> | null = null;
  /** When the pending pass runs (performance.now), null when none waits. */
  private dueMs: number | null = null;
  private check: ReturnType<typeof setInterval> | null = null;
  private last: { file: string; body: string } | null = null;
  private state: SnapshotState = { error: null, pendingSince: null };

  constructor(
    private readonly source: SnapshotSource,
    private readonly options: SnapshotWriterOptions,
  ) {
    this.name = snapshotFileName(source.startedAt, process.pid);
    this.file = join(options.dir, this.name);
  }

  start(): this {
    this.check = setInterval(() => this.pass(), this.options.checkMs);
    this.check.unref?.();
    return this;
  }

  /** A change joins the pending pass, which a burst never puts off (snapshotPassDue); `now` runs it at once. */
  changed(urgency: SnapshotUrgency = "soon"): void {
    if (this.state.pendingSince === null) this.report({ ...this.state, pendingSince: new Date().toISOString() });
    const now = performance.now();
    const due = snapshotPassDue(this.dueMs, now, urgency, this.options.debounceMs);
    if (due === this.dueMs) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.dueMs = due;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      this.dueMs = null;
      this.pass();
    }, due - now);
  }

  /** A pass still pending when the supervisor stops runs now: a clean stop loses nothing. */
  stop(): void {
    if (this.check) clearInterval(this.check);
    this.check = null;
    if (!this.debounce) return;
    clearTimeout(this.debounce);
    this.debounce = null;
    this.dueMs = null;
    this.pass();
  }

  pass(): void {
    const began = performance.now();
    const { running: entries, finished } = this.source.snapshotRecipe?.() ?? { running: this.source.recipe(), finished: [] };
    const tasks = entries.length + finished.length;
    const pass = { file: this.file, tasks, body: formatRecipe("", entries, this.options.home, finished) };
    // Nothing to write means the disk already holds this fleet (or it is empty): as good as a write.
    if (!shouldWriteSnapshot(pass, this.last, existsSync(this.file))) return this.report({ error: null, pendingSince: null });
    try {
      ensurePrivateDir(this.options.dir, "recovery directory");
      removeStaleTempFiles(this.options.dir);
      writeFileAtomic(this.file, formatRecipe(snapshotLabel(new Date()), entries, this.options.home, finished));
      this.last = { file: pass.file, body: pass.body };
      this.prune();
    } catch (error) {
      // The next change or check tries again; a supervisor never dies over a snapshot.
      this.options.log(`snapshot failed: ${errorMessage(error)}`);
      // Clients hear of a failure once per streak, with the time it began.
      this.report({ ...this.state, error: this.state.error ?? { message: errorMessage(error), since: new Date().toISOString() } });
      return;
    }
    this.report({ error: null, pendingSince: null });
    const ms = (performance.now() - began).toFixed(2);
    this.options.log(`snapshot written ${this.file}: ${tasks} task(s) in ${ms} ms`);
  }

  private report(next: SnapshotState): void {
    if (next.error === this.state.error && next.pendingSince === this.state.pendingSince) return;
    this.state = next;
    this.source.snapshotState?.(next);
  }

  private prune(): void {
    for (const name of snapshotsToPrune(listWithMtimes(this.options.dir), this.name, writerLive)) {
      try {
        unlinkSync(join(this.options.dir, name));
      } catch {
        // removed by another supervisor's prune in the meantime
      }
    }
    // A snapshot's history goes with it (recipe-history.ts); with history off, all that dead supervisors kept.
    for (const name of historyDirsToPrune(readdirSync(this.options.dir), writerLive, this.options.history === false)) {
      try {
        rmSync(join(this.options.dir, name), { recursive: true, force: true });
      } catch {
        // removed by another supervisor's prune in the meantime
      }
    }
  }
}

function listWithMtimes(dir: string): SnapshotFile[] {
  const files: SnapshotFile[] = [];
  for (const name of readdirSync(dir)) {
    try {
      files.push({ name, writtenMs: statSync(join(dir, name)).mtimeMs });
    } catch {
      // removed by another supervisor's prune in the meantime
    }
  }
  return files;
}

/**
 * A file's writer is live when its PID runs and is the same process: one that started after the
 * name's start time got a reused PID. Without /proc (macOS) the start time is unknown and a running
 * PID is trusted, which can only keep a file longer.
 */
function writerLive(snapshot: SnapshotName): boolean {
  if (!isProcessAlive(snapshot.pid)) return false;
  const started = processStartedAtMs(snapshot.pid);
  return started === null || couldBeWriter(snapshot, started);
}

/** A writer for a supervisor, with the directory, home and intervals from its environment; the supervisor calls `changed` (daemon.ts DaemonHooks). */
export function startSnapshots(source: SnapshotSource, env: Env, log: (message: string) => void, history = true): SnapshotWriter {
  const settings = {
    debounceMs: msSetting(env, "FLEETCOM_SNAPSHOT_DEBOUNCE_MS", DEFAULT_DEBOUNCE_MS, log),
    checkMs: msSetting(env, "FLEETCOM_SNAPSHOT_CHECK_MS", DEFAULT_CHECK_MS, log),
  };
  return new SnapshotWriter(source, { ...settings, dir: recoveryDir(env), home: homeDir(env), history, log }).start();
}

// Test hooks: shorter intervals make the debounce and the check observable in seconds, not minutes.
export function msSetting(env: Env, key: string, fallback: number, log: (message: string) => void): number {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  if (/^\d+$/.test(raw.trim()) && Number(raw) > 0) return Number(raw);
  log(`${key}='${raw}' is not a positive whole number of milliseconds; using ${fallback}`);
  return fallback;
}
