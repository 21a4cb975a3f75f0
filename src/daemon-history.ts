// Each task's history on disk, beside the recovery snapshot (docs/recovery.md, History), so that a
// crash or a reboot loses at most the last few seconds of what the fleet printed; and reading it
// back for a recovered task.
//
// INVARIANTS: the output path pays nothing but the task's `historyDirty = true`; the history comes
// from the emulator (or the kept screen of a finished task), never from the stream. A task's file is
// written at most once per interval (one pass at a time walks the tasks that printed since), without
// holding the event loop (gzip in chunks, then the atomic write: temp file, fsync, rename), so a file
// is always whole: the old history or the new one. Files are 0600 in a 0700 directory; a removed
// task's file goes with it; the directory goes with its snapshot (daemon-snapshots.ts prunes both).
import { lstatSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describeFsError, removeStaleTempFiles, writeFileAtomicAsync } from "./atomic-write.ts";
import type { Task } from "./daemon-task.ts";
import { errnoCode, errorMessage } from "./errors.ts";
import { FileRefused, readRegularFile } from "./files.ts";
import { MAX_HISTORY_FILE_BYTES, decodeHistory, encodeHistory, historyDirName, historyFileName, type RestoredHistory } from "./recipe-history.ts";
import { snapshotFileName } from "./recipe-snapshot-rules.ts";
import { msSetting } from "./daemon-snapshots.ts";
import { recoveryDir } from "./paths.ts";
import { ensureOwnPrivateDir } from "./runtime-dir.ts";
import { collectYoungGarbage } from "./platform.ts";
import type { HistoryStatus } from "./wire-protocol.ts";
import { InputGap } from "./daemon-input-gap.ts";
import { DEFAULT_LOG_INTERVAL_MS, LogStore } from "./daemon-logs.ts";
import { DEFAULT_LOG_MAX } from "./settings.ts";

// Compressed through the runtime's own CompressionStream, in chunks between turns of the event loop:
// node:zlib's import and first gzip cost a daemon several times CompressionStream's CPU at its first
// history write (most daemons' stop), and on a large history it holds the loop far longer
// (docs/benchmarks.md, Start-up costs behind the code).
async function gzipAsync(text: string): Promise<Uint8Array> {
  const packed = new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")));
  return new Uint8Array(await packed.arrayBuffer());
}

// node:zlib is loaded with the first history read (a recovery), for its bound on the output:
// its import is a share of a starting daemon's CPU before its first reply, which needs none.
async function gunzipAsync(packed: Uint8Array, options: { maxOutputLength: number }): Promise<Buffer> {
  const { gunzip } = await import("node:zlib");
  return new Promise((resolve, reject) => gunzip(packed, options, (error, text) => (error ? reject(error) : resolve(text))));
}

/** Never more than one write per task in this long (FLEETCOM_HISTORY_INTERVAL_MS, for tests). */
export const DEFAULT_HISTORY_INTERVAL_MS = 5_000;

/**
 * History text a pass reads between two collections of its garbage. A flooded task's history is
 * a lot of lines, and reading, joining and compressing it leaves several times that behind:
 * twenty such tasks in one pass raised a daemon's peak RSS before the collector ran (docs/benchmarks.md).
 */
const COLLECT_EVERY_CHARS = 1 << 20;

export interface HistorySource {
  readonly startedAt: Date;
  all(): Iterable<Task>;
  /** Whether this very task is still in the fleet. */
  holds(task: Task): boolean;
  /** Keystrokes from attached clients: a timed pass waits for a gap in them (daemon-input-gap.ts). */
  readonly inputGap?: InputGap;
}

export interface HistoryWriterOptions {
  /** The recovery directory; the history directory is made inside it. */
  recoveryDir: string;
  intervalMs: number;
  /** Each task's log (daemon-logs.ts): its cap, and how often it is written. */
  logMax?: number;
  logIntervalMs?: number;
  log(message: string): void;
}

export class HistoryWriter {
  readonly dir: string;
  /** Each task's log, in the same directory: kept while history is, and only then. */
  readonly logs: LogStore;
  private timer: ReturnType<typeof setInterval> | null = null;
  private pass: Promise<void> | null = null;
  private writes = 0;
  private bytes = 0;
  private error: string | null = null;
  private sweptTemps = false;

  constructor(
    private readonly source: HistorySource,
    private readonly options: HistoryWriterOptions,
  ) {
    this.dir = join(options.recoveryDir, historyDirName(snapshotFileName(source.startedAt, process.pid)));
    this.logs = new LogStore({
      dir: this.dir,
      logMax: options.logMax ?? DEFAULT_LOG_MAX,
      intervalMs: options.logIntervalMs ?? DEFAULT_LOG_INTERVAL_MS,
      log: options.log,
    });
  }

  /**
   * A timed pass reads whole scrollbacks on the event loop, so it waits for a gap in the typing
   * (daemon-input-gap.ts) rather than hold up the echo of the key it would land on.
   */
  start(): this {
    const gap = this.source.inputGap ?? new InputGap();
    this.timer = setInterval(
      () =>
        gap.run(() => {
          if (this.timer) void this.flush();
        }),
      this.options.intervalMs,
    );
    this.timer.unref?.();
    this.logs.start();
    return this;
  }

