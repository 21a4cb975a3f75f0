// The git plumbing behind a task's baseline and its diff (docs/review.md), for both processes.
//
// INVARIANT: nothing here writes the user's index, HEAD, stash or branches. A snapshot of the
// working tree goes through an index file of fleetcom's own (GIT_INDEX_FILE: a temporary one, or
// the daemon's kept one for counting), seeded from a copy of the real one so unchanged files are not
// hashed again; git then writes the tree as it is (tracked and untracked, not ignored), and the only
// thing written to the repository is objects
// and the one `refs/fleetcom/` ref that keeps a baseline alive. GIT_OPTIONAL_LOCKS=0 keeps even a
// read from refreshing the user's index.
import { copyFileSync, existsSync, lstatSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { childProcess, type Gathered, nodeOs, runGathered } from "./platform.ts";
import { type ChangeStats, parseNumstat } from "./text-changes.ts";

/** Where a task's baseline lives: the repository's top, the snapshot commit and the ref that keeps it alive. */
export interface Baseline {
  top: string;
  commit: string;
  ref: string;
}

export type GitRun = { code: number; out: string; err: string };

/**
 * A file bigger than this is never read into a snapshot (the checkpoint rules, docs/review.md): an
 * untracked one is left out, a tracked one keeps what the index said of it.
 */
export const SNAPSHOT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** A commit's author when fleetcom makes one of its own: the user's identity may not be set. */
const FLEETCOM_IDENTITY = {
  GIT_AUTHOR_NAME: "fleetcom",
  GIT_AUTHOR_EMAIL: "fleetcom@localhost",
  GIT_COMMITTER_NAME: "fleetcom",
  GIT_COMMITTER_EMAIL: "fleetcom@localhost",
};

/** git in `cwd`, its output gathered; never throws (a git that cannot start answers code 127). */
export function gitRun(cwd: string, args: string[], env: Record<string, string> = {}, input?: string): Promise<GitRun> {
  return gitBytes(cwd, args, env, input).then((r) => ({ code: r.code, out: r.out.toString("utf8"), err: r.err }));
}

/** git in `cwd`, its output as bytes (a blob read back unchanged); never throws. */
export function gitBytes(cwd: string, args: string[], env: Record<string, string> = {}, input?: string): Promise<Gathered> {
  return runGathered(["git", "-C", cwd, ...args], { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", ...env }, input);
}

/** The top of the working tree `cwd` is in, or null outside one. */
export async function repositoryTop(cwd: string): Promise<string | null> {
  const r = await gitRun(cwd, ["rev-parse", "--show-toplevel"]);
  return r.code === 0 ? r.out.trim() : null;
}

/** The commit HEAD names, or null (a repository with no commit yet). */
export async function headCommit(top: string): Promise<string | null> {
  const r = await gitRun(top, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  return r.code === 0 ? r.out.trim() : null;
}

/** The tree of the working tree as it is now, through a temporary index; throws what git said when it fails. */
export async function snapshotTree(top: string): Promise<string> {
  return (await snapshot(top, "changed")).tree;
}

/** A snapshot's tree, and the paths (from the top) of the files over the bound that it left out. */
export interface Snapshot {
  tree: string;
  skipped: string[];
}

/**
 * The working tree as it is now, through a temporary index. A file over SNAPSHOT_MAX_FILE_BYTES is
 * never read: with `changed`, one changed or untracked is left out of `git add` by pathspec (a
 * tracked one keeps what the index said of it: a baseline's diff); with `all`, every such file,
 * tracked or not, is also taken out of the temporary index, so the tree holds none of them (a
 * checkpoint, whose rewind must leave them as they are: git-checkpoint.ts).
 */
export async function snapshot(top: string, large: "changed" | "all"): Promise<Snapshot> {
  const dir = mkdtempSync(join(nodeOs().tmpdir(), "fleetcom-index-"));
  try {
    const index = join(dir, "index");
    const real = await gitRun(top, ["rev-parse", "--path-format=absolute", "--git-path", "index"]);
    if (real.code === 0 && existsSync(real.out.trim())) copyIndex(real.out.trim(), index);
    const env = { GIT_INDEX_FILE: index };
    const skipped = await oversized(top, env, large === "all" ? "--cached" : "--modified");
    const pathspecs = join(dir, "pathspecs");
    writeFileSync(pathspecs, [".", ...skipped.map((p) => `:(exclude,literal)${p}`)].map((p) => `${p}\0`).join(""));
    const added = await gitRun(top, ["add", "-A", `--pathspec-from-file=${pathspecs}`, "--pathspec-file-nul"], env);
    if (added.code !== 0) throw new Error(`git add: ${added.err}`);
    if (large === "all" && skipped.length > 0) {
      const removed = await gitRun(top, ["update-index", "-z", "--force-remove", "--stdin"], env, skipped.map((p) => `${p}\0`).join(""));
      if (removed.code !== 0) throw new Error(`git update-index: ${removed.err}`);
    }
    const tree = await gitRun(top, ["write-tree"], env);
    if (tree.code !== 0) throw new Error(`git write-tree: ${tree.err}`);
    return { tree: tree.out.trim(), skipped };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A copy of an index file with the original's times. git re-reads an entry it left "racily clean"
 * (its file written in the second the index was) only while the index file's time says so; a copy
 * with a fresh time would make it trust that entry's stat and miss an edit of the same size.
 */
function copyIndex(from: string, to: string): void {
  const { atime, mtime } = statSync(from); // before the copy: an index rewritten meanwhile then looks older, so more is re-read, never less
  copyFileSync(from, to);
  utimesSync(to, atime, mtime);
}

/**
 * The untracked (not ignored) files over the bound and, with `--modified`, the changed tracked ones
 * or, with `--cached`, every tracked one; paths from the top, sizes from lstat, no file read.
 */
async function oversized(top: string, env: Record<string, string>, tracked: "--modified" | "--cached"): Promise<string[]> {
  return overBound(top, await listedFiles(top, env, tracked));
}

/** The untracked (not ignored) files and the tracked ones `tracked` lists (deleted ones among `--modified`), from the top. */
async function listedFiles(top: string, env: Record<string, string>, tracked: "--modified" | "--cached"): Promise<string[]> {
  const listed = await gitRun(top, ["ls-files", "-z", tracked, "--others", "--exclude-standard"], env);
  if (listed.code !== 0) throw new Error(`git ls-files: ${listed.err}`);
  return [...new Set(listed.out.split("\0").filter((p) => p !== ""))];
}

/** Those of `paths` that are files over the bound; sizes from lstat, no file read. */
async function overBound(top: string, paths: string[]): Promise<string[]> {
  const big: string[] = [];
  if (paths.length === 0) return big;
  // Loaded here: node:fs/promises costs every daemon CPU at start, before its first reply.
  const { lstat } = await import("node:fs/promises");
  for (let i = 0; i < paths.length; i += STAT_BATCH) {
    const batch = paths.slice(i, i + STAT_BATCH);
    // One gone since it was listed counts as small: `git add -A` records that it is gone.
    const sizes = await Promise.all(
      batch.map((p) =>
        lstat(join(top, p)).then(
          (s) => (s.isFile() ? s.size : 0),
          () => 0,
        ),
      ),
    );
    for (const [j, size] of sizes.entries()) if (size > SNAPSHOT_MAX_FILE_BYTES) big.push(batch[j]!);
  }
  return big;
}

/**
 * An index file of fleetcom's own for one working tree, never the user's: seeded from a copy of the
 * user's index (again whenever theirs changes, so it stays their index plus the working tree), and
 * kept between snapshots, so its stat cache lets the next snapshot hash only the files changed since.
 */
export class PrivateIndex {
  private seededFrom = "";

  constructor(readonly path: string) {}

  /** Copies the user's index in when it is not the one this was last seeded from. */
  async seed(top: string): Promise<void> {
    const real = await gitRun(top, ["rev-parse", "--path-format=absolute", "--git-path", "index"]);
    const userIndex = real.code === 0 ? real.out.trim() : "";
    const stat = userIndex !== "" && existsSync(userIndex) ? lstatSync(userIndex) : null;
    const signature = stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : "none";
    if (signature === this.seededFrom && existsSync(this.path)) return;
    if (stat) copyIndex(userIndex, this.path);
    else rmSync(this.path, { force: true });
    this.seededFrom = signature;
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}

/**
 * The tree of the working tree as it is now (as snapshotTree's), through the kept `index`: only the
 * files git lists as changed against it or untracked are written into it (one scan of the tree), the
 * oversized ones left out. Where git refuses that exact update (a file turned into a directory,
 * say), `git add -A` over the whole tree does it.
 */
export async function snapshotTreeWith(top: string, index: PrivateIndex): Promise<string> {
  await index.seed(top);
  const env = { GIT_INDEX_FILE: index.path };
  const changed = await listedFiles(top, env, "--modified");
  const big = new Set(await overBound(top, changed));
  const wanted = changed.filter((p) => !big.has(p));
  if (wanted.length > 0) {
    const updated = await gitRun(top, ["update-index", "--add", "--remove", "-z", "--stdin"], env, wanted.map((p) => `${p}\0`).join(""));
    if (updated.code !== 0) await addAll(top, env, index.path, [...big]);
  }
  const tree = await gitRun(top, ["write-tree"], env);
  if (tree.code !== 0) throw new Error(`git write-tree: ${tree.err}`);
  return tree.out.trim();
}

async function addAll(top: string, env: Record<string, string>, indexPath: string, big: string[]): Promise<void> {
  const pathspecs = `${indexPath}.pathspecs`;
  writeFileSync(pathspecs, [".", ...big.map((p) => `:(exclude,literal)${p}`)].map((p) => `${p}\0`).join(""));
  try {
    const added = await gitRun(top, ["add", "-A", `--pathspec-from-file=${pathspecs}`, "--pathspec-file-nul"], env);
    if (added.code !== 0) throw new Error(`git add: ${added.err}`);
  } finally {
    rmSync(pathspecs, { force: true });
  }
}

/** lstat calls in flight at once: enough to keep the thread pool busy, few enough not to hold the event loop. */
const STAT_BATCH = 256;

/**
 * The task's baseline: a commit of the working tree as it is (its parent the commit at HEAD), kept
 * alive under `ref`. Null outside a repository; throws what git said when a step fails.
 */
export async function takeBaseline(cwd: string, ref: string, message: string): Promise<Baseline | null> {
  const top = await repositoryTop(cwd);
  if (top === null) return null;
  const head = await headCommit(top);
  const tree = await snapshotTree(top);
  const parent = head === null ? [] : ["-p", head];
  const commit = await gitRun(top, ["commit-tree", tree, ...parent, "-m", message], FLEETCOM_IDENTITY);
  if (commit.code !== 0) throw new Error(`git commit-tree: ${commit.err}`);
  const sha = commit.out.trim();
  const kept = await gitRun(top, ["update-ref", "-m", "fleetcom baseline", ref, sha]);
  if (kept.code !== 0) throw new Error(`git update-ref: ${kept.err}`);
  return { top, commit: sha, ref };
}

/** The baseline's ref deleted (the task is gone); the commit is then git's to collect. */
export async function dropBaseline(baseline: Baseline): Promise<void> {
  await gitRun(baseline.top, ["update-ref", "-d", baseline.ref, baseline.commit]);
}

/** Whether the baseline's commit is still in its repository (a recovery after the repository moved, or its ref deleted by hand). */
export async function baselineExists(baseline: Baseline): Promise<boolean> {
  return (await gitRun(baseline.top, ["cat-file", "-e", `${baseline.commit}^{commit}`])).code === 0;
}

/** Files, lines added and removed from `base` (a tree or commit) to `now` (a tree). */
export async function changesBetween(top: string, base: string, now: string): Promise<ChangeStats> {
  const r = await gitRun(top, ["diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", `${base}^{tree}`, now]);
  if (r.code !== 0) throw new Error(`git diff: ${r.err}`);
  return parseNumstat(r.out);
}

/**
 * git in `cwd` with this terminal's stdio (its pager, its colours, the user's diff tools); its exit
 * code once it (and its pager) quit. Asynchronous, so a dashboard keeps reading its daemon meanwhile.
 */
export function gitOnTerminal(cwd: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = childProcess().spawn("git", ["-C", cwd, ...args], { stdio: "inherit", env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", ...env } });
    child.on("error", () => resolve(127));
    child.on("close", (code) => resolve(code ?? 1));
  });
}
