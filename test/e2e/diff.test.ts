// A task's own diff and landing its work (docs/review.md), against real git repositories and the
// real binary: the baseline taken when an agent starts, `diff` showing commits, staged, unstaged and
// new files but nothing changed before the start, the user's index, HEAD and stash untouched by any
// of it, `--base`, a task outside a repository, the `ls` figure, and `merge` landing a worktree's
// branch or refusing with nothing changed.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installFakeAgents, installSleepingAgent } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { committedRepo, gitIn, userGitState } from "../harness/git-repo.ts";
import { crashDaemon, recoveryDirOf, snapshotNames } from "../harness/recovery-helpers.ts";
import { fleetcomScript, shellWords, Tmux } from "../harness/tmux.ts";

let fleet: Fleet;
let repo: string;

const git = (cwd: string, ...args: string[]): string => gitIn(fleet.env, cwd, ...args);
const userState = (): string => userGitState(fleet.env, repo);

async function baselineOf(id: number) {
  return (await fleet.waitForTask(id, "its baseline", (t) => t.baseline !== null)).baseline!;
}

beforeEach(() => {
  fleet = new Fleet();
  repo = join(fleet.sandbox.root, "app");
  const files = Object.fromEntries(["a.txt", "b.txt", "c.txt", "before.txt"].map((f) => [f, `${f} one\n`]));
  committedRepo(fleet.env, repo, { ...files, ".gitignore": "ignored.log\n" });
});
afterEach(() => fleet.stop());

