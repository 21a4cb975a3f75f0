// A git worktree per task, opt-in (`run --worktree [BRANCH]`): several agents in one repository no
// longer step on each other's files. The client makes it (git runs with the user's own environment),
// the task runs in it, and its record (repository, branch, path) goes with the task into saves and
// snapshots, so a load or a recovery recreates a missing one from its branch.
//
// fleetcom never touches a worktree it did not make: each one it makes gets a marker file in its own
// git directory (`<repo>/.git/worktrees/<name>/fleetcom-created`), and `rm --worktree` removes only a
// marked one, and only when `git status` finds nothing uncommitted or untracked in it.
import { existsSync, realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { UserError } from "./errors.ts";
import { isDirectory } from "./files.ts";
import { childProcess } from "./platform.ts";
import { type Env, homeDir } from "./paths.ts";
import { type WorktreeRecord, worktreeRecord } from "./recipe.ts";
import { printable } from "./text-printable.ts";

const MARKER = "fleetcom-created";

type GitResult = { ok: true; out: string } | { ok: false; error: string };

function git(cwd: string, args: string[]): GitResult {
  const r = childProcess().spawnSync("git", ["-C", cwd, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error) return { ok: false, error: r.error.message };
  if (r.status === 0) return { ok: true, out: r.stdout.trim() };
  return { ok: false, error: r.stderr.trim().replace(/\s*\n\s*/g, " ") || `git exited ${r.status}` };
}

/** The branch a task's worktree gets when none is named: the task's name, or its program word, as one ref component. */
export function branchFor(hint: string): string {
  const word = basename(hint.trim().split(/\s+/)[0] ?? "");
  const clean = word
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[-.]+|[-.]+$/g, "")
    .replace(/\.lock$/, "");
  return clean || "task";
}

/**
 * Where a branch's worktree goes: `<worktree_dir>/<repo name>/<branch>`, or by default beside the
 * repository, `<repo>.worktrees/<branch>` (a `/` in the branch becomes `-`).
 */
export function worktreePath(repo: string, branch: string, dir: string | null, env: Env): string {
  const leaf = branch.replaceAll("/", "-");
  if (dir === null) return join(dirname(repo), `${basename(repo)}.worktrees`, leaf);
  const base = dir.startsWith("~/") ? join(homeDir(env), dir.slice(2)) : dir;
  return join(base, basename(repo), leaf);
}

function branchExists(repo: string, branch: string): boolean {
  return git(repo, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]).ok;
}

