// A snapshot of the working tree is taken through a copy of the user's index. An entry git left
// "racily clean" in that index (the file written in the second the index was) is only re-read while
// the index file's time says so: a copy with a fresh time made git trust the entry's stat, and an
// edit of the same size in that second was missed (diffs, reviews, checkpoints said "no changes").
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PrivateIndex, snapshot, snapshotTree, snapshotTreeWith } from "../../src/git.ts";

let repo: string;
let head: string;

function git(...args: string[]): string {
  const r = Bun.spawnSync(["git", "-C", repo, ...args]);
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

beforeEach(() => {
  process.env.GIT_CONFIG_GLOBAL = "/dev/null";
  process.env.GIT_CONFIG_NOSYSTEM = "1";
  repo = mkdtempSync(join(tmpdir(), "fleetcom-snapshot-"));
  git("init", "-q");
  // The file's change time is then no clue either, whatever second the steps below fall in.
  git("config", "core.trustctime", "false");
  const a = join(repo, "a.txt");
  const then = new Date(Date.now() - 60_000);
  writeFileSync(a, "one\n");
  utimesSync(a, then, then);
  git("add", "a.txt");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
  head = git("rev-parse", "HEAD^{tree}");
  // The same size, in the second the index was written: racily clean, as git left it.
  writeFileSync(a, "two\n");
  utimesSync(a, then, then);
  utimesSync(join(repo, ".git", "index"), then, then);
  expect(statSync(a).size).toBe(4);
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

test("a baseline's or a diff's snapshot sees an edit of the same size in the index's second", async () => {
  const tree = await snapshotTree(repo);
  expect(tree).not.toBe(head);
  expect(git("cat-file", "-p", `${tree}:a.txt`)).toBe("two");
});

test("a checkpoint's snapshot sees it", async () => {
  const { tree } = await snapshot(repo, "all");
  expect(git("cat-file", "-p", `${tree}:a.txt`)).toBe("two");
});

test("the daemon's kept private index sees it", async () => {
  const index = new PrivateIndex(join(mkdtempSync(join(tmpdir(), "fleetcom-index-")), "index"));
  try {
    const tree = await snapshotTreeWith(repo, index);
    expect(git("cat-file", "-p", `${tree}:a.txt`)).toBe("two");
  } finally {
    index.remove();
  }
});
