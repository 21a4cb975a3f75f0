// A command that dies at once (a name not on the daemon's PATH, a crash on start) is said where it
// was started, not left for `ls` to show: run, load and recover watch the tasks they started for one
// short moment (`run_check`, config-run-check.ts) and name each that ended in it with a failure,
// with its last line. The moment ends early once every task watched has ended; a task that outlives
// it was started, and is not watched. A moment of 0 watches nothing and asks the daemon nothing.
import type { Target } from "./client-target.ts";
import { DaemonClient } from "./client.ts";
import { FleetModel } from "./client-fleet.ts";
import { runCheckSetting } from "./config-run-check.ts";
import { printable } from "./text-printable.ts";
import { cut } from "./text-width.ts";
import type { TaskInfo } from "./wire-protocol.ts";

const ended = (task: TaskInfo) => task.state === "exited";
const failed = (task: TaskInfo) => ended(task) && (task.signal !== null || task.exitCode !== 0);

/** The tasks of `ids` that ended with a failure within the moment, in the order of `ids`. */
export async function failedAtOnce(ids: readonly number[], target: Target, client?: DaemonClient): Promise<TaskInfo[]> {
  const check = runCheckSetting();
  if (check.problem !== null) process.stderr.write(`fleetcom: warning: ${printable(check.problem)}\n`);
  if (ids.length === 0 || check.ms === 0) return [];
  const own = client ?? (await DaemonClient.open(target, { autostart: false, notices: false }));
  const watched = new Set(ids);
  const latest = new Map<number, TaskInfo>();
  const before = own.handlers;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, check.ms);
      const note = (task: TaskInfo) => {
        if (!watched.has(task.id)) return;
        latest.set(task.id, task);
        if (ids.every((id) => latest.get(id) && ended(latest.get(id)!))) {
          clearTimeout(timer);
          resolve();
        }
      };
      own.handlers = { ...before, closed: () => resolve() };
      new FleetModel((event) => note(event.task)).follow(own, (tasks) => tasks.forEach(note)).catch(reject);
    });
  } finally {
    own.handlers = before;
    if (!client) own.close();
  }
  return ids.flatMap((id) => {
    const task = latest.get(id);
    return task && failed(task) ? [task] : [];
  });
}

/** `task 37 (nosuchcmd --flag) exited 127 at once: sh: 1: nosuchcmd: not found` */
export function failedAtOnceLine(task: TaskInfo): string {
  const how = task.signal ? `was killed (${task.signal})` : `exited ${task.exitCode}`;
  const label = cut(printable(task.name ?? task.command), 60);
  const last = task.preview.trim() ? `: ${cut(printable(task.preview.trim()), 120)}` : "";
  return `task ${task.id} (${label}) ${how} at once${last}`;
}

/** Says each task of `ids` that failed at once on stderr, as `fleetcom: …` lines; whether any did. */
export async function reportFailedAtOnce(ids: readonly number[], target: Target, client?: DaemonClient): Promise<boolean> {
  const found = await failedAtOnce(ids, target, client);
  for (const task of found) process.stderr.write(`fleetcom: ${failedAtOnceLine(task)} (fleetcom logs ${task.id})\n`);
  return found.length > 0;
}
