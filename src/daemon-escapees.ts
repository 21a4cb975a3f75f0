// Which processes of a task left its process group (a daemon that called setsid, as Codex's TUI does
// with `codex app-server`), so a kill of the group never reached them: kill and rm say so. Linux
// only (/proc); none elsewhere.
import { existsSync } from "node:fs";
import { runtimeDir } from "./paths.ts";
import { commandOf, environOf, listProcStats, processStartedAtMs } from "./proc.ts";
import type { Escapee } from "./wire-protocol.ts";

export interface RunOfTask {
  taskId: number;
  /** The run's process group (its first process's pid). */
  pgid: number | null;
  startedAt: Date;
}

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
    const env = environOf(stat.pid);
    const run = env && byTask.get(env.FLEETCOM_TASK_ID ?? "");
    if (!env || !run || stat.pgrp === run.pgid) continue;
    const started = processStartedAtMs(stat.pid);
    if (started !== null && started < run.startedAt.getTime() - START_SLACK_MS) continue;
    if (!isOurs(env)) continue;
    found.push({ task: run.taskId, pid: stat.pid, command: commandOf(stat.pid) });
  }
  return found.sort((a, b) => a.task - b.task || a.pid - b.pid);
}

/** What of these tasks' runs left their process groups, among the processes of this runtime directory's tasks. */
export function escapedFromTasks(tasks: readonly { id: number; pid: number | null; startedAt: Date }[]): Escapee[] {
  const ours = runtimeDir();
  return escapedFromGroups(
    tasks.map((t) => ({ taskId: t.id, pgid: t.pid, startedAt: t.startedAt })),
    (env) => runtimeDir(env) === ours,
  );
}
