// A task's checkpoints in git (docs/review.md, "Checkpoints and rewind"): a snapshot of the working
// tree at each prompt, kept as a commit under `refs/fleetcom/`, and the rewind that puts the tree
// back as a checkpoint had it. Content-addressed like every git object: a file unchanged between
// checkpoints is stored once. Files over SNAPSHOT_MAX_FILE_BYTES (git.ts) are never read, kept or touched.
//
// INVARIANT (as git.ts): the user's index, HEAD, stash and branches are never written; a rewind
// writes only working-tree files, each one checked before the first is written.
import { type Stats, accessSync, constants, lstatSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { errnoCode, errnoWords, errorMessage } from "./errors.ts";
import { gitBytes, gitRun, SNAPSHOT_MAX_FILE_BYTES, snapshot } from "./git.ts";

/** One checkpoint: a snapshot commit kept alive by `ref`. */
export interface CheckpointSnapshot {
  commit: string;
  ref: string;
  /** Paths (from the top) left out for their size: a rewind leaves whatever is there. */
  skipped: string[];
}

/** A checkpoint as the daemon keeps and lists it: numbered from 0 (the task's start), never renumbered. */
export interface Checkpoint extends CheckpointSnapshot {
  n: number;
  /** When it was taken (ISO 8601). */
  at: string;
  /** The first line of the prompt that opened it. */
  prompt: string;
  /** Files changed since the checkpoint before (null for the first). */
  files: number | null;
}

const IDENTITY = {
  GIT_AUTHOR_NAME: "fleetcom",
  GIT_AUTHOR_EMAIL: "fleetcom@localhost",
  GIT_COMMITTER_NAME: "fleetcom",
  GIT_COMMITTER_EMAIL: "fleetcom@localhost",
};

/** Snapshots the tree at `top` into a commit kept by `ref`; throws what git said when a step fails. */
export async function takeCheckpoint(top: string, ref: string, message: string): Promise<CheckpointSnapshot> {
  const { tree, skipped } = await snapshot(top, "all");
  const commit = await gitRun(top, ["commit-tree", tree, "-m", message], IDENTITY);
  if (commit.code !== 0) throw new Error(`git commit-tree: ${commit.err}`);
  const sha = commit.out.trim();
  const kept = await gitRun(top, ["update-ref", "-m", "fleetcom checkpoint", ref, sha]);
  if (kept.code !== 0) throw new Error(`git update-ref: ${kept.err}`);
  return { commit: sha, ref, skipped };
}

/**
 * A checkpoint that is an existing snapshot (the task's baseline), kept by a ref of its own; the
 * files over the bound it holds (tracked ones the index kept) found by their size in git, not read.
 */
export async function checkpointOf(top: string, commit: string, ref: string): Promise<CheckpointSnapshot> {
  const listed = await gitRun(top, ["ls-tree", "-r", "-l", "-z", commit]);
  if (listed.code !== 0) throw new Error(`git ls-tree: ${listed.err}`);
  const skipped: string[] = [];
  for (const line of listed.out.split("\0")) {
    const match = /^\d+ blob [0-9a-f]+ +(\d+)\t(.*)$/s.exec(line);
    if (match && Number(match[1]) > SNAPSHOT_MAX_FILE_BYTES) skipped.push(match[2]!);
  }
  const kept = await gitRun(top, ["update-ref", "-m", "fleetcom checkpoint", ref, commit]);
  if (kept.code !== 0) throw new Error(`git update-ref: ${kept.err}`);
  return { commit, ref, skipped };
}

/** How many files differ between two checkpoints' trees. */
export async function filesChangedBetween(top: string, before: string, after: string): Promise<number> {
  const r = await gitRun(top, ["diff-tree", "-r", "-z", "--no-renames", "--name-only", `${before}^{tree}`, `${after}^{tree}`]);
  if (r.code !== 0) throw new Error(`git diff-tree: ${r.err}`);
  return r.out.split("\0").filter((p) => p !== "").length;
}

/** The refs of checkpoints no longer kept deleted, in one git call; one already gone (deleted by hand) is no error. */
export async function dropCheckpointRefs(top: string, dropped: { ref: string }[]): Promise<void> {
  if (dropped.length === 0) return;
  await gitRun(top, ["update-ref", "--stdin"], {}, dropped.map((d) => `delete ${d.ref}\n`).join(""));
}

/** One change a rewind makes: a file put back as the checkpoint had it, or one made since removed. */
export type RewindStep = { kind: "restore"; path: string; mode: string; blob: string; deletedSince: boolean } | { kind: "delete"; path: string };

export interface RewindPlan {
  steps: RewindStep[];
  /** Paths left as they are: over the size limit, or an ignored file where the checkpoint had one. */
  leftAlone: string[];
  /** Each step that cannot be made, with why: a rewind with any is not applied. */
  blocked: { path: string; why: string }[];
}

/** What putting the tree at `top` back as checkpoint `commit` would do, checked against the disk; nothing is written. */
export async function planRewind(top: string, checkpoint: CheckpointSnapshot): Promise<RewindPlan> {
  const now = await snapshot(top, "all");
  const r = await gitRun(top, ["diff-tree", "-r", "-z", "--no-renames", `${checkpoint.commit}^{tree}`, now.tree]);
  if (r.code !== 0) throw new Error(`git diff-tree: ${r.err}`);
  const untouchable = new Set([...checkpoint.skipped, ...now.skipped]);
  const plan: RewindPlan = { steps: [], leftAlone: [], blocked: [] };
  for (const change of parseRawDiff(r.out)) {
    // A file too large, or a submodule (a commit, not a file): not fleetcom's to put back.
    if (untouchable.has(change.path) || change.oldMode === "160000" || change.newMode === "160000") {
      plan.leftAlone.push(change.path);
      continue;
    }
    // Absent from the snapshot now yet on disk: an ignored file (or one too large), never touched.
    if (change.status === "D" && existsInTree(top, change.path)) {
      plan.leftAlone.push(change.path);
      continue;
    }
    if (change.status === "A") plan.steps.push({ kind: "delete", path: change.path });
    else plan.steps.push({ kind: "restore", path: change.path, mode: change.oldMode, blob: change.oldBlob, deletedSince: change.status === "D" });
  }
  plan.blocked = checkSteps(top, plan.steps);
  return plan;
}

interface RawChange {
  status: string;
  oldMode: string;
  newMode: string;
  oldBlob: string;
  path: string;
}

/** `git diff-tree -r -z` raw output: `:OLDMODE NEWMODE OLDSHA NEWSHA STATUS\0PATH\0` each. */
function parseRawDiff(out: string): RawChange[] {
  const fields = out.split("\0");
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldBlob, , status] = fields[i]!.slice(1).split(" ");
    changes.push({ status: status!.charAt(0), oldMode: oldMode!, newMode: newMode!, oldBlob: oldBlob!, path: fields[i + 1]! });
  }
  return changes;
}

