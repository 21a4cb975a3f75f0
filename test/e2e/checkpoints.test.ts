// Checkpoints and rewind (docs/review.md), against real git repositories and the real binary: a fake
// claude answered three times through `send`, the files changed between its prompts (modified,
// created, deleted, one of them binary), then rewound to checkpoint 1: the tree byte-identical to it,
// ignored and over-large files left as they are, the user's index, HEAD and stash untouched; a rewind
// that cannot finish changes nothing and names the file; a working agent is not rewound unless --force.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { installFakeAgents, installSleepingAgent } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { gitIn, userGitState } from "../harness/git-repo.ts";
import { crashDaemon, recoveryDirOf, snapshotNames } from "../harness/recovery-helpers.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";

let fleet: Fleet;
let repo: string;
const MiB = 1024 * 1024;

const git = (cwd: string, ...args: string[]): string => gitIn(fleet.env, cwd, ...args);
const userState = (): string => userGitState(fleet.env, repo);

/** Every file under the repository but .git, path → bytes (base64). */
function tree(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.name === ".git") continue;
      if (entry.isDirectory()) walk(full);
      else files[relative(repo, full)] = readFileSync(full).toString("base64");
    }
  };
  walk(repo);
  return files;
}

function bytes(seed: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

interface Listed {
  top: string | null;
  checkpoints: { n: number; prompt: string; files: number | null; skipped: string[] }[];
}

async function checkpoints(id: number): Promise<Listed> {
  return JSON.parse(await fleet.ok(["checkpoints", String(id), "--json"])) as Listed;
}

async function checkpointCount(id: number, count: number): Promise<Listed> {
  return until(`checkpoint ${count - 1} of task ${id}`, async () => {
    const listed = await checkpoints(id);
    return listed.checkpoints.length >= count && listed;
  });
}

/** A prompt sent, its checkpoint taken, and the fake claude's turn over (it waits again). */
async function prompt(id: number, text: string, count: number): Promise<void> {
  await fleet.ok(["send", String(id), text]);
  await checkpointCount(id, count);
  await fleet.waitForTask(id, "waiting after its turn", (t) => t.attention?.state === "input");
}

beforeEach(() => {
  fleet = new Fleet();
  repo = join(fleet.sandbox.root, "app");
  mkdirSync(join(repo, "src"), { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "keep.txt"), "kept\n");
  writeFileSync(join(repo, "src", "mod.txt"), "one\n");
  writeFileSync(join(repo, "src", "del.txt"), "to be deleted\n");
  writeFileSync(join(repo, "img.bin"), bytes(1, 4096));
  writeFileSync(join(repo, ".gitignore"), "*.log\n");
  git(repo, "add", ".");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
});
afterEach(() => fleet.stop());

describe("rewind", () => {
  test("three prompts that modify, create and delete files (one binary): rewound to checkpoint 1, the tree is byte-identical to it; ignored and 20 MiB files untouched; index, HEAD, stash unchanged", async () => {
    installFakeAgents(fleet);
    // The user's own state: a stash, an edit not committed, an ignored file, a 20 MiB untracked file.
    writeFileSync(join(repo, "keep.txt"), "stashed\n");
    git(repo, "stash", "-q");
    writeFileSync(join(repo, "keep.txt"), "edited before the start\n");
    writeFileSync(join(repo, "build.log"), "noise\n");
    writeFileSync(join(repo, "big.bin"), bytes(2, 20 * MiB));
    const before = userState();

    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    await prompt(id, "first prompt", 2);
    const atCheckpoint1 = tree();

    // What the agent does in its first turn.
    writeFileSync(join(repo, "src", "mod.txt"), "two\n");
    writeFileSync(join(repo, "img.bin"), bytes(3, 5000));
    rmSync(join(repo, "src", "del.txt"));
    mkdirSync(join(repo, "new", "deep"), { recursive: true });
    writeFileSync(join(repo, "new", "deep", "made.txt"), "created\n");
    writeFileSync(join(repo, "made.bin"), bytes(4, 3000));
    await prompt(id, "second prompt", 3);
    // And in its second: a file of checkpoint 1 deleted, another edited again, the large one rewritten.
    rmSync(join(repo, "keep.txt"));
    writeFileSync(join(repo, "src", "mod.txt"), "three\n");
    writeFileSync(join(repo, "big.bin"), bytes(5, 20 * MiB));
    writeFileSync(join(repo, "big2.bin"), bytes(6, 20 * MiB));
    writeFileSync(join(repo, "build.log"), "more noise\n");
    await prompt(id, "third prompt", 4);

    const listed = await checkpoints(id);
    expect(listed.checkpoints.map((c) => [c.n, c.prompt])).toEqual([
      [0, "(the task started)"],
      [1, "first prompt"],
      [2, "second prompt"],
      [3, "third prompt"],
    ]);
    expect(listed.checkpoints.map((c) => c.files)).toEqual([null, 0, 5, 2]);
    expect(listed.checkpoints[1]!.skipped).toEqual(["big.bin"]);
    const table = await fleet.ok(["checkpoints", String(id)]);
    expect(table).toContain("second prompt");
    expect(table).toContain("5 files");
    expect(table).toContain("no code changes");

    const dry = await fleet.ok(["rewind", String(id), "1", "--dry-run"]);
    expect(dry).toContain("would rewind");
    const afterAgent = tree();
    expect(tree()).toEqual(afterAgent);

    const rewound = await fleet.cli(["rewind", String(id), "1"]);
    expect(rewound.stderr).toBe("");
    expect(rewound.code).toBe(0);
    expect(rewound.stdout).toContain("/rewind");
    const now = tree();
    // The large files and the ignored one as the agent left them; everything else as at checkpoint 1.
    expect(now["big.bin"]).toBe(afterAgent["big.bin"]);
    expect(now["big2.bin"]).toBe(afterAgent["big2.bin"]);
    expect(now["build.log"]).toBe(Buffer.from("more noise\n").toString("base64"));
    const strip = (t: Record<string, string>) => Object.fromEntries(Object.entries(t).filter(([p]) => !["big.bin", "big2.bin", "build.log"].includes(p)));
    expect(strip(now)).toEqual(strip(atCheckpoint1));
    expect(existsSync(join(repo, "new"))).toBe(false);
    expect(userState()).toBe(before);
  });

  test("a file that cannot be restored (immutable, in an immutable directory) stops the whole rewind: nothing changes, the file is named", async () => {
    // chattr +i: root may write a read-only file, but not an immutable one (nor create or remove in
    // an immutable directory), so this holds for the tests' root as for any user.
    installFakeAgents(fleet);
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    await prompt(id, "first prompt", 2);
    writeFileSync(join(repo, "keep.txt"), "changed\n");
    writeFileSync(join(repo, "src", "mod.txt"), "changed too\n");
    writeFileSync(join(repo, "created.txt"), "new\n");
    const locked = [join(repo, "src", "mod.txt"), join(repo, "src")];
    const chattr = Bun.spawnSync(["chattr", "+i", ...locked]);
    if (chattr.exitCode !== 0) throw new Error(`chattr +i: ${chattr.stderr.toString()}`);
    try {
      const before = tree();
      const r = await fleet.cli(["rewind", String(id), "1"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("nothing changed");
      expect(r.stderr).toContain("src/mod.txt: ");
      expect(r.stderr).toContain("operation not permitted");
      expect(tree()).toEqual(before);
    } finally {
      Bun.spawnSync(["chattr", "-i", ...locked]);
    }
    // Once it can, the same rewind goes through.
    expect((await fleet.cli(["rewind", String(id), "1"])).code).toBe(0);
    expect(readFileSync(join(repo, "src", "mod.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(repo, "created.txt"))).toBe(false);
  });

  test("a directory the agent replaced by a symlink to elsewhere is removed, not written through", async () => {
    installSleepingAgent(fleet, "claude");
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    const elsewhere = join(fleet.sandbox.root, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "mod.txt"), "not the repository's\n");
    rmSync(join(repo, "src"), { recursive: true });
    symlinkSync(elsewhere, join(repo, "src"));
    expect((await fleet.cli(["rewind", String(id), "0", "--force"])).code).toBe(0);
    expect(readFileSync(join(elsewhere, "mod.txt"), "utf8")).toBe("not the repository's\n");
    expect(readdirSync(elsewhere)).toEqual(["mod.txt"]);
    expect(lstatSync(join(repo, "src")).isDirectory()).toBe(true);
    expect(readFileSync(join(repo, "src", "mod.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(repo, "src", "del.txt"), "utf8")).toBe("to be deleted\n");
  });

  test("a working agent is not rewound without --force; with it, it is", async () => {
    installSleepingAgent(fleet, "claude");
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    writeFileSync(join(repo, "created.txt"), "new\n");
    const refused = await fleet.cli(["rewind", String(id), "0"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`task ${id} is working`);
    expect(existsSync(join(repo, "created.txt"))).toBe(true);
    expect((await fleet.cli(["rewind", String(id), "0", "--force"])).code).toBe(0);
    expect(existsSync(join(repo, "created.txt"))).toBe(false);
    const shell = Number(await fleet.ok(["run", "--", "sleep 3600"], { cwd: repo }));
    const none = await fleet.cli(["checkpoints", String(shell)]);
    expect([none.code, none.stderr.trim()]).toEqual([
      1,
      `fleetcom: task ${shell} has no checkpoints: only agents and --worktree tasks in a git repository get them`,
    ]);
    const missing = await fleet.cli(["rewind", String(id), "7"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`task ${id} has no checkpoint 7`);
  });

  test("a task's checkpoint refs go with the task", async () => {
    installSleepingAgent(fleet, "claude");
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    await fleet.ok(["send", String(id), "a prompt"]);
    await checkpointCount(id, 2);
    expect(
      git(repo, "for-each-ref", "--format=%(refname)", "refs/fleetcom/")
        .split("\n")
        .filter((r) => r.includes("-cp")).length,
    ).toBe(2);
    await fleet.ok(["kill", String(id)]);
    await fleet.ok(["rm", String(id)]);
    await until("the checkpoint refs removed", () => !git(repo, "for-each-ref", "--format=%(refname)", "refs/fleetcom/").includes("-cp"));
  });
});

describe("recovery", () => {
  test("a recovered task keeps its checkpoints: listed as before, and rewound to one", async () => {
    fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = "100";
    installSleepingAgent(fleet, "claude");
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    writeFileSync(join(repo, "keep.txt"), "at checkpoint 1\n");
    await fleet.ok(["send", String(id), "a prompt"]);
    const taken = (await checkpointCount(id, 2)).checkpoints;
    const snapshots = () => snapshotNames(fleet).map((n) => readFileSync(join(recoveryDirOf(fleet), n), "utf8"));
    await until("a snapshot that records checkpoint 1", () => snapshots().some((text) => text.includes('"a prompt"')));
    writeFileSync(join(repo, "keep.txt"), "after it\n");
    await crashDaemon(fleet);
    await fleet.ok(["recover", "--latest"]);
    expect((await checkpoints(id)).checkpoints).toEqual(taken);
    expect((await fleet.cli(["rewind", String(id), "1", "--force"])).code).toBe(0);
    expect(readFileSync(join(repo, "keep.txt"), "utf8")).toBe("at checkpoint 1\n");
  });
});

describe("prompts", () => {
  test("a line typed while attached opens a checkpoint named by what was typed", async () => {
    installFakeAgents(fleet);
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    const tmux = new Tmux(fleet.env, fleet.sandbox.root);
    try {
      tmux.window("att", shellWords(fleetcomArgv(["attach", String(id)])));
      await tmux.waitFor("att", "the agent on the attached screen", (text) => text.includes("ready"));
      tmux.type("att", "typed abc");
      tmux.press("att", "BSpace", "d");
      tmux.press("att", "Enter");
      const listed = await checkpointCount(id, 2);
      expect(listed.checkpoints[1]!.prompt).toBe("typed abd");
    } finally {
      tmux.kill();
    }
  });

  test("a prompt the agent reports submitted (its hook) that fleetcom did not see as one still opens a checkpoint", async () => {
    installFakeAgents(fleet);
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    // Typed line by line (no --paste), the second line is a second prompt to the agent: fleetcom
    // took one checkpoint for the send, the agent's UserPromptSubmit hook tells of the second.
    await fleet.ok(["send", String(id), "first line\nsecond line"]);
    const listed = await checkpointCount(id, 3);
    expect(listed.checkpoints.map((c) => c.prompt)).toEqual(["(the task started)", "first line", "(a prompt fleetcom did not see)"]);
  });
});

describe.skipIf(!Tmux.available())("the dashboard, under tmux", () => {
  test("c on a task lists its checkpoints in the pager (number, age, N files or no code changes, the prompt) and q comes back to the list", async () => {
    installFakeAgents(fleet);
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    await checkpointCount(id, 1);
    await fleet.waitForTask(id, "its baseline", (t) => t.baseline !== null);
    // Files change only once a prompt's checkpoint is taken: the baseline's snapshot is not awaited by the spawn.
    await prompt(id, "first prompt", 2);
    writeFileSync(join(repo, "src", "mod.txt"), "two\n");
    await prompt(id, "second prompt", 3);
    const tmux = new Tmux(fleet.env, fleet.sandbox.root);
    try {
      tmux.window("dash", shellWords(fleetcomArgv([])), { cols: 100, rows: 30 });
      await tmux.waitFor("dash", "the agent's row", (t) => t.includes("claude"));
      tmux.press("dash", "c");
      const shown = await tmux.waitFor("dash", "the checkpoints in the pager", (t) => t.includes("second prompt"));
      const row = (n: number) => shown.split("\n").find((line) => new RegExp(`^\\s*${n}\\s+\\S+ ago`).test(line));
      expect(row(0)).toContain("the start");
      expect(row(1)).toContain("no code changes");
      expect(row(1)).toContain("first prompt");
      expect(row(2)).toContain("1 file");
      expect(row(2)).toContain("second prompt");
      expect(shown).toContain(`fleetcom rewind ${id} N`);
      tmux.press("dash", "q");
      await tmux.waitFor("dash", "the list again", (t) => t.includes("claude") && !t.includes("second prompt"));
    } finally {
      tmux.kill();
    }
  });
});
