// Runtime seam for everything that is not a PTY: how to start this program again, and an
// exclusive advisory lock (flock) that the kernel releases when its holder dies, which is what
// makes "exactly one daemon" race-free. Bun and Deno each get their libc binding here.
import { readFileSync } from "node:fs";
import { platform } from "node:os";
import { fileURLToPath } from "node:url";

declare const Deno: any;

const LOCK_EX = 2;
const LOCK_NB = 4;

/** argv that runs this same fleetcom (compiled binary, `bun src/main.ts`, or `deno run`). */
export function selfCommand(): string[] {
  // fileURLToPath, not URL.pathname: a checkout under `my tools/` must not become `my%20tools/`.
  if (typeof Deno !== "undefined") return [Deno.execPath(), "run", "-A", fileURLToPath(new URL("./main.ts", import.meta.url))];
  const script = process.argv[1] ?? "";
  // A compiled binary reports its embedded entry under /$bunfs; the executable alone runs it.
  if (script.startsWith("/$bunfs") || script.startsWith("B:/~BUN")) return [process.execPath];
  return [process.execPath, script];
}

function libcPath(): string {
  return platform() === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
}

type Flock = (fd: number, operation: number) => number;
let flockFn: Flock | undefined;

async function loadFlock(): Promise<Flock> {
  if (flockFn) return flockFn;
  if (typeof Deno !== "undefined") {
    const lib = Deno.dlopen(libcPath(), { flock: { parameters: ["i32", "i32"], result: "i32" } });
    flockFn = (fd, op) => lib.symbols.flock(fd, op);
  } else {
    const { dlopen, FFIType } = await import("bun:ffi");
    const lib = dlopen(libcPath(), { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
    flockFn = (fd, op) => lib.symbols.flock(fd, op) as number;
  }
  return flockFn;
}

/** Try to take an exclusive lock on an open fd without waiting; true when we hold it. */
export async function tryLockExclusive(fd: number): Promise<boolean> {
  const flock = await loadFlock();
  return flock(fd, LOCK_EX | LOCK_NB) === 0;
}

/** A zombie counts as dead: a daemon that exited stays one until init gets round to reaping it. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}
