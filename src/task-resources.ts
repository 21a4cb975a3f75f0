// What a running task uses of the machine (docs/daemon.md, "What each task uses"): the CPU and
// resident memory of every process in its process group, as the daemon samples them and the clients
// show them. Pure: the daemon reads the processes (daemon-resources.ts), this says what they add up to.
//
// CPU is a share of one core over the time since the process was last sampled, or since it started
// when this is the first look at it (what `ps` shows): a first `ls` has a figure, and a task that
// forks a busy child counts it from its first sample on.

/** One task's figures, as TaskInfo carries them. */
export interface TaskResources {
  /** Percent of one core (a task busy on two cores shows 200), to one decimal. */
  cpu: number;
  /** Resident memory of the whole group, in bytes. */
  rss: number;
  threads: number;
  processes: number;
}

/** One process of a task's group as it was read, its memory already in bytes and its CPU in clock ticks. */
export interface SampledProcess {
  pid: number;
  /** Start time in clock ticks since boot: with the PID, names one process for good. */
  start: number;
  cpuTicks: number;
  rssBytes: number;
  threads: number;
}

/** What a sample leaves for the next one: each process's CPU ticks then, by `pid:start`, and when (ticks since boot). */
export interface CpuMemory {
  at: number;
  ticks: ReadonlyMap<string, number>;
}

export const NOTHING_SAMPLED: CpuMemory = { at: 0, ticks: new Map() };

export function processKey(p: Pick<SampledProcess, "pid" | "start">): string {
  return `${p.pid}:${p.start}`;
}

/**
 * The figures of one task's processes at `now` (clock ticks since boot), against what the previous
 * sample saw of them. A process's CPU ticks going backwards (never, short of a PID reused within one
 * tick) counts as none.
 */
export function groupResources(members: readonly SampledProcess[], previous: CpuMemory, now: number): TaskResources {
  let busyShare = 0;
  let rss = 0;
  let threads = 0;
  for (const p of members) {
    const before = previous.ticks.get(processKey(p));
    const since = before === undefined ? p.start : previous.at;
    const spent = before === undefined ? p.cpuTicks : p.cpuTicks - before;
    if (now > since && spent > 0) busyShare += spent / (now - since);
    rss += p.rssBytes;
    threads += p.threads;
  }
  return { cpu: Math.round(busyShare * 1000) / 10, rss, threads, processes: members.length };
}

/** The `ls` CPU cell: `97%`, `0%`; empty when the task was not sampled (it has exited, or its daemon does not sample). */
export function cpuCell(cpu: number | null | undefined): string {
  return cpu == null ? "" : `${Math.round(cpu)}%`;
}

const UNITS = ["K", "M", "G", "T"] as const;

/** `812K`, `212M`, `2.1G`, `2G`: a memory size in a few characters, binary units as `top` counts them. */
export function memCell(bytes: number | null | undefined): string {
  if (bytes == null) return "";
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = value < 10 && !Number.isInteger(value) ? value.toFixed(1).replace(/\.0$/, "") : String(Math.round(value));
  return `${shown}${UNITS[unit]}`;
}

const LIMIT_UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `--max-memory 2G`, `512M`, `1.5g`, `300MiB`, a byte count: bytes, or null for anything else (zero too). */
export function parseMemoryLimit(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text);
  if (!m) return null;
  const bytes = Math.round(Number(m[1]) * LIMIT_UNITS[m[2]!.toLowerCase()]!);
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : null;
}

/** A limit as a recipe keeps it: exact, in the largest binary unit that divides it (`2G`, `1536M`, `4097`). */
export function exactSize(bytes: number): string {
  for (const [unit, size] of [
    ["T", 1024 ** 4],
    ["G", 1024 ** 3],
    ["M", 1024 ** 2],
    ["K", 1024],
  ] as const) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** Whether a task's figures were sampled; a daemon of an earlier version (another host's) sends none at all. */
export function sampled(task: { rss?: number | null }): boolean {
  return task.rss != null;
}

const BARS = "▁▂▃▄▅▆▇█";

/** The last minute of CPU as bars, one per sample, one core (or the busiest sample, if more) the tallest. */
export function sparkline(cpu: readonly number[]): string {
  const top = Math.max(100, ...cpu);
  return cpu.map((v) => BARS[Math.min(BARS.length - 1, Math.round((Math.max(0, v) / top) * (BARS.length - 1)))]).join("");
}

/** Why a task over its limit is stopped or restarted: `memory 2.1G over --max-memory 2G`. */
export function overMemoryReason(rss: number, limit: number): string {
  return `memory ${memCell(rss)} over --max-memory ${memCell(limit)}`;
}

/** A process as the sampler reads it: what proves its group (ProcStat's fields) and what it uses. */
export interface ProcessRead extends SampledProcess {
  state: string;
  pgrp: number;
  session: number;
}

const PS_TIME = String.raw`(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)`;
const PS_LINE = new RegExp(String.raw`^\s*(\d+)\s+(\d+)\s+(\d+)\s+${PS_TIME}\s+${PS_TIME}\s*$`);

/** `[[dd-]hh:]mm:ss[.ss]` from its four captures, in seconds. */
function psSeconds([days, hours, minutes, seconds]: (string | undefined)[]): number {
  return ((Number(days ?? 0) * 24 + Number(hours ?? 0)) * 60 + Number(minutes)) * 60 + Number(seconds);
}

/**
 * One line of `ps -A -o pid=,pgid=,rss=,time=,etime=` (macOS, where there is no /proc): rss in KiB,
 * CPU time and elapsed time as `[[dd-]hh:]mm:ss[.ss]`, in ticks of `ticksPerSecond`; its start is
 * `now` less its elapsed time, in the same ticks. Its session is not there: taken as its group, which
 * the proof of a task's group does not read without /proc. Null for a line that is not one.
 */
export function parsePsLine(line: string, ticksPerSecond: number, now: number): ProcessRead | null {
  const m = PS_LINE.exec(line);
  if (!m) return null;
  const ticks = (seconds: number) => Math.round(seconds * ticksPerSecond);
  const pgid = Number(m[2]);
  return {
    pid: Number(m[1]),
    state: "S",
    pgrp: pgid,
    session: pgid,
    start: now - ticks(psSeconds(m.slice(8, 12))),
    cpuTicks: ticks(psSeconds(m.slice(4, 8))),
    rssBytes: Number(m[3]) * 1024,
    threads: 1,
  };
}
