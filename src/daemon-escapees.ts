// Which processes of a task left its process group (a daemon that called setsid, as Codex's TUI does
// with `codex app-server`), so a kill of the group never reached them: kill and rm say so. Linux
// only (/proc); none elsewhere.
import { existsSync, readFileSync } from "node:fs";
import { listProcStats, processStartedAtMs } from "./proc.ts";
import type { Escapee } from "./wire-protocol.ts";

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
  const found: Escapee[] = [];
  for (const stat of listProcStats() ?? []) {
    if (stat.pid === process.pid || stat.state === "Z") continue;
    const entry = String(stat.pid);
    const env = environOf(entry);
    const run = env && byTask.get(env.FLEETCOM_TASK_ID ?? "");
    if (!env || !run || stat.pgrp === run.pgid) continue;
    const started = processStartedAtMs(stat.pid);
    if (started !== null && started < run.startedAt.getTime() - START_SLACK_MS) continue;
    if (!isOurs(env)) continue;
    found.push({ task: run.taskId, pid: stat.pid, command: commandOf(entry) });
  }
  return found.sort((a, b) => a.task - b.task || a.pid - b.pid);
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
