// `fleetcom rm TASK…|-g G|--all [--force]`: remove finished tasks, sweeping what is left in their
// process groups; what left the group on its own is printed, as for kill. A running task is refused
// unless --force, which kills it first. A group or the whole fleet means its finished tasks (the
// dashboard's Completed cleared); with --force its running ones too, asked about first from a
// terminal as `kill -g` is, since what runs cannot be brought back.
import { type Target, targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { selection, someLabels, tasksOf, whereFrom } from "./client-select.ts";
import { withDaemon } from "./client.ts";
import { count, escapeReport } from "./ui-format.ts";
import type { TaskInfo, TaskRef } from "./wire-protocol.ts";
import type { WorktreeRecord } from "./recipe.ts";

export default defineCommand({
  facts: { tasks: "all", remote: "transport", worktree: true, plain: true },
  meta: { name: "rm", description: "Remove finished tasks (sweeping what is left in their process group)" },
  args: {
    task: {
      type: "positional",
      valueHint: "TASK…",
      description: "One or more finished tasks: ids, exact names or commands, or unique prefixes",
      required: false,
    },
    group: { type: "string", alias: "g", valueHint: "G", description: "Every finished task of group G" },
    all: { type: "boolean", description: "Every finished task" },
    force: { type: "boolean", alias: "f", description: "Kill running tasks first, then remove them too (asks first for -g and --all on a terminal)" },
    yes: { type: "boolean", alias: "y", description: "Do not ask" },
    worktree: {
      type: "boolean",
      description: "Also remove the git worktree fleetcom made for each (run --worktree); one with uncommitted changes is kept, with its task",
    },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const chosen = selection("rm", args);
    if ("named" in chosen) {
      const refs = chosen.named.map((typed) => ({ typed }));
      if (args.force) await withDaemon(target, (c) => c.request("kill", { tasks: refs }));
      return void (await remove(target, refs, Boolean(args.worktree)));
    }
    const tasks = tasksOf(await withDaemon(target, (c) => c.request("ls")), chosen);
    const running = tasks.filter((t) => t.state === "running");
    const finished = tasks.filter((t) => t.state !== "running");
    const where = whereFrom(chosen);
    const killing = args.force ? running : [];
    if (killing.length > 0 && !(await confirmKilling(killing, finished.length, where, Boolean(args.yes)))) {
      console.log("nothing removed");
      process.exitCode = 1;
      return;
    }
    if (killing.length > 0) await withDaemon(target, (c) => c.request("kill", { tasks: killing.map((t) => ({ id: t.id })) }));
    const gone = [...finished, ...killing].sort((a, b) => a.id - b.id);
    const removed =
      gone.length === 0
        ? 0
        : await remove(
            target,
            gone.map((t) => ({ id: t.id })),
            Boolean(args.worktree),
          );
    const left = args.force || running.length === 0 ? "" : `; ${count(running.length, "running task")} left (--force kills and removes them too)`;
    console.log(`removed ${count(removed, "task")}${where}${left}`);
  },
});

async function confirmKilling(running: TaskInfo[], finished: number, where: string, yes: boolean): Promise<boolean> {
  const { confirmed } = await import("./ui-confirm.ts");
  const names = someLabels(running);
  const andFinished = finished > 0 ? ` and remove ${finished} finished` : "";
  return confirmed(`kill and remove ${count(running.length, "running task")}${where} (${names})${andFinished}?`, yes);
}

/**
 * Removes them, prints what escaped, and says how many there were. With `worktrees`, each task's
 * worktree goes too; a task whose worktree fleetcom keeps (uncommitted changes, or not its own) is
 * kept with it, said on stderr, and the exit status is 1.
 */
async function remove(target: Target, tasks: TaskRef[], worktrees: boolean): Promise<number> {
  const { kept, go } = worktrees ? await withWorktrees(target, tasks) : { kept: [], go: tasks.map((ref) => ({ ref, worktree: null })) };
  for (const why of kept) process.stderr.write(`fleetcom: ${why}\n`);
  if (kept.length > 0) process.exitCode = 1;
  if (go.length === 0) return 0;
  const reply = await withDaemon(target, (c) => c.request("rm", { tasks: go.map((t) => t.ref) }));
  for (const line of escapeReport("removed", reply.removed, reply.escaped)) console.log(line);
  if (worktrees) {
    const { removeWorktree } = await import("./client-worktree.ts");
    for (const { worktree } of go) if (worktree) console.log(removeWorktree(worktree));
  }
  return reply.removed.length;
}

/** The tasks with the worktree each would take along, and why a task stays (its worktree is kept). */
async function withWorktrees(target: Target, refs: TaskRef[]): Promise<{ kept: string[]; go: { ref: TaskRef; worktree: WorktreeRecord | null }[] }> {
  const [{ worktreeKept }, { resolveTaskRef }] = await Promise.all([import("./client-worktree.ts"), import("./task-ref.ts")]);
  const fleet = await withDaemon(target, (c) => c.request("ls"));
  const kept: string[] = [];
  const go: { ref: TaskRef; worktree: WorktreeRecord | null }[] = [];
  for (const ref of refs) {
    const task = "id" in ref ? fleet.find((t) => t.id === ref.id) : resolveTaskRef(ref.typed, fleet);
    const why = task?.worktree ? worktreeKept(task.worktree) : null;
    if (why === null) go.push({ ref, worktree: task?.worktree ?? null });
    else kept.push(`task ${task!.id} not removed: ${why}`);
  }
  return { kept, go };
}
