// Each task's log on disk (docs/logs.md): everything it printed, as timed lines, beyond the
// scrollback, up to `log_max` per task, in the history directory (daemon-history.ts) and so only
// while history is kept. The rules of the form are recipe-log.ts's.
//
// INVARIANTS: the output path pays one array push per chunk (TaskLog.push); the lines are cut and
// written in batches, on a timer or once a task has much waiting, never per chunk, and a batch is
// cut chunk by chunk into one reused buffer: no string or buffer the size of a batch is made. A
// flood's batches go to a part held open between them; every timer tick closes it, so a part is
// looked at again (directory, symlink, owner) at least once a tick while it is written. A write that
// fails (a full disk) stops that log's writes with one warning, never the task or the daemon; what
// waited is dropped, and the log says where it resumed. A part is opened without following a
// symlink, non-blocking (a FIFO cannot hold it), and must be a regular file of ours, as the history
// files are. Parts are 0600 in the history directory (0700); a removed task's parts go with it.
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readdirSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describeFsError } from "./atomic-write.ts";
import { errnoCode } from "./errors.ts";
import { copyRegularFile, FileRefused, readRegularFile } from "./files.ts";
import { ensureOwnPrivateDir } from "./runtime-dir.ts";
import { restoredMarker } from "./recipe-history.ts";
import {
  filterLog,
  LineCutter,
  type LogFilter,
  type LogLine,
  logPartBytes,
  logPartName,
  parseLogPart,
  parseLogPartName,
  partsToDrop,
  timeMark,
  withTimestamp,
} from "./recipe-log.ts";

/** Cut and written at least this often (FLEETCOM_LOG_INTERVAL_MS, for tests). */
export const DEFAULT_LOG_INTERVAL_MS = 1_000;
/**
 * A task with this much waiting is written at once, so a flood never piles up in memory. Small, so
 * that a flood's batch is cut and written while its chunks are still in the processor's cache, in
 * slices shorter than the time the task takes to fill its PTY (docs/benchmarks.md, "Logs on disk").
 */
const WRITE_NOW_BYTES = 64 * 1024;
/** A part passes its size by one line at most; a line never ended is cut at LineCutter.MAX_PARTIAL. */
const MAX_PART_OVERSHOOT = 2 * LineCutter.MAX_PARTIAL;
/** A reply to `logs` holds about this much text; the client asks for the next page. */
const PAGE_CHARS = 8 * 1024 * 1024;

/** Lines the task printed at `at` (epoch ms), each ending in "\n". */
interface LogPiece {
  at: number;
  lines: string;
}

/** What the daemon reports of its logs: their size on disk, and the failure that stopped writes. */
export interface LogsStatus {
  bytes: number;
  logMax: number;
  error: string | null;
}

/** The daemon's side of one task's log: output waiting to be written, and where it is written. */
export class TaskLog {
  private chunks: Uint8Array[] = [];
  private times: number[] = [];
  private waiting = 0;
  private readonly cutter = new LineCutter();
  private lastMark = -1;
  /** The part written to, its size, and the sizes of the others (by part number). */
  part = 0;
  partBytes = 0;
  sizes = new Map<number, number>();
  /** Why writes stopped (full disk, refused file); null while it is written. */
  stopped: string | null = null;
  /** `logs --follow` readers: each is given the lines of every batch cut after it began. */
  private readonly followers = new Set<(lines: LogLine[]) => void>();

  constructor(
    readonly key: string,
    private readonly store: LogStore,
    private readonly onMuch: () => void,
  ) {}

  /**
   * A recovered task carries on the log its task had before (the parts beside `historyFile`, the
   * history file its snapshot entry names), under the marker its history shows.
   */
  adopt(historyFile: string, writtenAt: Date | null): void {
    const lastWritten = this.store.adopt(this, historyFile);
    // The history's time when it was read, else the last part's: the marker always follows the old lines.
    const at = writtenAt ?? lastWritten;
    if (at) this.note(restoredMarker(at));
  }

  /** A page of this log (LogStore.read). */
  read(filter: LogFilter, timestamps: boolean, from?: number): { text: string; next: number | null } {
    return this.store.read(this.key, filter, timestamps, from);
  }

