// Real git repositories for the diff and checkpoint tests: git run in a sandbox's environment, and
// the bytes of what fleetcom must never write in a user's repository.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** `git -C cwd ARGS` with this environment: its stdout, trimmed; a failure throws with git's stderr. */
export function gitIn(env: Record<string, string>, cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", "-C", cwd, ...args], { env });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

/** The bytes of what fleetcom must never write: the index, HEAD, the stash and its log, every branch. */
export function userGitState(env: Record<string, string>, repo: string): string {
  const gitDir = join(repo, ".git");
  const read = (p: string) => (existsSync(join(gitDir, p)) ? readFileSync(join(gitDir, p)).toString("base64") : "-");
  return [read("index"), read("HEAD"), read("refs/stash"), read("logs/refs/stash"), gitIn(env, repo, "for-each-ref", "refs/heads")].join("\n");
}

/**
 * A repository at `dir` with these files in one commit on `main`, committed as the user their git
 * config would name (set in `env`, which `merge --commit` and `--squash` then commit as).
 */
export function committedRepo(env: Record<string, string>, dir: string, files: Record<string, string>): void {
  Object.assign(env, { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" });
  mkdirSync(dir, { recursive: true });
  gitIn(env, dir, "init", "-q", "-b", "main");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  gitIn(env, dir, "add", ".");
  gitIn(env, dir, "commit", "-qm", "init");
}