describe("diff", () => {
  test("an agent's commit, staged, unstaged and new files show; what changed before it started does not; the user's index, HEAD and stash stay as they were", async () => {
    installSleepingAgent(fleet, "claude");
    // The user's own state before the agent starts: a stash, an uncommitted edit, an ignored file.
    writeFileSync(join(repo, "before.txt"), "stashed\n");
    git(repo, "stash", "-q");
    writeFileSync(join(repo, "before.txt"), "edited before the start\n");
    writeFileSync(join(repo, "ignored.log"), "noise\n");
    const before = userState();
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    const baseline = await baselineOf(id);
    expect(userState()).toBe(before);
    expect(git(repo, "rev-parse", baseline.ref)).toBe(baseline.commit);

    // What the agent does.
    writeFileSync(join(repo, "a.txt"), "a.txt two\n");
    writeFileSync(join(repo, "b.txt"), "b.txt two\n");
    git(repo, "add", "b.txt");
    writeFileSync(join(repo, "c.txt"), "c.txt two\n");
    git(repo, "commit", "-qm", "agent's commit", "c.txt");
    writeFileSync(join(repo, "d.txt"), "new\n");
    writeFileSync(join(repo, "ignored.log"), "more noise\n");

    const agentDone = userState();
    const stat = await fleet.cli(["diff", String(id), "--stat"]);
    expect(stat.code).toBe(0);
    expect(userState()).toBe(agentDone);
    for (const f of ["a.txt", "b.txt", "c.txt", "d.txt"]) expect(stat.stdout).toContain(f);
    expect(stat.stdout).not.toContain("before.txt");
    expect(stat.stdout).not.toContain("ignored.log");
    expect(stat.stdout).toContain("4 files changed, 4 insertions(+), 3 deletions(-)");

    const names = await fleet.ok(["diff", String(id), "--name-only", "--", "a.txt", "d.txt"]);
    expect(names.trim().split("\n")).toEqual(["a.txt", "d.txt"]);
    const patch = await fleet.ok(["diff", String(id), "--", "a.txt"]);
    expect(patch).toContain("-a.txt one\n+a.txt two");
    // Not a terminal: no colour.
    expect(patch).not.toContain("\x1b[");

    // Removed, the task's baseline is let go.
    await fleet.ok(["kill", String(id)]);
    await fleet.waitForExit(id);
    await fleet.ok(["rm", String(id)]);
    await until("the baseline's ref gone", () => git(repo, "for-each-ref", "refs/fleetcom") === "");
  });

  test.skipIf(!Tmux.available())("on a terminal, git's own pager and colours apply (the user's core.pager, through git)", async () => {
    installSleepingAgent(fleet, "claude");
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await baselineOf(id);
    writeFileSync(join(repo, "a.txt"), "a.txt two\n");
    git(repo, "config", "core.pager", "sed 's/^/PAGED> /'");
    git(repo, "config", "color.diff.new", "magenta");
    const fc = fleetcomScript(fleet.sandbox.root, fleetcomArgv);
    const tmux = new Tmux(fleet.env, fleet.sandbox.root);
    try {
      tmux.window("diff", `${fc} diff ${id}; sleep 3600`);
      const screen = await tmux.waitFor("diff", "the paged diff", (text) => text.includes("PAGED> +a.txt two"));
      expect(screen).toContain("PAGED> -a.txt one");
      // Magenta (35) on the added line: git's colour, since its stdout is the terminal.
      expect(tmux.cmd("capture-pane", "-p", "-e", "-t", "test:diff")).toContain("\x1b[35m+a.txt two");
    } finally {
      tmux.kill();
    }
  });

  test("a file over 10 MiB is never read into a snapshot: not in the diff, not in the repository's objects", async () => {
    installSleepingAgent(fleet, "claude");
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await baselineOf(id);
    writeFileSync(join(repo, "big.bin"), Buffer.alloc(20 * 1024 * 1024, 7));
    writeFileSync(join(repo, "small.txt"), "small\n");
    expect((await fleet.ok(["diff", String(id), "--name-only"])).trim()).toBe("small.txt");
    const blob = git(repo, "hash-object", "big.bin");
    expect(Bun.spawnSync(["git", "-C", repo, "cat-file", "-e", blob]).exitCode).not.toBe(0);
  });

  test("a recovered task keeps its baseline: its diff still starts where the task started", async () => {
    fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = "1";
    installSleepingAgent(fleet, "claude");
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    const baseline = await baselineOf(id);
    writeFileSync(join(repo, "a.txt"), "the agent's edit\n");
    const snapshots = () => snapshotNames(fleet).map((n) => readFileSync(join(recoveryDirOf(fleet), n), "utf8"));
    await until("a snapshot that records the baseline", () => snapshots().some((text) => text.includes(baseline.commit)));
    await crashDaemon(fleet);
    await fleet.ok(["recover", "--latest"]);
    const back = await baselineOf(id);
    expect(back).toEqual(baseline);
    expect((await fleet.ok(["diff", String(id), "--name-only"])).trim()).toBe("a.txt");
  });

  test("--base BRANCH shows the whole branch's work, from its merge base, not only the task's", async () => {
    installSleepingAgent(fleet, "claude");
    git(repo, "checkout", "-qb", "feature");
    writeFileSync(join(repo, "a.txt"), "on the branch before the task\n");
    git(repo, "commit", "-qam", "earlier work");
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await baselineOf(id);
    writeFileSync(join(repo, "b.txt"), "the task's work\n");
    expect((await fleet.ok(["diff", String(id), "--name-only"])).trim()).toBe("b.txt");
    expect((await fleet.ok(["diff", String(id), "--name-only", "--base", "main"])).trim()).toBe("a.txt\nb.txt");
    const unknown = await fleet.cli(["diff", String(id), "--base", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("diff --base: no merge base of 'nope'");
  });

  test("a task outside a git repository: one line saying so, exit 1", async () => {
    installSleepingAgent(fleet, "claude");
    const elsewhere = join(fleet.sandbox.root, "plain");
    mkdirSync(elsewhere);
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: elsewhere }));
    const r = await fleet.cli(["diff", String(id)]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`fleetcom: task ${id} is not in a git repository (${elsewhere})`);
    expect((await fleet.task(id)).changes).toBeNull();
  });

  test("ls shows +N −M for a task with changes, and ls --json its files, insertions and deletions", async () => {
    const id = Number(await fleet.ok(["run", "--worktree", "--", "cat"], { cwd: repo }));
    const { path } = (await fleet.task(id)).worktree!;
    await fleet.waitForTask(id, "a first count", (t) => t.changes !== null);
    expect((await fleet.task(id)).changes).toEqual({ files: 0, insertions: 0, deletions: 0 });
    writeFileSync(join(path, "a.txt"), "x\ny\n");
    writeFileSync(join(path, "new.txt"), "1\n2\n3\n");
    // The task prints: its files may be changing, so the figure follows.
    await fleet.ok(["send", String(id), "hello"]);
    const t = await fleet.waitForTask(id, "the count after the edits", (t) => (t.changes?.files ?? 0) > 0);
    expect(t.changes).toEqual({ files: 2, insertions: 5, deletions: 1 });
    const table = await fleet.ok(["ls"]);
    expect(table).toContain("CHANGES");
    expect(table).toContain("+5 −1");
  });
});

