// A fleet lost without a clean stop is said once (ux.md, problem 6): SIGKILL the daemon, and the
// next client command prints the recover hint on stderr, status --json carries it, and a recovery of
// that snapshot clears it. The record that tells a crash from a clean stop lives beside the snapshots.
import { isProcessAlive } from "../../src/platform.ts";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Fleet, until } from "../harness/fleet.ts";
import { killProcessGroups, processesWithMarker, recoveryDirOf, snapshotFleet, snapshotNames, snapshotWrites } from "../harness/recovery-helpers.ts";

let fleet: Fleet;
let marker: string;
beforeEach(() => {
  fleet = snapshotFleet();
  marker = `FLEETCOM_TEST_MARKER=${crypto.randomUUID()}`;
  fleet.env.FLEETCOM_TEST_MARKER = marker.split("=")[1]!;
});
afterEach(async () => {
  killProcessGroups(processesWithMarker(marker));
  await fleet.stop();
});

const NOTICE = /^fleetcom: the previous fleet \(2 tasks, autosaved \d+s ago\) ended unexpectedly — fleetcom recover --latest\n$/;

/** Two tasks snapshotted, then the daemon SIGKILLed and its tasks gone with their PTYs. */
async function crash(): Promise<void> {
  await fleet.run("sleep 3600", ["--name", "api"]);
  await fleet.run("sleep 3601");
  const dir = recoveryDirOf(fleet);
  await until("the snapshot of both", () => snapshotNames(fleet).some((n) => readFileSync(join(dir, n), "utf8").includes("sleep 3601")));
  const pid = fleet.daemonPid()!;
  process.kill(pid, "SIGKILL");
  await until("the daemon to die", () => !isProcessAlive(pid));
  await until("its tasks to die with their PTYs", () => processesWithMarker(marker).length === 0);
}

describe("after a crash", () => {
  test("the next ls says so once on stderr; status --json carries it; recover --latest clears it", async () => {
    await crash();
    const first = await fleet.cli(["ls"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("no tasks\n");
    expect(first.stderr).toMatch(NOTICE);
    const second = await fleet.cli(["ls"]);
    expect(second.stderr).toBe("");

    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(status.crash).toMatchObject({ tasks: 2, recover: "fleetcom recover --latest" });
    expect(snapshotNames(fleet)).toContain(status.crash.snapshot);
    expect(await fleet.ok(["status"])).toMatch(
      /^previous {2}the previous fleet \(2 tasks, autosaved \d+s ago\) ended unexpectedly — fleetcom recover --latest$/m,
    );

    const recovered = await fleet.cli(["recover", "--latest"]);
    expect(recovered.stderr).toBe("");
    expect(recovered.stdout).toContain("2 task(s)");
    expect(JSON.parse(await fleet.ok(["status", "--json"])).crash).toBeNull();
    // Recovered, and stopped cleanly: the next daemon has nothing to say.
    await fleet.ok(["--kill"]);
    expect((await fleet.cli(["ls"])).stderr).toBe("");
  });

  test("the first command may be run: the notice comes with its id", async () => {
    await crash();
    const r = await fleet.cli(["run", "--", "sleep 3700"]);
    expect(r.stdout.trim()).toMatch(/^\d+$/);
    expect(r.stderr).toMatch(NOTICE);
  });

  test("a fleet left unrecovered is still named after a clean restart of the daemon", async () => {
    await crash();
    expect((await fleet.cli(["ls"])).stderr).toMatch(NOTICE);
    await fleet.ok(["--kill"]);
    expect((await fleet.cli(["ls"])).stderr).toMatch(NOTICE);
  });

  test("a clean stop leaves nothing to say, and the record is no snapshot", async () => {
    await fleet.run("sleep 3600");
    await until("a snapshot", () => snapshotWrites(fleet) >= 1);
    await fleet.ok(["--kill"]);
    const r = await fleet.cli(["ls"]);
    expect(r.stderr).toBe("");
    expect(JSON.parse(await fleet.ok(["status", "--json"])).crash).toBeNull();
    const dir = recoveryDirOf(fleet);
    expect(existsSync(dir) && readdirSync(dir).some((n) => n.startsWith("supervisor-") && n.endsWith(".state.json"))).toBe(true);
    // One snapshot row, then the line saying how to load one by its number.
    expect((await fleet.ok(["recover", "--list"])).trim().split("\n")).toHaveLength(2);
  });
});
