// Signalling a task's process group and telling whether anything in it is still alive. Orphaned
// members that already died linger as zombies until init reaps them; they must not count as alive,
// or every kill would wait out the whole grace period. And which processes of a task left its
// group, so kill and rm can say what they could not reach.
import { existsSync, readdirSync, readFileSync } from "node:fs";

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  return existsSync("/proc/self/stat") ? hasLiveMember(pgid) : true;
}

function hasLiveMember(pgid: number): boolean {
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) > 57) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

/** The process group a live process is in, or null (gone, a zombie, or no /proc to ask). */
export function groupOf(pid: number): number | null {
  const fields = statFields(String(pid));
  return fields && fields[0] !== "Z" ? Number(fields[2]) : null;
}

/** Fields of /proc/<pid>/stat after the command name: state, ppid, pgrp, … */
function statFields(pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** A process that left its task's process group, as `kill` and `rm` report it. */
export interface Escapee {
  task: number;
  pid: number;
  command: string;
}

export interface RunOfTask {
  taskId: number;
  /** The run's process group (its first process's pid). */
  pgid: number | null;
  startedAt: Date;
}

const COMMAND_MAX = 80;
/** Process start times come in clock ticks after a boot time in whole seconds. */
const START_SLACK_MS = 2_000;

/**
 * Processes the tasks' runs started that are no longer in their process group (a daemon that called
 * setsid, as Codex's TUI does with `codex app-server`), so a kill of the group never reached them.
 * Found by what every descendant inherits: `FLEETCOM_TASK_ID=<id>` and the environment that names
 * this supervisor's runtime directory (`isOurs`), and started since the run began. Only reported,
 * never signalled: a process outside the group may be one the user means to keep, and a PID read
 * here may belong to someone else by the time anything acted on it. Linux only (/proc); none
 * elsewhere, or when /proc cannot be read.
 */
export function escapedFromGroups(runs: readonly RunOfTask[], isOurs: (env: Record<string, string>) => boolean): Escapee[] {
  if (runs.length === 0 || !existsSync("/proc/self/environ")) return [];
  const byTask = new Map(runs.map((r) => [String(r.taskId), r]));
  const boot = bootTimeMs();
  const found: Escapee[] = [];
  for (const entry of safeReaddir("/proc")) {
    if (entry.charCodeAt(0) > 57 || Number(entry) === process.pid) continue;
    const env = environOf(entry);
    const run = env && byTask.get(env.FLEETCOM_TASK_ID ?? "");
    if (!env || !run) continue;
    const fields = statFields(entry);
    if (!fields || fields[0] === "Z" || Number(fields[2]) === run.pgid) continue;
    const started = boot === null ? null : boot + (Number(fields[19]) * 1000) / TICKS_PER_SECOND;
    if (started !== null && started < run.startedAt.getTime() - START_SLACK_MS) continue;
    if (!isOurs(env)) continue;
    found.push({ task: run.taskId, pid: Number(entry), command: commandOf(entry) });
  }
  return found.sort((a, b) => a.task - b.task || a.pid - b.pid);
}

/** `killed task 3; 1 process escaped its group: pid 123 codex app-server`, one line per task that had any. */
export function escapeReport(done: "killed" | "removed", tasks: readonly number[], escapees: readonly Escapee[]): string[] {
  return tasks.flatMap((task) => {
    const mine = escapees.filter((e) => e.task === task);
    if (mine.length === 0) return [];
    const what = `${mine.length} ${mine.length === 1 ? "process" : "processes"} escaped its group`;
    return [`${done} task ${task}; ${what}: ${mine.map((e) => `pid ${e.pid} ${e.command}`).join(", ")}`];
  });
}

// USER_HZ: 100 on every Linux fleetcom runs on (the kernel exports stat times in it, whatever HZ is).
const TICKS_PER_SECOND = 100;

function bootTimeMs(): number | null {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n").find((l) => l.startsWith("btime "));
    return line ? Number(line.slice(6)) * 1000 : null;
  } catch {
    return null;
  }
}

function environOf(pid: string): Record<string, string> | null {
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

/** The command line, program as its last path component, control characters shown as `?`, capped. */
function commandOf(pid: string): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((a) => a !== "");
    if (argv.length > 0) argv[0] = argv[0]!.slice(argv[0]!.lastIndexOf("/") + 1);
    const line = argv.join(" ").replace(/\p{Cc}/gu, "?");
    return [...line].length > COMMAND_MAX ? `${[...line].slice(0, COMMAND_MAX - 1).join("")}…` : line;
  } catch {
    return "?";
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