describe("the changes figure at a turn's end", () => {
  test("the agent finishing a turn (its attention event) counts its changes then, whatever the interval while it prints", async () => {
    // Output alone would not count again within the test.
    fleet.env.FLEETCOM_CHANGES_INTERVAL_MS = "3600000";
    installFakeAgents(fleet);
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await until("claude ready", async () => (await fleet.peek(id)).includes(" ready"));
    await fleet.waitForTask(id, "a first count", (t) => t.changes !== null);
    writeFileSync(join(repo, "a.txt"), "a.txt one\nfrom the turn\n");
    await fleet.ok(["send", String(id), "hello"]);
    await fleet.waitForTask(id, "to wait for input (its Stop hook)", (t) => t.attention?.state === "input");
    const t = await fleet.waitForTask(id, "the count at the turn's end", (t) => (t.changes?.files ?? 0) > 0);
    expect(t.changes).toEqual({ files: 1, insertions: 1, deletions: 0 });
  });
});

describe.skipIf(!Tmux.available())("the dashboard, under tmux", () => {
  test("a task's row shows its +N −M; d shows its diff in git's pager and q comes back to the list", async () => {
    fleet.env.FLEETCOM_CHANGES_INTERVAL_MS = "200";
    const id = Number(await fleet.ok(["run", "--worktree", "--", "cat"], { cwd: repo }));
    const { path } = (await fleet.task(id)).worktree!;
    await fleet.waitForTask(id, "a first count", (t) => t.changes !== null);
    writeFileSync(join(path, "a.txt"), "x\ny\n");
    writeFileSync(join(path, "new.txt"), "1\n2\n3\n");
    await fleet.ok(["send", String(id), "hello"]);
    await fleet.waitForTask(id, "the count after the edits", (t) => (t.changes?.files ?? 0) > 0);
    const tmux = new Tmux(fleet.env, fleet.sandbox.root);
    try {
      tmux.window("dash", shellWords(fleetcomArgv([])), { cols: 100, rows: 30 });
      const list = await tmux.waitFor("dash", "the row with its changes", (t) => t.includes("cat [") && t.includes("+5 −1"));
      expect(list.split("\n").find((line) => line.includes("cat ["))).toContain("+5 −1");
      tmux.press("dash", "d");
      const diff = await tmux.waitFor("dash", "the diff in the pager", (t) => t.includes("+++ b/new.txt"));
      expect(diff).toContain("-a.txt one");
      expect(diff).not.toContain("cat [");
      tmux.press("dash", "q");
      await tmux.waitFor("dash", "the list again", (t) => t.includes("cat [") && t.includes("+5 −1") && !t.includes("+++ b/new.txt"));
    } finally {
      tmux.kill();
    }
  });
});