  /**
   * The log as it stands (every page, `filter` applied), then each line cut after it, to `onLine`,
   * until the handle is stopped. Both are taken in one turn of the event loop with nothing waiting
   * (a read writes what waits first), so the lines read and the lines given meet exactly: every
   * line once. `unfinished` writes what waits (a run's last line too once it ended), given at once.
   */
  follow(filter: LogFilter, timestamps: boolean, onLine: (line: string) => void): { kept: string[]; stop(): void; unfinished(): null } {
    const kept: string[] = [];
    let from: number | undefined;
    do {
      const page = from === undefined ? this.read(filter, timestamps) : this.read({ ...filter, last: undefined }, timestamps, from);
      if (page.text !== "") kept.push(...page.text.slice(0, -1).split("\n"));
      from = page.next ?? undefined;
    } while (from !== undefined);
    const times = { since: filter.since, until: filter.until };
    const follower = (lines: LogLine[]) => {
      for (const line of filterLog(lines, times)) onLine(timestamps ? withTimestamp(line) : line.text);
    };
    this.followers.add(follower);
    return {
      kept,
      stop: () => this.followers.delete(follower),
      unfinished: () => {
        this.store.flush();
        return null;
      },
    };
  }

  /** The task printed `chunk` at `at` (epoch ms): kept for the next batch. */
  push(chunk: Uint8Array, at: number): void {
    this.chunks.push(chunk);
    this.times.push(at);
    this.waiting += chunk.length;
    if (this.waiting >= WRITE_NOW_BYTES) this.onMuch();
  }

  /** A line of fleetcom's own (a rerun's separator), after what the task printed so far. */
  note(line: string, at = Date.now()): void {
    this.chunks.push(new TextEncoder().encode(`${line}\n`));
    this.times.push(at);
  }

  /** The task's run ended: a last line without its line feed is written too. */
  ended(at = Date.now()): void {
    this.chunks.push(new Uint8Array(0));
    this.times.push(-at);
  }

  get pending(): boolean {
    return this.chunks.length > 0;
  }

  /**
   * Cuts the waiting output into timed lines, one piece per chunk that ended lines, each given to
   * `each` as soon as it is cut: a flood's batch never stands as one large string. `each` must not
   * throw: the chunks are taken either way.
   */
  cut(each: (piece: LogPiece) => void): void {
    const [chunks, times] = [this.chunks, this.times];
    this.chunks = [];
    this.times = [];
    this.waiting = 0;
    const heard: LogPiece[] | null = this.followers.size > 0 ? [] : null;
    for (let i = 0; i < chunks.length; i++) {
      const at = times[i]!;
      const lines = at < 0 ? this.cutter.end() : this.cutter.push(chunks[i]!);
      if (lines === "") continue;
      const piece = { at: Math.abs(at), lines };
      heard?.push(piece);
      each(piece);
    }
    if (heard) this.tell(heard);
  }

  /** Followers hear a batch as it is cut, so a log whose writes stopped (a full disk) is still followed. */
  private tell(pieces: LogPiece[]): void {
    const lines = pieces.flatMap((p) =>
      p.lines
        .slice(0, -1)
        .split("\n")
        .map((text) => ({ at: p.at, text })),
    );
    for (const follower of this.followers) follower(lines);
  }

  /** The time mark written before lines printed at `at`: when the time changed (always at the start of a part), else "". */
  markBefore(at: number): string {
    if (at === this.lastMark) return "";
    this.lastMark = at;
    return timeMark(at);
  }

  /** A new part begins with its time, so it reads alone once the older parts are gone. */
  newPart(): void {
    this.lastMark = -1;
  }

  totalBytes(): number {
    let total = 0;
    for (const bytes of this.sizes.values()) total += bytes;
    return total;
  }
}

export interface LogStoreOptions {
  /** The history directory. */
  dir: string;
  logMax: number;
  intervalMs: number;
  log(message: string): void;
}

export class LogStore {
  private readonly logs = new Map<string, TaskLog>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private soon = false;
  private error: string | null = null;
  /** Where a batch is encoded on its way to disk; one for the store, as one batch is written at a time. */
  private readonly out = new EncodedBatch();
  /**
   * The parts a flood is written to, held open from one of its batches to the next: opening a part
   * (the directory's check, open, fstat, close) cost more than cutting its lines (docs/benchmarks.md).
   */
  private readonly held = new Map<TaskLog, HeldPart>();

  constructor(private readonly options: LogStoreOptions) {}

  get logMax(): number {
    return this.options.logMax;
  }

