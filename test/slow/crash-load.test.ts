// A crash during a long load (issue 23, item 9): SIGKILL the daemon while a 300-task load is still
// spawning, and `recover --latest` brings back the whole load, not only what ran before it. The
// snapshot debounce used to restart with every spawn, so the load's tasks were in no snapshot
// until it had finished. A second recovery starts nothing: no task is ever doubled.
import { isProcessAlive } from "../../src/platform.ts";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Fleet, until } from "../harness/fleet.ts";
import { killProcessGroups, processesWithMarker, snapshotFleet, snapshotNames } from "../harness/recovery-helpers.ts";

const LOAD = 300;

let fleet: Fleet;
let marker: string;
beforeEach(() => {
  // The default interval: the one that lost the load in the field.
  fleet = snapshotFleet({ debounceMs: 2_000 });
  marker = `FLEETCOM_TEST_MARKER=${crypto.randomUUID()}`;
  fleet.env.FLEETCOM_TEST_MARKER = marker.split("=")[1]!;
});
afterEach(async () => {
  killProcessGroups(processesWithMarker(marker));
  await fleet.stop();
});

/** A recipe of `LOAD` sleeps, each named, so a doubled task shows as a name seen twice. */
function writeLoad(): string {
  const file = join(fleet.sandbox.root, "three.json");
  const entries = Array.from({ length: LOAD }, (_, i) => ({ cmd: "sleep 1000", name: `t${i}` }));
  writeFileSync(file, JSON.stringify({ version: 1, name: "three", dirs: { [fleet.sandbox.home]: entries } }));
  return file;
}

test("a SIGKILL while a 300-task load spawns loses none of it, and a second recovery doubles none", async () => {
  await fleet.run("sleep 1000", ["--name", "pre"]);
  await until("the snapshot of the task before the load", () => snapshotNames(fleet).length === 1);
  const load = fleet.cli(["load", writeLoad()]);
  const seen = await until("50 of the load's tasks up", async () => {
    const up = (await fleet.ls()).length;
    return up > 50 && up;
  });
  const pid = fleet.daemonPid()!;
  process.kill(pid, "SIGKILL");
  await load;
  await until("the daemon to die", () => !isProcessAlive(pid));
  await until("its tasks to die with their PTYs", () => processesWithMarker(marker).length === 0);

  const recovered = await fleet.cli(["recover", "--latest"]);
  expect(recovered.stderr).toBe("");
  expect(recovered.code).toBe(0);
  const names = (await fleet.ls()).map((t) => t.name);
  // At least what had started before the kill, and in fact the whole accepted load (recovery.md).
  expect(names.length).toBeGreaterThanOrEqual(seen);
  expect(names.length).toBe(LOAD + 1);
  expect(new Set(names).size).toBe(names.length);
  expect(names).toContain("pre");

  const again = await fleet.cli(["recover", "--latest"]);
  expect(again.stdout).toContain(`0 task(s), ${LOAD + 1} already running`);
  expect((await fleet.ls()).length).toBe(LOAD + 1);
}, 120_000);