describe("what counting costs", () => {
  test("one scan of the working tree serves every task in it, through an index of the daemon's own in its runtime directory; the user's index untouched", async () => {
    fleet.env.FLEETCOM_CHANGES_INTERVAL_MS = "5000";
    const bin = join(fleet.sandbox.root, "echoing-agents");
    mkdirSync(bin, { recursive: true });
    // An agent that echoes what it is sent: its output is the daemon's sign that files may be changing.
    writeFileSync(join(bin, "claude"), `#!/bin/sh\n[ "$1" = --help ] && exit 0\nexec cat\n`, { mode: 0o755 });
    // git as the daemon runs it, each run logged with the index it was given.
    const calls = join(fleet.sandbox.root, "git-calls.log");
    writeFileSync(join(bin, "git"), `#!/bin/sh\nprintf '%s %s\\n' "$GIT_INDEX_FILE" "$*" >> '${calls}'\nexec /usr/bin/git "$@"\n`, { mode: 0o755 });
    fleet.env.PATH = `${bin}:${fleet.env.PATH}`;
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(Number(await fleet.ok(["run", "--", "claude"], { cwd: repo })));
    for (const id of ids) await fleet.waitForTask(id, "a first count", (t) => t.changes !== null);
    // A counting scan lists the changed and untracked files (a checkpoint, at each prompt, lists every file: --cached).
    const scans = () =>
      readFileSync(calls, "utf8")
        .split("\n")
        .filter((line) => / ls-files -z --modified /.test(line));
    // The first counts settle (a baseline taken while a scan ran asks for one more).
    let seen = -1;
    await until("the first counts to settle", async () => {
      const now = scans().length;
      const settled = now === seen;
      seen = now;
      await Bun.sleep(500);
      return settled;
    });
    const before = userState();
    writeFileSync(calls, "");
    writeFileSync(join(repo, "a.txt"), "a.txt one\nmore\n");
    for (const id of ids) await fleet.ok(["send", String(id), "hello"]);
    for (const id of ids) await fleet.waitForTask(id, "the count after the edit", (t) => t.changes?.files === 1);
    const made = scans();
    expect(made).toHaveLength(1);
    expect(made[0]!.startsWith(`${fleet.env.FLEETCOM_RUNTIME_DIR}/`)).toBe(true);
    expect(userState()).toBe(before);
  });
});