/** Whether something is at `path` inside the tree: reached through real directories only, never through a symlink the agent put where a directory was. */
function existsInTree(top: string, path: string): boolean {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) if (lstatOrNull(join(top, ...parts.slice(0, i)))?.isDirectory() !== true) return false;
  return lstatOrNull(join(top, path)) !== null;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Why `path` cannot be written (or removed), or null: write access as the kernel grants it, which an immutable file or a read-only mount refuses even to root. */
function notWritable(path: string): string | null {
  try {
    accessSync(path, constants.W_OK);
    return null;
  } catch (e) {
    const code = errnoCode(e);
    return code === undefined ? errorMessage(e) : (errnoWords(code) ?? code);
  }
}

/** Every step checked against the disk before any is made: deletions first, so a path they free counts as free. */
function checkSteps(top: string, steps: RewindStep[]): { path: string; why: string }[] {
  const deleted = new Set(steps.filter((s) => s.kind === "delete").map((s) => s.path));
  const blocked: { path: string; why: string }[] = [];
  for (const step of steps) {
    const why = step.kind === "delete" ? whyNotDeletable(top, step.path) : whyNotRestorable(top, step.path, deleted);
    if (why !== null) blocked.push({ path: step.path, why });
  }
  return blocked;
}

function whyNotDeletable(top: string, path: string): string | null {
  const full = join(top, path);
  const dir = notWritable(dirname(full));
  if (dir !== null) return `its directory cannot be written (${dir})`;
  const stat = lstatOrNull(full);
  if (stat?.isFile()) {
    const file = notWritable(full);
    if (file !== null) return `it cannot be removed (${file})`;
  }
  return null;
}