  /** Writes every task that printed since its last write; a pass already running is waited for instead. */
  flush(): Promise<void> {
    this.pass ??= this.writeChanged().finally(() => (this.pass = null));
    return this.pass;
  }

  /** A clean stop keeps what the tasks printed last: the pass in flight, then one more. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.logs.stop();
    await this.pass;
    await this.flush();
  }

  /** A removed task's history goes with it (it can hold secrets, and no snapshot names it any more). */
  remove(task: Task): void {
    this.logs.remove(String(task.id));
    try {
      // Not through a symlink planted at the directory, which no write went through either.
      if (lstatSync(this.dir).isDirectory()) unlinkSync(this.fileOf(task));
    } catch {
      // never written, or already gone
    }
  }

  status(): HistoryStatus {
    const logs = this.logs.status();
    return { enabled: true, writes: this.writes, bytes: this.bytes, error: this.error, logBytes: logs.bytes, logMax: logs.logMax, logError: logs.error };
  }

  private fileOf(task: Task): string {
    return join(this.dir, historyFileName(String(task.id)));
  }

  private async writeChanged(): Promise<void> {
    // The logs first: a log on disk is never behind the history beside it.
    this.logs.flush();
    let read = 0;
    for (const task of [...this.source.all()]) {
      if (!task.historyDirty) continue;
      task.historyDirty = false;
      if (read >= COLLECT_EVERY_CHARS) {
        collectYoungGarbage();
        read = 0;
      }
      try {
        read += await this.write(task);
        if (this.error) this.options.log("history written again");
        this.error = null;
      } catch (error) {
        // Tried again at the task's next output; the daemon never stops over history.
        task.historyDirty = true;
        if (this.error === null) this.options.log(`history write failed: ${errorMessage(error)}`);
        this.error = errorMessage(error);
      }
    }
  }

  /** Writes the task's history file; returns the length of the text it read. */
  private async write(task: Task): Promise<number> {
    const lines = await task.history();
    if (!this.source.holds(task)) return 0;
    // A task that has printed nothing has nothing to keep, and a history never empties once it has a
    // line (restored lines, earlier runs and the scrollback only grow), so no file is the same as an
    // empty one: a recovery finds it missing and starts the task with no marker over nothing. A fleet
    // of quiet servers then costs no compression, no fsync and no file per task.
    if (lines.length === 0) return 0;
    const text = encodeHistory(lines, new Date());
    const packed = await gzipAsync(text);
    ensureOwnPrivateDir(this.dir, "history directory");
    if (!this.sweptTemps) {
      removeStaleTempFiles(this.dir);
      this.sweptTemps = true;
    }
    const file = this.fileOf(task);
    await writeFileAtomicAsync(file, packed);
    // Removed while it was being written: remove() ran before the rename.
    if (!this.source.holds(task)) {
      this.remove(task);
      return text.length;
    }
    this.writes += 1;
    this.bytes += packed.length;
    return text.length;
  }
}

/** What the daemon reports when history is off. */
export const HISTORY_OFF: HistoryStatus = { enabled: false, writes: 0, bytes: 0, error: null };

/**
 * A history file written by some supervisor, for a recovered task: its lines and when they were
 * written, or why there are none (missing, damaged, not one of ours). Never throws: a recovery goes
 * on without the history it cannot read.
 */
export async function readHistoryFile(path: string): Promise<{ history: RestoredHistory } | { problem: string }> {
  try {
    const packed = readRegularFile(path, { maxBytes: MAX_HISTORY_FILE_BYTES, noFollow: true });
    const text = new TextDecoder().decode(await gunzipAsync(packed, { maxOutputLength: MAX_HISTORY_FILE_BYTES }));
    const history = decodeHistory(text);
    return history ? { history } : { problem: "not a fleetcom history file" };
  } catch (error) {
    if (error instanceof FileRefused) return { problem: error.reason };
    if (errnoCode(error) === "ENOENT") return { problem: "missing" };
    return { problem: `unreadable: ${describeFsError(error)}` };
  }
}

/** Hooks a writer onto a supervisor, in its environment's recovery directory, at FLEETCOM_HISTORY_INTERVAL_MS (tests) or every five seconds. */
export function startHistory(
  source: HistorySource,
  env: Record<string, string | undefined>,
  log: (message: string) => void,
  logMax = DEFAULT_LOG_MAX,
): HistoryWriter {
  const intervalMs = msSetting(env, "FLEETCOM_HISTORY_INTERVAL_MS", DEFAULT_HISTORY_INTERVAL_MS, log);
  const logIntervalMs = msSetting(env, "FLEETCOM_LOG_INTERVAL_MS", DEFAULT_LOG_INTERVAL_MS, log);
  return new HistoryWriter(source, { recoveryDir: recoveryDir(env), intervalMs, logMax, logIntervalMs, log }).start();
}