/** The main working tree of the repository `cwd` is in (the same from any of its worktrees). */
function mainTree(cwd: string): string | null {
  const common = git(cwd, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  if (!common.ok) return null;
  return basename(common.out) === ".git" ? dirname(common.out) : null;
}

/** Adds the worktree, marks it as fleetcom's, and says why not when git refuses. */
function add(repo: string, branch: string, path: string): string | null {
  // `--` before the path: whatever the record holds, git reads no option from it.
  const args = branchExists(repo, branch) ? ["worktree", "add", "--", path, branch] : ["worktree", "add", "-b", branch, "--", path];
  let added = git(repo, args);
  // A worktree deleted by hand is still registered: only that registration of this path is overridden.
  if (!added.ok && /already registered/.test(added.error)) added = git(repo, [...args.slice(0, 2), "-f", ...args.slice(2)]);
  if (!added.ok) return added.error;
  const gitDir = git(path, ["rev-parse", "--absolute-git-dir"]);
  if (gitDir.ok) writeFileSync(join(gitDir.out, MARKER), `${branch}\n`);
  return null;
}

/**
 * Makes the task's worktree: BRANCH, or a new branch named after the task (`-2`, `-3`… when taken);
 * a branch that exists is checked out, one that does not is made from HEAD. Returns the record and
 * the directory the task starts in (the same subdirectory of the worktree as `cwd` is of the repository).
 */
export function makeWorktree(
  cwd: string,
  branch: string | null,
  hint: string,
  dir: string | null,
  env: Env,
): { worktree: WorktreeRecord; cwd: string; newBranch: boolean } {
  const repo = mainTree(cwd);
  const top = git(cwd, ["rev-parse", "--show-toplevel"]);
  if (repo === null || !top.ok) throw new UserError(`run --worktree: ${printable(cwd)} is not in a git repository with a working tree`);
  if (branch !== null && !git(repo, ["check-ref-format", "--branch", branch]).ok)
    throw new UserError(`run --worktree: '${printable(branch)}' is not a valid branch name`);
  let name = branch ?? branchFor(hint);
  for (let n = 2; branch === null && (branchExists(repo, name) || existsSync(worktreePath(repo, name, dir, env))); n++) name = `${branchFor(hint)}-${n}`;
  const path = worktreePath(repo, name, dir, env);
  if (existsSync(path)) throw new UserError(`run --worktree: ${printable(path)} already exists; name another branch`);
  const newBranch = !branchExists(repo, name);
  const refused = add(repo, name, path);
  if (refused !== null) throw new UserError(`run --worktree: git worktree add ${printable(path)}: ${printable(refused)}`);
  const sub = relative(realpathSync(top.out), realpathSync(cwd));
  // The branch it was made from: where `merge` lands it.
  const from = git(cwd, ["symbolic-ref", "--short", "-q", "HEAD"]);
  const worktree = { repo, branch: name, path, ...(from.ok && from.out !== "" && { from: from.out }) };
  return { worktree, cwd: sub === "" ? path : join(path, sub), newBranch };
}

/** For a load or a recovery: each entry's worktree that is missing, made again from its branch; one line per worktree made or not. */
export function restoreWorktrees(worktrees: readonly WorktreeRecord[]): string[] {
  const said: string[] = [];
  const seen = new Set<string>();
  for (const record of worktrees) {
    const { repo, branch, path } = record;
    if (!worktreeRecord.allows(record)) {
      said.push(
        `worktree ${printable(JSON.stringify(record))} not recreated: it needs an absolute repo and path and a git branch name (not starting with '-')`,
      );
      continue;
    }
    if (seen.has(path) || isDirectory(path)) continue;
    seen.add(path);
    if (!isDirectory(repo)) {
      said.push(`worktree ${printable(path)} not recreated: its repository ${printable(repo)} is gone`);
      continue;
    }
    if (!git(repo, ["check-ref-format", "--branch", branch]).ok) {
      said.push(`worktree ${printable(path)} not recreated: '${printable(branch)}' is not a valid branch name`);
      continue;
    }
    const fromBranch = branchExists(repo, branch);
    const refused = add(repo, branch, path);
    if (refused === null) said.push(`worktree ${printable(path)} recreated from ${fromBranch ? "" : "a new "}branch ${printable(branch)}`);
    else said.push(`worktree ${printable(path)} not recreated: ${printable(refused)}`);
  }
  return said;
}

/** Why fleetcom will not remove this worktree (not its own, or not clean), or null when it may. */
export function worktreeKept({ path }: WorktreeRecord): string | null {
  if (!isDirectory(path)) return null;
  const gitDir = git(path, ["rev-parse", "--absolute-git-dir"]);
  if (!gitDir.ok || !existsSync(join(gitDir.out, MARKER))) return `worktree ${printable(path)} was not made by fleetcom; kept`;
  const status = git(path, ["status", "--porcelain"]);
  if (!status.ok) return `worktree ${printable(path)}: git status failed (${printable(status.error)}); kept`;
  if (status.out !== "") return `worktree ${printable(path)} has uncommitted changes; kept (commit or stash them, then rm --worktree again)`;
  return null;
}

/** A worktree just made for a task that did not start, gone again with the branch made for it (nothing is on it yet). */
export function dropFreshWorktree(worktree: WorktreeRecord, newBranch: boolean): void {
  removeWorktree(worktree);
  if (newBranch) git(worktree.repo, ["branch", "-D", worktree.branch]);
}

/** Removes a worktree `worktreeKept` let go (its branch stays: the commits are on it); what was done, in one line. */
export function removeWorktree(worktree: WorktreeRecord): string {
  if (!isDirectory(worktree.path)) return `worktree ${printable(worktree.path)} was gone already`;
  const removed = git(worktree.repo, ["worktree", "remove", "--", worktree.path]);
  if (!removed.ok) throw new UserError(`git worktree remove ${printable(worktree.path)}: ${printable(removed.error)}`);
  return `removed worktree ${printable(worktree.path)} (branch ${printable(worktree.branch)} kept)`;
}