  start(): this {
    this.timer = setInterval(() => this.flush(), this.options.intervalMs);
    this.timer.unref?.();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flush();
  }

  /** The log of the task keyed `key` (its id), begun or carried on. */
  open(key: string): TaskLog {
    let log = this.logs.get(key);
    if (!log) {
      log = new TaskLog(key, this, () => this.flushSoon());
      this.readSizes(log);
      this.logs.set(key, log);
    }
    return log;
  }

  /**
   * Takes the parts of the log kept beside `historyFile` (another supervisor's history directory) as
   * this log's first parts: linked where it can, else copied, each only when it is a regular file of
   * ours (a symlink, a FIFO or another user's file is left where it is, and said so).
   */
  adopt(log: TaskLog, historyFile: string): Date | null {
    const from = dirname(historyFile);
    const key = /^([1-9]\d{0,9})\.txt\.gz$/.exec(basename(historyFile))?.[1];
    if (!key || log.sizes.size > 0) return null;
    let names: string[];
    try {
      if (!lstatSync(from).isDirectory()) return null;
      names = readdirSync(from);
    } catch {
      return null;
    }
    let lastWritten: Date | null = null;
    const parts = names.flatMap((name) => {
      const parsed = parseLogPartName(name);
      return parsed?.key === key ? [parsed.part] : [];
    });
    for (const part of parts.sort((a, b) => a - b)) {
      const source = join(from, logPartName(key, part));
      const target = join(this.options.dir, logPartName(log.key, part));
      try {
        ensureOwnPrivateDir(this.options.dir, "history directory");
        const stat = lstatSync(source);
        if (!stat.isFile()) throw new FileRefused(source, "not a regular file", "irregular");
        const uid = process.getuid?.();
        if (uid !== undefined && stat.uid !== uid) throw new FileRefused(source, `owned by uid ${stat.uid}, not ${uid}`, "foreign");
        try {
          linkSync(source, target);
        } catch {
          copyRegularFile(source, target, { noFollow: true, owner: uid, maxBytes: this.options.logMax + MAX_PART_OVERSHOOT });
        }
        log.sizes.set(part, stat.size);
        log.part = part;
        // Written to afresh in a part of its own: a linked part is the old directory's file too,
        // and may end in a line a full disk cut short.
        log.partBytes = Number.POSITIVE_INFINITY;
        lastWritten = stat.mtime;
      } catch (error) {
        this.options.log(`log not carried on from ${source}: ${error instanceof FileRefused ? error.message : describeFsError(error)}`);
      }
    }
    return lastWritten;
  }

  /** Writes every log with output waiting; `hold`: a flood's, whose parts stay open for its next batch. */
  flush(hold = false): void {
    for (const log of this.logs.values()) if (log.pending) this.write(log);
    if (!hold) for (const log of this.held.keys()) this.release(log);
  }

  /** A removed task's log goes with it (it can hold secrets, and nothing names it any more). */
  remove(key: string): void {
    const log = this.logs.get(key);
    if (log) this.release(log);
    this.logs.delete(key);
    for (const part of log ? log.sizes.keys() : this.partsOnDisk(key).map((p) => p.part)) this.unlink(key, part);
  }

  status(): LogsStatus {
    let bytes = 0;
    for (const log of this.logs.values()) bytes += log.totalBytes();
    return { bytes, logMax: this.options.logMax, error: this.error };
  }

  /**
   * A page of the task's log as text, oldest line first, after the output waiting is written: the
   * parts from `from` (the first page: from the first part, or where the last `filter.last` lines
   * begin) until a page is full; `next` is the part the next page starts at.
   */
  read(key: string, filter: LogFilter, timestamps: boolean, from?: number): { text: string; next: number | null } {
    const log = this.logs.get(key);
    if (log?.pending) this.write(log);
    const parts = this.partsOnDisk(key).map((p) => p.part);
    const times = { since: filter.since, until: filter.until };
    let index = from === undefined ? 0 : parts.findIndex((p) => p >= from);
    let skip = 0;
    if (from === undefined && filter.last !== undefined) [index, skip] = this.lastLines(key, parts, times, filter.last);
    if (index === -1) return { text: "", next: null };
    let text = "";
    for (; index < parts.length; index++) {
      if (text.length >= PAGE_CHARS) return { text, next: parts[index]! };
      const lines = filterLog(this.readPart(key, parts[index]!), times);
      for (const line of skip ? lines.slice(skip) : lines) text += `${timestamps ? withTimestamp(line) : line.text}\n`;
      skip = 0;
    }
    return { text, next: null };
  }

