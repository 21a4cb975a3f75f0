// Crash-safe file replacement for recipes and recovery snapshots: the target always holds either its
// old content or the complete new content, never a torn mix (sessions.md, "Writing safely").
// node:fs only, so it runs under Deno as well.
import { isProcessAlive } from "./platform.ts";
import { closeSync, fchmodSync, fsyncSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { errnoCode, errnoWords, errorMessage, UserError } from "./errors.ts";
import { printable } from "./text-printable.ts";

// Temp names start with a dot and end in `.tmp`, so no listing mistakes one for a session or a
// snapshot; the pid lets a later save tell a dead writer's leftover from a live write.
const TEMP_PREFIX = ".fleetcom-";
const TEMP_NAME = /^\.fleetcom-(\d+)-[0-9a-f]+\.tmp$/;

function tempPathFor(target: string): string {
  return join(dirname(target), `${TEMP_PREFIX}${process.pid}-${randomHex(6)}.tmp`);
}

// Web Crypto's generator, a global in every runtime: importing node:crypto costs a one-shot client
// (`recover --list`, `load --dry-run`) several milliseconds of Node's stream modules at start. A loop,
// not Array.from with a map: that builtin's first call has a cost of its own, and a starting daemon's first
// write (its clean-stop record) is on the way to its first client's reply.
function randomHex(bytes: number): string {
  let hex = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(bytes))) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** Why a file operation failed, in one line: the errno's words and code, else the error's first line. */
export function describeFsError(error: unknown): string {
  const code = errnoCode(error);
  const words = code === undefined ? undefined : errnoWords(code);
  if (words) return `${words} (${code})`;
  return errorMessage(error).split("\n")[0]!;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

// Some file systems refuse fsync on a directory; by then the rename has happened and the new content
// is in place, so reporting a failure would be a lie.
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // best effort, see above
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * `durable: false` leaves out the two fsyncs: the new content is in place for every process at
 * once, and survives this process crashing, but a machine that goes down before the kernel writes
 * it back may come up with the old content. For a write made durable soon after (daemon-clean-stop.ts).
 */
export function writeFileAtomic(path: string, content: string | Uint8Array, mode = 0o600, durable = true): void {
  const temp = tempPathFor(path);
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  let fd: number | undefined;
  try {
    fd = openSync(temp, "wx", mode);
    fchmodSync(fd, mode); // open's mode is filtered by the umask; the file mode is a promise
    writeAll(fd, bytes);
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // the temp file may never have been created
    }
    throw new UserError(`cannot write ${printable(path)}: ${describeFsError(error)}`);
  }
  if (durable) fsyncDirectory(dirname(path));
}

/**
 * writeFileAtomic off the event loop, for writes that come often (a task's history every few
 * seconds): the same temp file, fsync and rename, each step awaited, so a daemon serving its clients
 * never waits for the disk. Throws the same UserError.
 */
export async function writeFileAtomicAsync(path: string, bytes: Uint8Array, mode = 0o600): Promise<void> {
  // Loaded here: node:fs/promises costs every process that imports this file CPU at start (docs/benchmarks.md).
  const { open, rename, unlink } = await import("node:fs/promises");
  const temp = tempPathFor(path);
  let file: Awaited<ReturnType<typeof open>> | undefined;
  try {
    file = await open(temp, "wx", mode);
    await file.chmod(mode);
    await file.writeFile(bytes);
    await file.sync();
    await file.close();
    file = undefined;
    await rename(temp, path);
  } catch (error) {
    await file?.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw new UserError(`cannot write ${printable(path)}: ${describeFsError(error)}`);
  }
  fsyncDirectory(dirname(path));
}

// A writer killed mid-save leaves its temp file behind; it is harmless (no listing shows it) but
// would pile up, so writers sweep the leftovers of processes that no longer exist.
export function removeStaleTempFiles(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (!match || isProcessAlive(Number(match[1]))) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // another writer swept it first
    }
  }
}
