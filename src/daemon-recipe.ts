// What a save and a recovery snapshot store of the fleet's tasks (sessions.md, recovery.md): each
// task as a recipe entry, agents in their resume form when their conversation is known, with its
// worktree, its service fields, its restart policy and (snapshots only) its baseline and checkpoints.
import { savedCommands } from "./agent-run.ts";
import { restartFieldsOf } from "./daemon-restarts.ts";
import { mutedOf } from "./daemon-notify-gate.ts";
import type { SnapshotRecipe } from "./daemon-snapshots.ts";
import type { Task } from "./daemon-task.ts";
import type { Checkpoint } from "./git-checkpoint.ts";
import type { WorktreeRecord } from "./recipe.ts";
import type { RecipeEntry } from "./wire-protocol.ts";

/** What a save stores: `tasks` in id order. */
export function savedRecipe(tasks: readonly Task[]): RecipeEntry[] {
  const commands = savedCommands(tasks);
  return tasks.map((t, i) => ({
    dir: t.cwd,
    cmd: commands[i]!,
    group: t.group,
    name: t.name,
    ...worktreeOf(t),
    ...t.service,
    ...restartFieldsOf(t, false),
    ...mutedOf(t),
  }));
}

/**
 * What a recovery snapshot stores: the recipe of the tasks `running` says are meant to run, and apart
 * from it the tasks that have finished, which a recovery must not start again (recovery.md); each entry
 * with its task's id, which a recovery gives back, its command as typed where that is not the one
 * stored, and the key of its history file while `keepsHistory`.
 */
export function snapshotOf(
  tasks: readonly Task[],
  running: (task: Task) => boolean,
  keepsHistory: boolean,
  checkpointsOf: (task: Task) => Checkpoint[] | undefined,
): SnapshotRecipe {
  const commands = savedCommands(tasks);
  const split: SnapshotRecipe = { running: [], finished: [] };
  tasks.forEach((t, i) => {
    const cmd = commands[i]!;
    // The command as typed, where the stored one differs: what `recover --list` calls the task, and what a recovery keeps.
    const typed = t.typed === cmd ? {} : { typed: t.typed };
    const entry = {
      dir: t.cwd,
      cmd,
      group: t.group,
      name: t.name,
      id: t.id,
      ...typed,
      ...worktreeOf(t),
      ...(t.baseline === null ? {} : { baseline: t.baseline }),
      ...checkpointsMember(checkpointsOf(t)),
      ...t.service,
      ...restartFieldsOf(t, true),
      ...mutedOf(t),
      ...(keepsHistory ? { history: String(t.id) } : {}),
    };
    (running(t) ? split.running : split.finished).push(entry);
  });
  return split;
}

/** A snapshot entry's `checkpoints` (daemon-checkpoints.ts), for a task that has any. */
function checkpointsMember(checkpoints: Checkpoint[] | undefined): { checkpoints?: Checkpoint[] } {
  return checkpoints === undefined ? {} : { checkpoints };
}

/** A recipe entry's `worktree`, for a task fleetcom made one for. */
function worktreeOf(task: Task): { worktree?: WorktreeRecord } {
  return task.worktree === null ? {} : { worktree: task.worktree };
}
