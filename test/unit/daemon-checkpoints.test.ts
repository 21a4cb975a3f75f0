// The daemon's checkpoint keeping against a real git repository: a low disk pauses checkpointing
// with one notice and resumes it with one more (none taken meanwhile, those taken kept); at most
// 200 are kept and none older than 30 days, their refs deleted with them.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskCheckpoints } from "../../src/daemon-checkpoints.ts";
import type { Checkpoint } from "../../src/git-checkpoint.ts";
import { takeBaseline } from "../../src/git.ts";

let repo: string;
const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

function git(...args: string[]): string {
  const r = Bun.spawnSync(["git", "-C", repo, ...args], { env: gitEnv });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

function fleetcomRefs(): string[] {
  return git("for-each-ref", "--format=%(refname)", "refs/fleetcom/")
    .split("\n")
    .filter((r) => r !== "");
}

beforeEach(() => {
  process.env.GIT_CONFIG_GLOBAL = "/dev/null";
  process.env.GIT_CONFIG_NOSYSTEM = "1";
  repo = mkdtempSync(join(tmpdir(), "fleetcom-checkpoints-"));
  git("init", "-q");
  writeFileSync(join(repo, "a.txt"), "one\n");
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

test("a low disk pauses checkpointing with one notice and resumes it with one more", async () => {
  const logs: string[] = [];
  let free = 100 * 1024 ** 3;
  const kept = new TaskCheckpoints<{ id: number; cwd: string; running: boolean }>(
    (m) => logs.push(m),
    () => {},
    async () => free,
  );
  const task = { id: 3, cwd: repo, running: true };
  kept.started(task, true, undefined);
  kept.fromBaseline(task, (await takeBaseline(repo, "refs/fleetcom/base-3", "baseline"))!);
  expect((await kept.list(task)).checkpoints.map((c) => c.n)).toEqual([0]);

  free = 10 * 1024 ** 2;
  kept.prompt(task, "one");
  kept.prompt(task, "two");
  const paused = await kept.list(task);
  expect([paused.paused, paused.checkpoints.length]).toEqual([true, 1]);
  expect(logs.filter((l) => l.includes("paused"))).toEqual([`task 3: checkpoints paused: the disk holding ${repo} is low on space`]);

  free = 100 * 1024 ** 3;
  writeFileSync(join(repo, "a.txt"), "two\n");
  kept.prompt(task, "three\nand more");
  kept.prompt(task, "four");
  const resumed = await kept.list(task);
  expect(resumed.paused).toBe(false);
  expect(resumed.checkpoints.map((c) => [c.n, c.prompt, c.files])).toEqual([
    [0, "(the task started)", null],
    [1, "three", 1],
    [2, "four", 0],
  ]);
  expect(logs.filter((l) => l.includes("resumed"))).toEqual(["task 3: checkpoints resumed: the disk has room again"]);
  expect(fleetcomRefs().filter((r) => r.includes("-cp")).length).toBe(3);

  kept.removed(task);
  await Bun.sleep(0);
  const checkpointRefs = () => fleetcomRefs().filter((r) => r.includes("-cp"));
  for (let i = 0; i < 100 && checkpointRefs().length > 0; i++) await Bun.sleep(20);
  expect(checkpointRefs()).toEqual([]);
  // The baseline's own ref is not the checkpoints' to remove.
  expect(fleetcomRefs()).toEqual(["refs/fleetcom/base-3"]);
});

test("at most 200 are kept and none older than 30 days: the oldest go, and their refs", async () => {
  const kept = new TaskCheckpoints<{ id: number; cwd: string; running: boolean }>(
    () => {},
    () => {},
    async () => Number.POSITIVE_INFINITY,
  );
  const probe = { id: 1, cwd: repo, running: true };
  kept.started(probe, true, undefined);
  kept.fromBaseline(probe, (await takeBaseline(repo, "refs/fleetcom/base-1", "baseline"))!);
  const first = (await kept.list(probe)).checkpoints[0]!;
  const day = 24 * 3600 * 1000;
  const recordedAs = (prefix: string, ages: number[]): Checkpoint[] =>
    ages.map((age, n) => ({ ...first, n, ref: `refs/fleetcom/${prefix}-cp${n}`, at: new Date(Date.now() - age).toISOString() }));

  // A recovered task's 200 checkpoints, each with a ref of its own: the 201st pushes the oldest out.
  const full = recordedAs("full", Array(200).fill(day));
  for (const c of full) git("update-ref", c.ref, c.commit);
  const task = { id: 2, cwd: repo, running: true };
  kept.started(task, true, full);
  kept.prompt(task, "the 201st");
  const capped = (await kept.list(task)).checkpoints;
  expect([capped.length, capped[0]!.n, capped.at(-1)!.n]).toEqual([200, 1, 200]);
  expect(fleetcomRefs()).not.toContain("refs/fleetcom/full-cp0");
  expect(fleetcomRefs()).toContain("refs/fleetcom/full-cp1");

  // One 31 days old goes at the next checkpoint, however few there are.
  const aged = recordedAs("aged", [31 * day, day]);
  for (const c of aged) git("update-ref", c.ref, c.commit);
  const old = { id: 4, cwd: repo, running: true };
  kept.started(old, true, aged);
  kept.prompt(old, "now");
  expect((await kept.list(old)).checkpoints.map((c) => c.n)).toEqual([1, 2]);
  expect(fleetcomRefs()).not.toContain("refs/fleetcom/aged-cp0");
});
