// What is at a path (or behind an open fd), asked the forgiving way: anything unreadable or missing is simply not there. A
// path may carry a non-UTF-8 name as raw bytes (text-path.ts): it is asked for by those bytes.
// And reading a file someone else can put in place (a config, an agent's store, a cache, a recipe,
// a history file) without trusting it: only a regular file, never more than a bound.
import { Buffer } from "node:buffer";
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats, writeSync } from "node:fs";
import { UserError } from "./errors.ts";
import { windowSize } from "./platform.ts";
import { pathBytes } from "./text-path.ts";
import { printable } from "./text-printable.ts";
import { isWholeMebibytes, mebibytes } from "./text-size.ts";

/** Whether a directory is there (following links). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(pathBytes(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a regular file is there (following links). */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether anything is there (following links). */
export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether an open fd may be a terminal: a character device, and not /dev/null (`fleetcom run … >
 * /dev/null` in a script). Cheaper than asking process.stdout, which costs a one-shot client a
 * share of its start to build, and far more when it is /dev/null (docs/benchmarks.md).
 */
export function mayBeTerminal(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isCharacterDevice() && stat.rdev !== devNull();
  } catch {
    return false;
  }
}

/**
 * The size of the terminal stdout is (0 where it does not say), or null when stdout is no terminal:
 * through libc where it is bound (platform.ts windowSize), else process.stdout, whose first use loads
 * node:tty and node's streams, a share of every command typed in a terminal (docs/benchmarks.md).
 */
export function stdoutTerminalSize(): { cols: number; rows: number } | null {
  if (!mayBeTerminal(1)) return null;
  const known = windowSize(1);
  if (known) return known;
  const out = process.stdout;
  return out.isTTY ? { cols: out.columns || 0, rows: out.rows || 0 } : null;
}

/**
 * Whether stdin (0) or stdout (1) is a terminal, as isatty says, without building process.stdin or
 * process.stdout: the first of them built loads node:tty, a share of an attach's start
 * (docs/benchmarks.md). Bun's tty_wrap binding answers; a runtime without it asks the stream.
 */
export function isTerminal(fd: 0 | 1): boolean {
  try {
    const tty = (process as unknown as { binding?(name: string): unknown }).binding?.("tty_wrap") as { isTTY?: (fd: number) => unknown } | undefined;
    if (typeof tty?.isTTY === "function") return tty.isTTY(fd) === true;
  } catch {}
  return (fd === 0 ? process.stdin : process.stdout).isTTY === true;
}

/** /dev/null's device number; null where there is none to stat (a bare chroot), so nothing is taken for it. */
function devNull(): number | null {
  return statSync("/dev/null", { throwIfNoEntry: false })?.rdev ?? null;
}

/**
 * Why a file was not read: it is not a regular file (`not a regular file (a FIFO)`) or it is larger
 * than the reader's bound (`too large (N bytes, over 1 MiB)`). The message names the file.
 */
export class FileRefused extends UserError {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly kind: "irregular" | "oversize" | "foreign",
  ) {
    super(`${printable(file)}: ${reason}`);
    this.name = "FileRefused";
  }
}

export interface OpenRegular {
  /** A symlink at the path itself is refused instead of followed (O_NOFOLLOW). */
  noFollow?: boolean;
  /** The uid the file must belong to: another user's is refused. */
  owner?: number | undefined;
}

/**
 * A read-only fd of a regular file someone else may have put at `path`; the caller closes it. A FIFO
 * would block the open (and then every read) until a writer came, a device can block or never end,
 * so only a regular file is read: the path is checked before it is opened (opening some devices acts
 * on them), and the opened fd again, since the path may have been swapped in between; O_NONBLOCK
 * makes that open return at once even for a FIFO. Throws FileRefused, or the open's own error
 * (ENOENT for a missing file, ELOOP for a symlink under noFollow).
 */
export function openRegularFile(path: string, { noFollow = false, owner }: OpenRegular = {}): number {
  refuseIrregular(path, noFollow ? lstatSync(path) : statSync(path));
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | (noFollow ? constants.O_NOFOLLOW : 0);
  const fd = openSync(path, flags);
  try {
    const stat = fstatSync(fd);
    refuseIrregular(path, stat);
    if (owner !== undefined && stat.uid !== owner) throw new FileRefused(path, `owned by uid ${stat.uid}, not ${owner}`, "foreign");
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * The whole of a regular file someone else may have put at `path` (openRegularFile), refused with a
 * FileRefused when it is over `maxBytes`: at most maxBytes + 1 bytes are ever read, so a file that
 * grows while it is read cannot exhaust memory either.
 */
export function readRegularFile(path: string, options: OpenRegular & { maxBytes: number }): Buffer {
  const fd = openRegularFile(path, options);
  try {
    const oversize = (size: number) => new FileRefused(path, `too large (${size} bytes, over ${sizeName(options.maxBytes)})`, "oversize");
    const size = fstatSync(fd).size;
    if (size > options.maxBytes) throw oversize(size);
    const bytes = Buffer.alloc(Math.min(size, options.maxBytes) + 1);
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(fd, bytes, done, bytes.length - done, done);
      if (n === 0) break;
      done += n;
    }
    if (done > options.maxBytes) throw oversize(done);
    return bytes.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/**
 * A private copy at `copy` (made new, 0600; the caller removes it) of a regular file someone else may
 * have put at `path`, opened as openRegularFile opens it and streamed, never more than `maxBytes`:
 * for a program that can only be given a name (SQLite), a name nobody else can swap.
 */
export function copyRegularFile(path: string, copy: string, options: OpenRegular & { maxBytes: number }): void {
  const from = openRegularFile(path, options);
  let to: number | null = null;
  try {
    to = openSync(copy, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    const chunk = Buffer.alloc(Math.min(COPY_CHUNK, options.maxBytes + 1));
    for (let done = 0; ; ) {
      const n = readSync(from, chunk, 0, chunk.length, done);
      if (n === 0) return;
      done += n;
      if (done > options.maxBytes) throw new FileRefused(path, `too large (over ${sizeName(options.maxBytes)})`, "oversize");
      writeFully(to, chunk.subarray(0, n));
    }
  } finally {
    closeSync(from);
    if (to !== null) closeSync(to);
  }
}

const COPY_CHUNK = 1024 * 1024;

function writeFully(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}

function refuseIrregular(path: string, stat: Stats): void {
  if (!stat.isFile()) throw new FileRefused(path, `not a regular file (${fileKind(stat)})`, "irregular");
}

function fileKind(stat: Stats): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isDirectory()) return "a directory";
  if (stat.isSymbolicLink()) return "a symlink";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isSocket()) return "a socket";
  return "of an unknown kind";
}

function sizeName(bytes: number): string {
  return isWholeMebibytes(bytes) ? mebibytes(bytes) : `${bytes} bytes`;
}