describe("merge", () => {
  async function worktreeTask(): Promise<{ id: number; path: string }> {
    const id = Number(await fleet.ok(["run", "--worktree", "--", "cat"], { cwd: repo }));
    return { id, path: (await fleet.task(id)).worktree!.path };
  }

  test("a clean worktree's branch is merged into the main checkout's branch; --squash makes one commit", async () => {
    const { id, path } = await worktreeTask();
    writeFileSync(join(path, "feature.txt"), "done\n");
    git(path, "add", "feature.txt");
    git(path, "commit", "-qm", "the feature");
    const r = await fleet.cli(["merge", String(id)]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe(`merged cat into main in ${repo}`);
    expect(readFileSync(join(repo, "feature.txt"), "utf8")).toBe("done\n");
    expect(git(repo, "log", "-1", "--format=%s")).toBe("the feature");
    expect((await fleet.ok(["merge", String(id)])).trim()).toBe("nothing to merge: cat is already in main");

    writeFileSync(join(path, "more.txt"), "more\n");
    const squashed = await fleet.cli(["merge", String(id), "--squash", "--commit", "more work"]);
    expect(squashed.stdout.trim()).toBe(`merged cat into main (squashed) in ${repo}`);
    expect(readFileSync(join(repo, "more.txt"), "utf8")).toBe("more\n");
    expect(git(repo, "rev-list", "--count", "--merges", "HEAD")).toBe("0");
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  test("refused with nothing changed: uncommitted work in the worktree, a dirty main checkout, a conflict", async () => {
    const { id, path } = await worktreeTask();
    const head = git(repo, "rev-parse", "HEAD");
    writeFileSync(join(path, "a.txt"), "the task's a\n");
    const dirty = await fleet.cli(["merge", String(id)]);
    expect(dirty.code).toBe(1);
    expect(dirty.stderr.trim()).toBe(`fleetcom: merge: the task's worktree ${path} has uncommitted changes; commit them in the task first, or --commit MSG`);
    git(path, "commit", "-qam", "task edits a");

    writeFileSync(join(repo, "a.txt"), "main's uncommitted a\n");
    const mainDirty = await fleet.cli(["merge", String(id)]);
    expect(mainDirty.code).toBe(1);
    expect(mainDirty.stderr).toContain(`merge: the main checkout ${repo} has uncommitted changes`);
    git(repo, "commit", "-qam", "main edits a too");

    const state = userState();
    const mainHead = git(repo, "rev-parse", "HEAD");
    expect(mainHead).not.toBe(head);
    const conflict = await fleet.cli(["merge", String(id)]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr.trim()).toBe(
      "fleetcom: merge: cat conflicts with main in a.txt; nothing was changed (resolve it in the task, e.g. merge main there)",
    );
    expect(existsSync(join(repo, ".git", "MERGE_HEAD"))).toBe(false);
    expect(git(repo, "rev-parse", "HEAD")).toBe(mainHead);
    expect(userState()).toBe(state);
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("main's uncommitted a\n");
  });

  test("it lands where the worktree was made from: a main checkout moved to another branch is refused unless --into names it", async () => {
    const { id, path } = await worktreeTask();
    expect((await fleet.task(id)).worktree).toMatchObject({ branch: "cat", from: "main" });
    writeFileSync(join(path, "feature.txt"), "done\n");
    git(path, "add", "feature.txt");
    git(path, "commit", "-qm", "the feature");
    git(repo, "checkout", "-qb", "other");
    const head = git(repo, "rev-parse", "HEAD");
    const moved = await fleet.cli(["merge", String(id)]);
    expect([moved.code, moved.stderr.trim()]).toEqual([
      1,
      `fleetcom: merge: the main checkout ${repo} is on other, not main; check out main there first (or --into BRANCH)`,
    ]);
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
    expect((await fleet.ok(["merge", String(id), "--into", "other"])).trim()).toBe(`merged cat into other in ${repo}`);
    expect(git(repo, "rev-parse", "main")).not.toBe(git(repo, "rev-parse", "other"));
  });

  test("a task without a worktree is refused", async () => {
    const id = Number(await fleet.ok(["run", "--", "cat"], { cwd: repo }));
    const r = await fleet.cli(["merge", String(id)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`task ${id} has no worktree`);
  });
});

describe("review", () => {
  test("a comment on lines of the agent's diff arrives in the agent as one submitted message: where, the diff fenced, the comment", async () => {
    installFakeAgents(fleet);
    const id = Number(await fleet.ok(["run", "--", "codex"], { cwd: repo }));
    await until("codex ready", async () => (await fleet.peek(id)).includes(" ready"));
    await baselineOf(id);
    writeFileSync(join(repo, "a.txt"), "a.txt one\nadded by the agent\n");
    expect((await fleet.cli(["review", String(id), "a.txt:2", "why", "this", "line?"])).code).toBe(0);
    const prompt = "Review comment on a.txt line 2:\n```diff\n@@ -1 +1,2 @@\n+added by the agent\n```\nwhy this line?";
    // The fake codex says `working on "TEXT"` once per submitted message, TEXT as JSON.
    await until("the review's turn", async () => (await fleet.peek(id)).includes("turn done"));
    const screen = (await fleet.peek(id)).replace(/\n/g, "");
    expect(screen).toContain(`working on ${JSON.stringify(prompt)}`);
    expect(screen.split("working on").length).toBe(2);

    // Lines it did not change go as they are; a bad FILE:LINE is one line, exit 2.
    writeFileSync(join(repo, "b.txt"), "b.txt one\n");
    const bad = await fleet.cli(["review", String(id), "a.txt", "x"]);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, "fleetcom: review: 'a.txt' is not FILE:LINE or FILE:LINE-LINE (lines from 1)"]);
    const gone = await fleet.cli(["review", String(id), "nope.txt:1", "x"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("review: nope.txt is not in the task's tree");
  });
});
