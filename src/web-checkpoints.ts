// The web view's Checkpoints (docs/web.md, docs/review.md "Checkpoints and rewind"): a task's
// checkpoints as `fleetcom checkpoints` lists them, and, from a page that may act (--write), a
// rewind to one through the same code as `fleetcom rewind` (client-checkpoints.ts): planned and
// checked before the first write, refused while the agent works. The rewind runs git in this
// process, so on this machine only: another host's task is pointed to `fleetcom rewind HOST:TASK`.
import type { DaemonClient } from "./client.ts";
import { changedFiles, rewindTask } from "./client-checkpoints.ts";
import { UserError } from "./errors.ts";
import { age } from "./text-age.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";

/** A checkpoint as the page lists it: what a row of `fleetcom checkpoints` says, in fields. */
export interface CheckpointRow {
  n: number;
  age: string;
  /** `3 files`, `no code changes`, `the start`. */
  files: string;
  prompt: string;
}

function thisMachine(task: TaskInfo | undefined, host: string | null, command: string): TaskInfo {
  if (host !== null) throw new UserError(`Checkpoints shows this machine's tasks; for ${host}'s run fleetcom ${command} ${host}:${task?.id ?? "TASK"}`);
  if (!task) throw new UserError("no such task");
  return task;
}

const listOf = (client: DaemonClient, task: TaskInfo) => () => client.request("checkpoints", { task: { id: task.id } });

/** The task's checkpoints, newest first; `note` says why there are none, or that checkpointing is paused. */
export async function checkpointRows(
  client: DaemonClient,
  task: TaskInfo | undefined,
  host: string | null,
  now = Date.now(),
): Promise<{ checkpoints: CheckpointRow[]; note: string | null }> {
  const listed = await listOf(client, thisMachine(task, host, "checkpoints"))();
  if (listed.top === null) return { checkpoints: [], note: "no checkpoints: only agents and --worktree tasks in a git repository get them" };
  const checkpoints = [...listed.checkpoints].reverse().map((c) => ({ n: c.n, age: age(c.at, now), files: changedFiles(c), prompt: printable(c.prompt) }));
  return { checkpoints, note: listed.paused ? "checkpoints are paused for this task: its disk is low on space" : null };
}

/** Rewinds the task to checkpoint `n` as `fleetcom rewind` does; a refusal (nothing changed, and why) is a result, not an error. */
export async function rewindFromPage(client: DaemonClient, task: TaskInfo | undefined, host: string | null, n: number): Promise<{ ok: boolean; text: string }> {
  const known = thisMachine(task, host, "rewind");
  try {
    return { ok: true, text: await rewindTask({ task: String(known.id), n, dryRun: false, force: false }, listOf(client, known)) };
  } catch (e) {
    if (e instanceof UserError) return { ok: false, text: e.message };
    throw e;
  }
}
