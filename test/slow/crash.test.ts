// The crash suite of quality.md: SIGKILL the daemon at random moments while tasks are spawning,
// being renamed, regrouped, removed and loaded; every time, its tasks die with their PTYs, no
// snapshot on disk is torn or empty, and `fleetcom recover --latest` brings back exactly the recipe
// of the last snapshot written. A failing seed reproduces with FLEETCOM_CRASH_SEED.
import { isProcessAlive } from "../../src/platform.ts";
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import { parseRecipe } from "../../src/recipe.ts";
import { until } from "../harness/fleet.ts";
import { seededRandom } from "../harness/helpers.ts";
import { killProcessGroups, launches, processesWithMarker, recoveryDirOf, snapshotFleet, snapshotNames, type Launch } from "../harness/recovery-helpers.ts";
import { RawClient } from "../harness/raw-client.ts";

const ROUNDS = Number(process.env.FLEETCOM_CRASH_ROUNDS ?? 50);
const SEED = Number(process.env.FLEETCOM_CRASH_SEED ?? Date.now() % 1_000_000);
const MAX_TASKS = 8;

const fleet = snapshotFleet({ debounceMs: 40 });
const mark = `fleetcom-crash-${process.pid}-${SEED}`;
fleet.env.FLEETCOM_CRASH_MARK = mark;
const marker = `FLEETCOM_CRASH_MARK=${mark}`;
const random = seededRandom(SEED);
const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;

const home = fleet.sandbox.home;
const dirs = [home, join(home, "api"), join(fleet.sandbox.root, "elsewhere ünï ✓")];
for (const dir of dirs) mkdirSync(dir, { recursive: true });

afterAll(async () => {
  killProcessGroups(processesWithMarker(marker));
  await fleet.stop();
});

/** One random recipe-changing request, chosen from the fleet as it is now. */
async function randomChange(client: RawClient, round: number, step: number): Promise<void> {
  const listed = await client.request("ls");
  if (!listed.ok) return;
  const tasks = listed.result as TaskInfo[];
  const someTask = () => ({ id: pick(tasks).id });
  const label = `r${round}s${step}`;
  const choices: (() => Promise<{ ok: boolean }>)[] = [];
  if (tasks.length < MAX_TASKS) {
    choices.push(() => client.request("run", { command: `sleep ${3600 + step}`, cwd: pick(dirs), group: random() < 0.5 ? null : label, name: null }));
    const entry = () => ({ dir: pick(dirs), cmd: `sleep ${4000 + step}`, group: null, name: random() < 0.5 ? null : `loaded ${label}` });
    choices.push(() => client.request("load", { entries: [entry(), entry()] }));
  }
  if (tasks.length > 0) {
    choices.push(() => client.request("rename", { task: someTask(), name: random() < 0.2 ? null : `name ${label}` }));
    choices.push(() => client.request("group", { task: someTask(), group: random() < 0.2 ? null : `group ${label}` }));
  }
  if (tasks.length > MAX_TASKS / 2) {
    choices.push(async () => {
      const task = someTask();
      const killed = await client.request("kill", { tasks: [task] });
      return killed.ok ? client.request("rm", { tasks: [task] }) : killed;
    });
  }
  await pick(choices)();
}

/** What the newest snapshot on disk says, after checking that none is torn or empty. */
function lastSnapshot(): Launch[] {
  const dir = recoveryDirOf(fleet);
  let newest: { file: string; mtime: number } | null = null;
  for (const name of snapshotNames(fleet)) {
    const file = join(dir, name);
    const text = readFileSync(file, "utf8");
    const recipe = parseRecipe(text, file, { home, cwd: dir });
    expect({ file, dropped: recipe.dropped, empty: recipe.entries.length === 0 }).toEqual({ file, dropped: 0, empty: false });
    const mtime = statSync(file).mtimeMs;
    if (!newest || mtime > newest.mtime || (mtime === newest.mtime && name > newest.file)) newest = { file, mtime };
  }
  expect(newest).not.toBeNull();
  const recipe = parseRecipe(readFileSync(newest!.file, "utf8"), newest!.file, { home, cwd: dir });
  return launches(recipe.entries.map((e) => ({ cwd: e.dir, command: e.cmd, group: e.group, name: e.name })));
}

test(`${ROUNDS} rounds of SIGKILL at random moments lose no recipe (seed ${SEED})`, async () => {
  await fleet.run("sleep 3600", ["--name", "first"]);
  await until("the first snapshot", () => snapshotNames(fleet).length === 1);
  for (let round = 1; round <= ROUNDS; round++) {
    const pid = fleet.daemonPid()!;
    const client = await RawClient.open(fleet);
    let killed = false;
    const killAfter = random() * 250;
    const killer = Bun.sleep(killAfter).then(() => {
      killed = true;
      process.kill(pid, "SIGKILL");
    });
    for (let step = 0; !killed; step++) await randomChange(client, round, step);
    await killer;
    client.close();
    await until(`daemon ${pid} to die (round ${round})`, () => !isProcessAlive(pid), 10_000);
    await until(`round ${round}'s tasks to die with their PTYs`, () => processesWithMarker(marker).length === 0, 10_000);

    const expected = lastSnapshot();
    const r = await fleet.cli(["recover", "--latest"]);
    expect({ round, code: r.code, stderr: r.stderr }).toEqual({ round, code: 0, stderr: "" });
    expect({ round, fleet: launches(await fleet.ls()) }).toEqual({ round, fleet: expected });
    // Start the next round from a fleet the new daemon has snapshotted, as a user's would be.
    const newDaemon = fleet.daemonPid()!;
    await until(`daemon ${newDaemon}'s snapshot (round ${round})`, () => snapshotNames(fleet).some((n) => n.endsWith(`-${newDaemon}.json`)), 10_000);
  }
}, 170_000);
