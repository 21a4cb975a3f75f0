// The exit code a shell would see of a finished task: its own, or 128 + n for signal n, as ssh and
// `docker run` report it. attach, `wait --for exit` and `logs -f` all end with it.
import { constants } from "node:os";
import type { TaskInfo } from "./wire-protocol.ts";

export function exitCodeOf(task: TaskInfo): number {
  if (task.signal) return 128 + ((constants.signals as Record<string, number>)[task.signal] ?? 0);
  return task.exitCode ?? 1;
}
