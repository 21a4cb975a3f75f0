// What Linux's /proc says about processes: enough to tell one process from a later one that was
// given the same PID (its start time), which group and session it is in, and whether it holds an
// flock on a given file. Every reader returns null where there is no /proc (macOS): callers must
// then fall back to what they can prove without it, which is less.
import { readdirSync, readFileSync, statSync } from "node:fs";

/**
 * Clock ticks per second of /proc's start times (USER_HZ). It is 100 on every architecture Bun and
 * Deno run on (x86-64, arm64); sysconf(_SC_CLK_TCK) would only say the same through FFI.
 */
export const TICKS_PER_SECOND = 100;

export interface ProcStat {
  pid: number;
  /** R, S, D, Z, T… (a zombie, Z, has exited and is only waiting to be reaped). */
  state: string;
  pgrp: number;
  session: number;
  /** Start time in clock ticks since boot (field 22): with the PID, names one process for good. */
  start: number;
}

/** What a process uses, read in the same pass as its ProcStat (daemon-resources.ts). */
export interface ProcUsage extends ProcStat {
  /** CPU time spent, user and system (fields 14 and 15), in clock ticks. */
  cpuTicks: number;
  /** Resident set size (field 24), in pages. */
  rssPages: number;
  /** Threads (field 20). */
  threads: number;
}

export function hasProc(): boolean {
  try {
    statSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
}

export function readProcStat(pid: number): ProcUsage | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    return parseProcStat(pid, readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

// The command name (field 2) may hold spaces and parentheses: fields resume after the last ")".
function fieldsAfterName(text: string): string[] {
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

export function parseProcStat(pid: number, text: string): ProcUsage | null {
  const fields = fieldsAfterName(text);
  const start = Number(fields[19]);
  if (fields.length < 20 || !Number.isFinite(start)) return null;
  const counted = (i: number) => Number(fields[i]) || 0;
  return {
    pid,
    state: fields[0]!,
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    start,
    cpuTicks: counted(11) + counted(12),
    rssPages: counted(21),
    threads: counted(17),
  };
}

let pageBytes: number | undefined;

/**
 * The size of a memory page, which /proc counts resident memory in: 4 KiB on x86-64, 4, 16 or 64 KiB
 * on arm64. Read once from this process's own resident size given both ways (kB in status, pages in
 * statm), rounded to the power of two it must be.
 */
export function pageSize(): number {
  if (pageBytes !== undefined) return pageBytes;
  pageBytes = 4096;
  try {
    const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
    const pages = Number(readFileSync("/proc/self/statm", "utf8").split(" ")[1]);
    if (kb > 0 && pages > 0) pageBytes = 2 ** Math.round(Math.log2((kb * 1024) / pages));
  } catch {
    // No /proc: nothing is counted in pages.
  }
  return pageBytes;
}

/** The device number of a process's controlling terminal (tty_nr, field 7); null when it has none or there is no /proc. */
export function controllingTty(pid: number): number | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const tty = Number(fieldsAfterName(readFileSync(`/proc/${pid}/stat`, "utf8"))[4]);
    return tty > 0 ? tty : null;
  } catch {
    return null;
  }
}

/** The process group a live process is in; null when it is gone, a zombie, or there is no /proc. */
export function liveGroupOf(pid: number): number | null {
  const stat = readProcStat(pid);
  return stat && stat.state !== "Z" ? stat.pgrp : null;
}

/** Every process /proc shows, or null without /proc. */
export function listProcStats(): ProcUsage[] | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  const stats: ProcUsage[] = [];
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue;
    const stat = readProcStat(Number(entry));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** Now, in the clock ticks since boot that start times are counted in; null without /proc. */
export function ticksNow(): number | null {
  try {
    const [seconds, fraction = "0"] = readFileSync("/proc/uptime", "utf8").split(" ")[0]!.split(".");
    // /proc/uptime has two decimals: hundredths, which are ticks at USER_HZ 100.
    return Number(seconds) * TICKS_PER_SECOND + Math.floor((Number(fraction.padEnd(2, "0").slice(0, 2)) * TICKS_PER_SECOND) / 100);
  } catch {
    return null;
  }
}

/** A process's environment (/proc/PID/environ); null when it cannot be read (gone, another user's, no /proc). */
export function environOf(pid: number): Record<string, string> | null {
  try {
    const text = readFileSync(`/proc/${pid}/environ`, "utf8");
    const env: Record<string, string> = {};
    for (const pair of text.split("\0")) {
      const eq = pair.indexOf("=");
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    return env;
  } catch {
    return null;
  }
}

const COMMAND_MAX = 80;

/** A process's command line for a listing: the program as its last path component, control characters as `?`, capped; `?` when unreadable. */
export function commandOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((a) => a !== "");
    if (argv.length > 0) argv[0] = argv[0]!.slice(argv[0]!.lastIndexOf("/") + 1);
    const line = argv.join(" ").replace(/\p{Cc}/gu, "?");
    return [...line].length > COMMAND_MAX ? `${[...line].slice(0, COMMAND_MAX - 1).join("")}…` : line;
  } catch {
    return "?";
  }
}