function whyNotRestorable(top: string, path: string, deleted: Set<string>): string | null {
  const parts = path.split("/");
  let dir = top;
  for (const [i, part] of parts.slice(0, -1).entries()) {
    const next = join(dir, part);
    const stat = lstatOrNull(next);
    if (stat === null) break;
    if (!stat.isDirectory() && !deleted.has(parts.slice(0, i + 1).join("/"))) return `${parts.slice(0, i + 1).join("/")} is not a directory`;
    if (!stat.isDirectory()) break;
    dir = next;
  }
  const writableDir = notWritable(dir);
  if (writableDir !== null) return `${dir === top ? "the repository's top" : "its directory"} cannot be written (${writableDir})`;
  const full = join(top, path);
  const stat = lstatOrNull(full);
  if (stat?.isDirectory()) return "a directory is there now";
  if (stat?.isFile()) {
    const file = notWritable(full);
    if (file !== null) return `it cannot be replaced (${file})`;
  }
  return null;
}

/** The contents every restore needs, read from git before the first file is written; throws naming a blob git cannot give. */
export async function readRestores(top: string, steps: RewindStep[]): Promise<Map<string, Buffer>> {
  const contents = new Map<string, Buffer>();
  for (const step of steps) {
    if (step.kind !== "restore") continue;
    const r = await gitBytes(top, ["cat-file", "blob", step.blob]);
    if (r.code !== 0) throw new Error(`${step.path}: git cannot give its contents (${r.err})`);
    contents.set(step.path, r.out);
  }
  return contents;
}

/**
 * Makes the steps: removals first, then each file written beside its place and renamed over it.
 * Every step was checked, but the disk can change in between: on a failure, each path already
 * touched is put back as it was (its bytes read before any write), and the error names the path.
 */
export function applyRewind(top: string, steps: RewindStep[], contents: Map<string, Buffer>): void {
  const ordered = [...steps.filter((s) => s.kind === "delete"), ...steps.filter((s) => s.kind === "restore")];
  const before = new Map(ordered.map((s) => [s.path, currentBytes(join(top, s.path))]));
  const done: string[] = [];
  for (const step of ordered) {
    try {
      if (step.kind === "delete") removeWithEmptyParents(top, step.path);
      else restoreFile(top, step, contents.get(step.path)!);
      done.push(step.path);
    } catch (e) {
      for (const path of [...done, step.path].reverse()) putBack(top, path, before.get(path) ?? null);
      throw new RewindFailed(step.path, e);
    }
  }
}

/** A rewind that failed part way and was put back; names the file. */
export class RewindFailed extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`${path}: ${errorMessage(cause)}`);
  }
}

function currentBytes(path: string): Buffer | null {
  try {
    return lstatSync(path).isFile() ? readFileSync(path) : null;
  } catch {
    return null;
  }
}

function putBack(top: string, path: string, bytes: Buffer | null): void {
  try {
    const full = join(top, path);
    if (bytes === null) rmSync(full, { force: true });
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, bytes);
    }
  } catch {
    // Best effort: the error already names the path that failed.
  }
}

function removeWithEmptyParents(top: string, path: string): void {
  rmSync(join(top, path), { force: true });
  let dir = dirname(path);
  while (dir !== "." && dir !== "") {
    try {
      rmdirSync(join(top, dir));
    } catch {
      return;
    }
    dir = dirname(dir);
  }
}

function restoreFile(top: string, step: Extract<RewindStep, { kind: "restore" }>, content: Buffer): void {
  const full = join(top, step.path);
  const parent = dirname(full);
  const stat = lstatOrNull(parent);
  if (stat !== null && !stat.isDirectory()) rmSync(parent, { force: true });
  mkdirSync(parent, { recursive: true });
  const temporary = join(parent, `.fleetcom-rewind-${process.pid}`);
  rmSync(temporary, { force: true });
  if (step.mode === "120000") symlinkSync(content.toString("utf8"), temporary);
  else writeFileSync(temporary, content, { mode: step.mode === "100755" ? 0o755 : 0o644 });
  renameSync(temporary, full);
}
