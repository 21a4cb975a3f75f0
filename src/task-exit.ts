// The exit code a shell would see of a finished task: its own, or 128 + n for signal n, as ssh and
// `docker run` report it. attach, `wait --for exit` and `logs -f` all end with it.
// node:os on first use (platform.ts): importing it costs attach's start CPU before its first draw.
import { nodeOs } from "./platform.ts";

/** What a finished task's end is known by: its code, or the signal that ended it. */
export interface TaskEnd {
  exitCode: number | null;
  signal: string | null;
}

export function exitCodeOf(task: TaskEnd): number {
  if (task.signal) return 128 + ((nodeOs().constants.signals as Record<string, number>)[task.signal] ?? 0);
  return task.exitCode ?? 1;
}
