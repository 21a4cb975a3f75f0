// The dashboard's `c`: a task's checkpoints (docs/review.md, "Checkpoints and rewind") in the pager,
// listed as `fleetcom checkpoints` lists them, with the command that rewinds to one.
import { label } from "./task-labels.ts";
import { printable } from "./text-printable.ts";
import type { Desk } from "./ui-dashboard-actions.ts";
import { pageText } from "./ui-history-pager.ts";
import type { ListRow } from "./view-fleet.ts";

/**
 * `c`: the task's checkpoints in the pager, as `fleetcom checkpoints` lists them (docs/review.md); the
 * daemon keeps them, so another host's task is asked of its own daemon.
 */
export async function pageCheckpoints(desk: Desk, row: ListRow): Promise<void> {
  const { task } = row;
  if (!task) return desk.tell("c lists a task's checkpoints: put the cursor on a task");
  const listed = await desk.clientOf(task).request("checkpoints", { task: { id: task.id } });
  if (listed.top === null) return desk.tell(`task ${desk.ref(task)} has no checkpoints: only agents and --worktree tasks in a git repository get them`, true);
  // Loaded on `c`: the rewind's git helpers come with it, no part of a dashboard that never lists one.
  const { checkpointsTable } = await import("./client-checkpoints.ts");
  const text = `checkpoints of task ${desk.ref(task)} ${printable(label(task))} (rewind: fleetcom rewind ${desk.ref(task)} N)\n${checkpointsTable(listed)}`;
  await desk.lendToPager(() => pageText(text));
}