  /** Where the last `count` lines begin: the part's index, and how many of its lines come before them. */
  private lastLines(key: string, parts: number[], times: LogFilter, count: number): [number, number] {
    let found = 0;
    for (let i = parts.length - 1; i >= 0; i--) {
      found += filterLog(this.readPart(key, parts[i]!), times).length;
      if (found >= count) return [i, found - count];
    }
    return [0, 0];
  }

  private readPart(key: string, part: number): LogLine[] {
    try {
      const path = join(this.options.dir, logPartName(key, part));
      return parseLogPart(
        readRegularFile(path, { noFollow: true, owner: process.getuid?.(), maxBytes: this.options.logMax + MAX_PART_OVERSHOOT }).toString("utf8"),
      );
    } catch (error) {
      // A part rotated away meanwhile is no part of the log; a refused one is left unread, and said so.
      if (error instanceof FileRefused) this.options.log(`log part refused: ${error.message}`);
      else if (errnoCode(error) !== "ENOENT") this.options.log(`log part unreadable: ${describeFsError(error)}`);
      return [];
    }
  }

  private flushSoon(): void {
    if (this.soon) return;
    this.soon = true;
    setImmediate(() => {
      this.soon = false;
      this.flush(true);
    });
  }

  /**
   * Appends the waiting lines, a part at a time: a part is begun between pieces once the last one is
   * full. Each piece is encoded into the store's one buffer as it is cut, and the buffer is written
   * when it fills and at the end: a flood's batch makes no string or buffer of its size, whose
   * fresh pages cost more than the cutting itself.
   */
  private write(log: TaskLog): void {
    if (log.stopped) return log.cut(() => {});
    const partBytes = logPartBytes(this.options.logMax);
    let failure: unknown = null;
    let placed = false;
    log.cut((piece) => {
      if (failure !== null) return;
      try {
        this.place(log, piece, partBytes);
        placed = true;
      } catch (error) {
        failure = error;
      }
    });
    try {
      if (failure === null) this.writeOut(log);
    } catch (error) {
      failure = error;
    }
    this.out.discard();
    if (failure !== null) this.stopWrites(log, failure);
    else if (placed && this.error) {
      this.options.log("logs written again");
      this.error = null;
    }
  }

  /** The piece after what waits, in the part written to, cut after a line: a part passes its size by one line at most. */
  private place(log: TaskLog, piece: LogPiece, partBytes: number): void {
    let lines = piece.lines;
    while (lines !== "") {
      if (log.part === 0 || log.partBytes + this.out.used >= partBytes) {
        this.writeOut(log);
        this.rotate(log);
      }
      const room = partBytes - log.partBytes - this.out.used;
      const cut = lines.length <= room ? lines.length : lines.lastIndexOf("\n", room - 1) + 1 || lines.indexOf("\n") + 1;
      this.put(log, log.markBefore(piece.at));
      this.put(log, cut === lines.length ? lines : lines.slice(0, cut));
      lines = cut === lines.length ? "" : lines.slice(cut);
    }
  }

  /** `text` into the buffer, what waits written first when it would not fit (a text larger than the buffer goes alone). */
  private put(log: TaskLog, text: string): void {
    if (text === "") return;
    if (!this.out.fits(text)) this.writeOut(log);
    if (this.out.fits(text)) this.out.add(text);
    else this.append(log, Buffer.from(text, "utf8"));
  }

  private writeOut(log: TaskLog): void {
    if (this.out.used > 0) this.append(log, this.out.take());
  }

  private stopWrites(log: TaskLog, error: unknown): void {
    this.release(log);
    log.stopped = error instanceof FileRefused ? error.message : describeFsError(error);
    if (this.error === null) this.options.log(`log writes stopped: ${log.stopped}`);
    this.error = `task ${log.key}: ${log.stopped}`;
  }

