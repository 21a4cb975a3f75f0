// A git worktree per task (`run --worktree`, src/client-worktree.ts): two agents on one repository
// each in a worktree of its own, brought back to them by a save, `--kill` and a load (a missing one
// made again from its branch), and `rm --worktree` removing only a clean worktree fleetcom made.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installSleepingAgent } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { crashDaemon, recoveryDirOf, snapshotNames } from "../harness/recovery-helpers.ts";

let fleet: Fleet;
let repo: string;

function git(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", "-C", cwd, ...args], {
    env: { ...fleet.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

beforeEach(() => {
  fleet = new Fleet();
  repo = join(fleet.sandbox.root, "app");
  mkdirSync(join(repo, "src"), { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "src", "main.ts"), "export {};\n");
  git(repo, "add", ".");
  git(repo, "commit", "-qm", "init");
});
afterEach(() => fleet.stop());

describe("run --worktree", () => {
  test("two agents on one repository run in two worktrees, and a save, --kill and load bring both back to them", async () => {
    installSleepingAgent(fleet, "claude");
    const first = Number(await fleet.ok(["run", "--worktree", "--", "claude"], { cwd: repo }));
    const second = Number(await fleet.ok(["run", "--worktree", "--", "claude"], { cwd: join(repo, "src") }));
    const trees = join(fleet.sandbox.root, "app.worktrees");
    const one = { repo, branch: "claude", path: join(trees, "claude"), from: "main" };
    const two = { repo, branch: "claude-2", path: join(trees, "claude-2"), from: "main" };
    expect(await fleet.task(first)).toMatchObject({ cwd: one.path, worktree: one });
    // Started from a subdirectory: the same subdirectory of its worktree.
    expect(await fleet.task(second)).toMatchObject({ cwd: join(two.path, "src"), worktree: two });
    expect(git(two.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe("claude-2");
    expect(await fleet.ok(["ls"])).toContain("~/../app.worktrees/claude-2/src [claude-2]".replace("~/..", fleet.sandbox.root));

    await fleet.ok(["save", "pair"]);
    await fleet.ok(["--kill"]);
    // One worktree deleted by hand meanwhile: the load makes it again from its branch.
    rmSync(two.path, { recursive: true });
    const load = await fleet.cli(["load", "pair"]);
    expect(load.code).toBe(0);
    expect(load.stderr).toContain(`fleetcom: worktree ${two.path} recreated from branch claude-2`);
    const rows = await until("both tasks back", async () => {
      const ls = await fleet.ls();
      return ls.length === 2 ? ls : undefined;
    });
    expect(rows.map((t) => [t.cwd, t.worktree])).toEqual([
      [one.path, one],
      [join(two.path, "src"), two],
    ]);
    expect(rows.every((t) => t.state === "running")).toBe(true);
    expect(git(two.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe("claude-2");
  });

  test("a daemon SIGKILLed is recovered with its task back in its worktree", async () => {
    fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = "100";
    installSleepingAgent(fleet, "claude");
    const id = Number(await fleet.ok(["run", "--worktree", "--name", "fixer", "--", "claude"], { cwd: repo }));
    const worktree = { repo, branch: "fixer", path: join(fleet.sandbox.root, "app.worktrees", "fixer") };
    expect(await fleet.task(id)).toMatchObject({ cwd: worktree.path, worktree });
    const snapshot = () => snapshotNames(fleet).map((n) => readFileSync(join(recoveryDirOf(fleet), n), "utf8"));
    await until("a snapshot that records the worktree", () => snapshot().some((text) => text.includes('"branch": "fixer"')));
    await crashDaemon(fleet);
    await fleet.ok(["recover", "--latest"]);
    const [back] = await until("the task back", async () => ((await fleet.ls()).length === 1 ? fleet.ls() : undefined));
    expect(back).toMatchObject({ id, cwd: worktree.path, worktree, state: "running", name: "fixer" });
  });

  test("rm --worktree removes a clean worktree, keeps a dirty one with its task, and never one fleetcom did not make", async () => {
    mkdirSync(fleet.sandbox.config, { recursive: true });
    writeFileSync(join(fleet.sandbox.config, "config.toml"), 'worktree_dir = "~/trees"\n');
    const clean = Number(await fleet.ok(["run", "--worktree", "clean-one", "--", "true"], { cwd: repo }));
    const dirty = Number(await fleet.ok(["run", "--worktree=dirty-one", "--", "true"], { cwd: repo }));
    const cleanPath = join(fleet.sandbox.home, "trees", "app", "clean-one");
    const dirtyPath = join(fleet.sandbox.home, "trees", "app", "dirty-one");
    await fleet.waitForExit(clean);
    await fleet.waitForExit(dirty);
    writeFileSync(join(dirtyPath, "src", "main.ts"), "export const unsaved = 1;\n");
    // A worktree the user made, named by a hand-written session: fleetcom did not make it.
    const mine = join(fleet.sandbox.root, "mine");
    git(repo, "worktree", "add", "-q", "-b", "mine", mine);
    mkdirSync(join(fleet.sandbox.config, "sessions"), { recursive: true });
    const session = { version: 1, name: "hand", dirs: { [mine]: [{ cmd: "true", worktree: { repo, branch: "mine", path: mine } }] } };
    writeFileSync(join(fleet.sandbox.config, "sessions", "hand.json"), JSON.stringify(session));
    await fleet.ok(["load", "hand"]);
    const theirs = (await fleet.ls()).find((t) => t.cwd === mine)!.id;
    await fleet.waitForExit(theirs);

    const r = await fleet.cli(["rm", "--worktree", String(clean), String(dirty), String(theirs)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `fleetcom: task ${dirty} not removed: worktree ${dirtyPath} has uncommitted changes; kept (commit or stash them, then rm --worktree again)\n` +
        `fleetcom: task ${theirs} not removed: worktree ${mine} was not made by fleetcom; kept\n`,
    );
    expect(r.stdout).toContain(`removed worktree ${cleanPath} (branch clean-one kept)\n`);
    expect(existsSync(cleanPath)).toBe(false);
    expect(git(repo, "branch", "--list", "clean-one")).toContain("clean-one");
    expect(readFileSync(join(dirtyPath, "src", "main.ts"), "utf8")).toBe("export const unsaved = 1;\n");
    expect(existsSync(mine)).toBe(true);
    expect((await fleet.ls()).map((t) => t.id)).toEqual([dirty, theirs]);
  });

  test("a task that cannot start leaves neither its worktree nor the branch made for it", async () => {
    // A runtime directory others may read: the client refuses it, so the run fails after the worktree is made.
    mkdirSync(fleet.sandbox.runtime, { recursive: true, mode: 0o755 });
    chmodSync(fleet.sandbox.runtime, 0o755);
    const r = await fleet.cli(["run", "--worktree", "--", "true"], { cwd: repo });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("not 0700");
    expect(existsSync(join(fleet.sandbox.root, "app.worktrees", "true"))).toBe(false);
    expect(git(repo, "branch", "--list", "true")).toBe("");
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
  });
});

/** A git first on PATH that logs each argv, then runs the real one: the environment to run with, and what it logged. */
function loggingGit(): { env: Record<string, string>; argvs: () => string } {
  const bin = join(fleet.sandbox.root, "bin");
  const argvLog = join(fleet.sandbox.root, "git-argv.log");
  mkdirSync(bin);
  writeFileSync(join(bin, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec '${Bun.which("git")}' "$@"\n`);
  chmodSync(join(bin, "git"), 0o755);
  return { env: { PATH: `${bin}:${fleet.env.PATH}` }, argvs: () => (existsSync(argvLog) ? readFileSync(argvLog, "utf8") : "") };
}

describe("a recipe's worktree records", () => {
  // SECURITY (docs/security.md): a recipe is any file handed to load; its worktree words reach git.
  test("a branch or path git would take for an option is refused with one line naming the file and entry, and git never sees it", async () => {
    const { env, argvs } = loggingGit();
    const hostile = [
      { name: "orphan", worktree: { repo, branch: "--orphan", path: join(fleet.sandbox.root, "app.worktrees", "x") } },
      { name: "force", worktree: { repo, branch: "feat", path: "-f" } },
      { name: "upload", worktree: { repo: "--upload-pack=touch pwned", branch: "feat", path: join(fleet.sandbox.root, "y") } },
    ];
    for (const { name, worktree } of hostile) {
      const recipe = join(fleet.sandbox.root, `${name}.json`);
      writeFileSync(recipe, JSON.stringify({ [repo]: [{ cmd: `echo ${name}`, name, worktree }] }));
      const loaded = await fleet.cli(["load", recipe], { env });
      expect(loaded.code).not.toBe(0);
      const lines = loaded.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(recipe);
      expect(lines[0]).toContain(`"echo ${name}"`);
      expect(lines[0]).toContain("worktree");
    }
    const seen = argvs();
    for (const word of ["--orphan", " -f", "--upload-pack"]) expect(seen).not.toContain(word);
    expect(existsSync(join(repo, "pwned"))).toBe(false);
    expect(await fleet.ls()).toEqual([]);
  });

  test("restore-worktrees (what a load from another host runs) refuses them too, and git never sees them", async () => {
    const { env, argvs } = loggingGit();
    const out = await fleet.cli(["restore-worktrees", "--", repo, "--orphan", join(fleet.sandbox.root, "t"), repo, "feat", "-f"], { env });
    const lines = out.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toContain("not recreated");
    const seen = argvs();
    expect(seen).not.toContain("--orphan");
    expect(seen).not.toContain(" -f");
  });
});
