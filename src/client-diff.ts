// `fleetcom diff`: what a task changed since its baseline (docs/review.md). git runs on the machine
// the task runs on (kit-host.ts sends `diff HOST:TASK` to that host's own fleetcom), comparing the
// baseline's tree with a snapshot of the working tree now taken through a temporary index (git.ts),
// so commits, staged and unstaged edits and new files all show, and the user's index is not touched.
// The output is git's own diff, so the user's pager, colours and diff tools apply.
import { HERE } from "./client-target.ts";
import { withDaemon } from "./client.ts";
import { UserError } from "./errors.ts";
import { gitOnTerminal, gitRun, repositoryTop, snapshotTree } from "./git.ts";
import { resolveTaskRef } from "./task-ref.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";

export interface DiffRequest {
  task: string;
  /** `--stat` or `--name-only`, or none for the patch. */
  format: "patch" | "stat" | "name-only";
  /** `--base BRANCH`: from the merge base of BRANCH and the task's HEAD instead of the baseline. */
  base: string | null;
  paths: string[];
}

/** The task a TASK argument names, as this machine's daemon describes it (the repository is this machine's). */
export async function taskNamed(ref: string): Promise<TaskInfo> {
  const tasks = await withDaemon(HERE, (c) => c.request("ls"));
  return resolveTaskRef(ref, tasks);
}

/** The task a TASK argument names and the top of the repository it runs in; an error outside one. */
export async function taskInRepository(ref: string): Promise<{ task: TaskInfo; top: string }> {
  return repositoryOf(await taskNamed(ref));
}

async function repositoryOf(task: TaskInfo): Promise<{ task: TaskInfo; top: string }> {
  const top = await repositoryTop(task.cwd);
  if (top === null) throw new UserError(`task ${task.id} is not in a git repository (${printable(task.cwd)})`);
  return { task, top };
}

/** Runs the diff; git's exit code. */
export async function showDiff(request: DiffRequest): Promise<number> {
  const { task, top } = await taskInRepository(request.task);
  const base = request.base === null ? baselineOf(task) : await mergeBase(top, request.base);
  const now = await snapshotTree(top);
  const format = request.format === "patch" ? [] : [`--${request.format}`];
  return gitOnTerminal(top, ["diff", ...format, `${base}^{tree}`, now, "--", ...request.paths]);
}

/**
 * The dashboard's `d`: the task's whole diff since its baseline in git's pager, on this terminal,
 * until the user quits it. git's default `LESS=FRX` would quit at once on a diff shorter than the
 * screen, which the dashboard then draws over; a LESS of the user's own is kept.
 */
export async function pageTaskDiff(info: TaskInfo): Promise<number> {
  const { task, top } = await repositoryOf(info);
  const base = baselineOf(task);
  const now = await snapshotTree(top);
  return gitOnTerminal(top, ["diff", `${base}^{tree}`, now], { LESS: process.env.LESS ?? "R" });
}

export function baselineOf(task: TaskInfo): string {
  if (task.baseline === null)
    throw new UserError(
      `task ${task.id} has no baseline (yet): only agents and tasks started with --worktree get one, just after they start (--base BRANCH needs none)`,
    );
  return task.baseline.commit;
}

async function mergeBase(top: string, branch: string): Promise<string> {
  if (branch.startsWith("-")) throw new UserError(`diff --base: '${printable(branch)}' is not a branch`);
  const r = await gitRun(top, ["merge-base", branch, "HEAD"]);
  if (r.code !== 0)
    throw new UserError(`diff --base: no merge base of '${printable(branch)}' and HEAD in ${printable(top)}${r.err ? ` (${printable(r.err)})` : ""}`);
  return r.out.trim();
}