  private append(log: TaskLog, bytes: Uint8Array): void {
    const fd = this.partFd(log);
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    } finally {
      log.partBytes += done;
      log.sizes.set(log.part, log.partBytes);
    }
  }

  /** The descriptor of the part written to: the one held open, else the part opened (and checked) now. */
  private partFd(log: TaskLog): number {
    const held = this.held.get(log);
    if (held?.part === log.part) return held.fd;
    this.release(log);
    const { fd, size } = this.openPart(log);
    log.partBytes = size;
    this.held.set(log, { fd, part: log.part });
    return fd;
  }

  /**
   * Opens the part written to for appending, in a directory of ours: without following a symlink,
   * non-blocking (a FIFO cannot hold it), and only a regular file of ours. Returns it with its size.
   */
  private openPart(log: TaskLog): { fd: number; size: number } {
    ensureOwnPrivateDir(this.options.dir, "history directory");
    const path = join(this.options.dir, logPartName(log.key, log.part));
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
    let fd: number;
    try {
      fd = openSync(path, flags, 0o600);
    } catch (error) {
      if (errnoCode(error) === "ELOOP") throw new FileRefused(path, "a symlink, not a log file", "irregular");
      // A FIFO nobody reads: the non-blocking open for writing fails instead of waiting.
      if (errnoCode(error) === "ENXIO") throw new FileRefused(path, "not a regular file", "irregular");
      throw error;
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new FileRefused(path, "not a regular file", "irregular");
      const uid = process.getuid?.();
      if (uid !== undefined && stat.uid !== uid) throw new FileRefused(path, `owned by uid ${stat.uid}, not ${uid}`, "foreign");
      return { fd, size: stat.size };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Closes the part held open for `log`, if any. */
  private release(log: TaskLog): void {
    const held = this.held.get(log);
    if (!held) return;
    this.held.delete(log);
    closeSync(held.fd);
  }

  /** Begins the next part and drops the oldest parts that no longer fit. */
  private rotate(log: TaskLog): void {
    this.release(log);
    log.part += 1;
    log.partBytes = 0;
    log.sizes.set(log.part, 0);
    log.newPart();
    const parts = [...log.sizes].map(([part, bytes]) => ({ part, bytes }));
    // Room for the part begun: the parts kept and it stay within the cap.
    const limit = this.options.logMax - logPartBytes(this.options.logMax);
    for (const part of partsToDrop(parts, limit)) {
      this.unlink(log.key, part);
      log.sizes.delete(part);
    }
  }

  /** Carries a log on where its parts on disk end (a daemon's own: a task keeps its key for its life). */
  private readSizes(log: TaskLog): void {
    for (const { part, bytes } of this.partsOnDisk(log.key)) {
      log.sizes.set(part, bytes);
      log.part = part;
      log.partBytes = bytes;
    }
  }

  private partsOnDisk(key: string): { part: number; bytes: number }[] {
    let names: string[];
    try {
      // Not through a symlink planted at the directory.
      if (!lstatSync(this.options.dir).isDirectory()) return [];
      names = readdirSync(this.options.dir);
    } catch {
      return [];
    }
    const parts: { part: number; bytes: number }[] = [];
    for (const name of names) {
      const parsed = parseLogPartName(name);
      if (parsed?.key !== key) continue;
      const stat = lstatSync(join(this.options.dir, name), { throwIfNoEntry: false });
      parts.push({ part: parsed.part, bytes: stat?.size ?? 0 });
    }
    return parts.sort((a, b) => a.part - b.part);
  }

  private unlink(key: string, part: number): void {
    try {
      if (lstatSync(this.options.dir).isDirectory()) unlinkSync(join(this.options.dir, logPartName(key, part)));
    } catch {
      // already gone
    }
  }
}

/** A part held open for a flood's next batch. */
interface HeldPart {
  fd: number;
  part: number;
}

/** A batch's text encoded as UTF-8 into one buffer, reused batch after batch (taken when first needed). */
class EncodedBatch {
  private static readonly BYTES = 256 * 1024;
  private buffer: Buffer | null = null;
  used = 0;

  /** Whether `text` fits after what waits (a UTF-16 unit is at most three bytes of UTF-8). */
  fits(text: string): boolean {
    return this.used + text.length * 3 <= EncodedBatch.BYTES;
  }

  add(text: string): void {
    this.buffer ??= Buffer.allocUnsafe(EncodedBatch.BYTES);
    this.used += this.buffer.write(text, this.used, "utf8");
  }

  /** What waits, to be written before anything is added again. */
  take(): Uint8Array {
    const bytes = this.buffer!.subarray(0, this.used);
    this.used = 0;
    return bytes;
  }

  discard(): void {
    this.used = 0;
  }
}
