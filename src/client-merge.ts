// `fleetcom merge TASK`: lands a `run --worktree` task's branch in the main checkout (docs/review.md).
// Never a half-done merge: every refusal comes before anything is changed. The task's worktree must
// be clean (or `--commit MSG` commits it first, as asked), the main checkout must be clean and on the
// branch merged into, and `git merge-tree --write-tree` must find no conflict; only then does
// `git merge` run, and it then has nothing left that can stop it halfway.
import { UserError } from "./errors.ts";
import { gitRun } from "./git.ts";
import { taskNamed } from "./client-diff.ts";
import { printable } from "./text-printable.ts";
import type { WorktreeRecord } from "./recipe.ts";

export interface MergeRequest {
  task: string;
  /** `--into BRANCH`; else the branch the worktree was made from (or, in an older record, the one the main checkout is on). */
  into: string | null;
  squash: boolean;
  /** `--commit MSG`: the worktree's uncommitted changes committed first with this message. */
  commit: string | null;
}

/** Merges, or refuses with nothing changed; the line to print. */
export async function mergeTask(request: MergeRequest): Promise<string> {
  const task = await taskNamed(request.task);
  const worktree = task.worktree;
  if (worktree === null) throw new UserError(`task ${task.id} has no worktree: merge lands the branch of a task started with run --worktree`);
  const target = await targetBranch(worktree, request.into);
  await checkMainClean(worktree.repo);
  await settleWorktree(worktree, request.commit);
  const landed = await gitRun(worktree.repo, ["merge-base", "--is-ancestor", worktree.branch, target]);
  if (landed.code === 0) return `nothing to merge: ${printable(worktree.branch)} is already in ${printable(target)}`;
  await checkNoConflict(worktree, target);
  await merge(worktree, target, request.squash);
  return `merged ${printable(worktree.branch)} into ${printable(target)}${request.squash ? " (squashed)" : ""} in ${printable(worktree.repo)}`;
}

/** The branch merged into: it must be the one the main checkout is on, since the merge happens there. */
async function targetBranch(worktree: WorktreeRecord, into: string | null): Promise<string> {
  const head = await gitRun(worktree.repo, ["symbolic-ref", "--short", "-q", "HEAD"]);
  if (head.code !== 0)
    throw new UserError(`merge: the main checkout ${printable(worktree.repo)} is on no branch (a detached HEAD); check out the branch to merge into`);
  const current = head.out.trim();
  const wanted = into ?? worktree.from ?? current;
  if (wanted !== current)
    throw new UserError(
      `merge: the main checkout ${printable(worktree.repo)} is on ${printable(current)}, not ${printable(wanted)}; check out ${printable(wanted)} there first${into === null ? " (or --into BRANCH)" : ""}`,
    );
  if (current === worktree.branch) throw new UserError(`merge: the main checkout is on the task's own branch ${printable(current)}`);
  return current;
}

async function checkMainClean(repo: string): Promise<void> {
  const status = await gitRun(repo, ["status", "--porcelain", "--untracked-files=no"]);
  if (status.code !== 0) throw new UserError(`merge: git status in ${printable(repo)} failed: ${printable(status.err)}`);
  if (status.out.trim() !== "") throw new UserError(`merge: the main checkout ${printable(repo)} has uncommitted changes; commit or stash them first`);
}

/** The worktree clean, or committed as `--commit MSG` asks. */
async function settleWorktree(worktree: WorktreeRecord, message: string | null): Promise<void> {
  const status = await gitRun(worktree.path, ["status", "--porcelain"]);
  if (status.code !== 0) throw new UserError(`merge: git status in ${printable(worktree.path)} failed: ${printable(status.err)}`);
  if (status.out.trim() === "") return;
  if (message === null)
    throw new UserError(`merge: the task's worktree ${printable(worktree.path)} has uncommitted changes; commit them in the task first, or --commit MSG`);
  const added = await gitRun(worktree.path, ["add", "-A"]);
  const committed = added.code === 0 ? await gitRun(worktree.path, ["commit", "-q", "-m", message]) : added;
  if (committed.code !== 0) throw new UserError(`merge: committing in ${printable(worktree.path)} failed: ${printable(committed.err)}`);
}

async function checkNoConflict(worktree: WorktreeRecord, target: string): Promise<void> {
  const trial = await gitRun(worktree.repo, ["merge-tree", "--write-tree", "--name-only", "--no-messages", target, worktree.branch]);
  if (trial.code === 0) return;
  if (trial.code !== 1) throw new UserError(`merge: git merge-tree failed: ${printable(trial.err)}`);
  const files = trial.out
    .split("\n")
    .slice(1)
    .filter((l) => l !== "");
  throw new UserError(
    `merge: ${printable(worktree.branch)} conflicts with ${printable(target)} in ${files.map(printable).join(", ")}; nothing was changed (resolve it in the task, e.g. merge ${printable(target)} there)`,
  );
}

async function merge(worktree: WorktreeRecord, target: string, squash: boolean): Promise<void> {
  const env = { GIT_MERGE_AUTOEDIT: "no" };
  const merged = await gitRun(worktree.repo, ["merge", "-q", "--no-edit", ...(squash ? ["--squash"] : []), worktree.branch], env);
  const done = merged.code === 0 && squash ? await gitRun(worktree.repo, ["commit", "-q", "--no-edit"], env) : merged;
  if (done.code === 0) return;
  await gitRun(worktree.repo, squash ? ["reset", "-q", "--merge"] : ["merge", "--abort"]);
  throw new UserError(`merge: git merge of ${printable(worktree.branch)} into ${printable(target)} failed and was undone: ${printable(done.err || done.out)}`);
}