/** The real user id a process runs as (/proc/PID/status); null when it cannot be read. */
export function processUid(pid: number): number | null {
  try {
    const line = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

/**
 * When a process started, as wall-clock milliseconds. Coarse: the boot time /proc/stat gives is in
 * whole seconds, so this is up to a second early; it follows wall-clock steps made since boot.
 */
export function processStartedAtMs(pid: number): number | null {
  const stat = readProcStat(pid);
  const boot = bootTimeSeconds();
  if (!stat || boot === null) return null;
  return boot * 1000 + (stat.start * 1000) / TICKS_PER_SECOND;
}

function bootTimeSeconds(): number | null {
  try {
    const line = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

/**
 * The PID a daemon wrote into its lock file once it held the lock (daemon-endpoint.ts): a hint, not
 * proof, since a dead daemon's PID stays in the file; flockHolder is the kernel's word. Null when the
 * file is gone or holds no PID.
 */
export function pidInLockFile(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * The PID holding an exclusive flock on `path`, in the kernel's own words (/proc/locks, which takes no
 * lock: a probe that took even a shared one could make a starting daemon give up). Null when nobody
 * holds it or the file is gone; undefined without /proc.
 */
export function flockHolder(path: string): number | null | undefined {
  if (!hasProc()) return undefined;
  try {
    const ino = statSync(path).ino;
    const named = pidInLockFile(path);
    if (named !== null && holdsFlock(named, ino)) return named;
    return flockHolderIn(ino, readFileSync("/proc/locks", "utf8"));
  } catch {
    return null;
  }
}

/**
 * Whether process `pid` holds an exclusive flock on inode `ino`, from its own fds' fdinfo (`lock:`
 * lines). Asked first for the PID the lock file names: /proc/locks is one list of every lock on the
 * machine, built a page per read(2) and indexed by position, so while other processes take and drop
 * locks a read of it can skip a line. Ten Deno clients starting at once (each taking and dropping
 * POSIX locks on Deno's caches) missed the daemon's line that way, and gave up on a daemon that held
 * its lock. One process's fdinfo does not move under other processes' locks.
 */
function holdsFlock(pid: number, ino: number): boolean {
  const dir = `/proc/${pid}/fdinfo`;
  for (const fd of readdirSync(dir)) {
    let info: string;
    try {
      info = readFileSync(`${dir}/${fd}`, "utf8");
    } catch {
      continue;
    }
    const locks = info
      .split("\n")
      .filter((line) => line.startsWith("lock:\t"))
      .map((line) => line.slice("lock:\t".length))
      .join("\n");
    if (locks && flockHolderIn(ino, `${locks}\n`) === pid) return true;
  }
  return false;
}

/** The PID holding an exclusive flock on inode `ino`, from the text of /proc/locks. */
export function flockHolderIn(ino: number, procLocks: string): number | null {
  for (const line of procLocks.split("\n")) {
    const m = /^\d+:\s+FLOCK\s+\S+\s+WRITE\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
    if (m && Number(m[2]) === ino) return Number(m[1]);
  }
  return null;
}
