// Recovery snapshots as the daemon writes them (recovery.md): a burst of renames, an emptied fleet,
// a snapshot deleted by hand. The writer alone is in test/unit/daemon-snapshots.test.ts.
// Writes are counted from the writer's log, never inferred from elapsed time.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isSnapshotName, snapshotFileName } from "../../src/recipe-snapshot-rules.ts";
import { type Fleet, until } from "../harness/fleet.ts";
import { recoveryDirOf, snapshotFleet, snapshotNames, snapshotWrites } from "../harness/recovery-helpers.ts";
import { RawClient } from "../harness/raw-client.ts";

const mode = (path: string) => statSync(path).mode & 0o777;

describe("snapshots in the daemon", () => {
  let fleet: Fleet;
  afterEach(async () => await fleet.stop());

  const snapshotFile = () => join(recoveryDirOf(fleet), snapshotNames(fleet)[0]!);
  const snapshotDoc = () => JSON.parse(readFileSync(snapshotFile(), "utf8"));

  test("the daemon writes its snapshot under its start time and pid after a spawn", async () => {
    fleet = snapshotFleet();
    await fleet.run("sleep 3600", ["--name", "s"]);
    await until("a snapshot", () => snapshotWrites(fleet) === 1);
    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(snapshotNames(fleet)).toEqual([snapshotFileName(new Date(status.startedAt), status.pid)]);
    // Each entry carries its task's id and history key (recipe-history.ts).
    expect(snapshotDoc().dirs).toEqual({ "~": [{ cmd: "sleep 3600", name: "s", id: 1, history: "1" }] });
    expect(mode(recoveryDirOf(fleet))).toBe(0o700);
    expect(mode(snapshotFile())).toBe(0o600);
  });

  test("a burst of 100 renames within a second produces exactly one snapshot write", async () => {
    // The default two seconds: the whole burst, sent on one connection, lands well inside it.
    fleet = snapshotFleet({ debounceMs: 2_000 });
    const id = await fleet.run("sleep 3600");
    await until("the first snapshot", () => snapshotWrites(fleet) === 1, 20_000);
    const client = await RawClient.open(fleet);
    const replies = await Promise.all(Array.from({ length: 100 }, (_, i) => client.request("rename", { task: { id }, name: `burst ${i}` })));
    expect(replies.every((r) => r.ok)).toBe(true);
    await until("the pass after the burst", () => snapshotWrites(fleet) >= 2, 20_000);
    // A sentinel change: its write is the third only if the burst wrote exactly once.
    await client.request("rename", { task: { id }, name: "sentinel" });
    // The log line follows the file's rename: wait for both, or the count can be read in between.
    await until("the sentinel's snapshot, logged", () => snapshotDoc().dirs["~"][0].name === "sentinel" && snapshotWrites(fleet) >= 3, 20_000);
    client.close();
    expect(snapshotWrites(fleet)).toBe(3);
  }, 60_000);

  test("emptying the fleet leaves the last snapshot in place, through --kill", async () => {
    fleet = snapshotFleet();
    const a = await fleet.run("sleep 3600");
    const b = await fleet.run("sleep 3601");
    await until("a snapshot of both tasks", () => snapshotWrites(fleet) >= 1 && snapshotDoc().dirs["~"]?.length === 2);
    await fleet.ok(["kill", String(a), String(b)]);
    // Killed, they are finished: the snapshot records them apart, so a recovery does not start them.
    await until("a snapshot of both as finished", () => snapshotDoc().finished?.["~"]?.length === 2);
    // The daemon logs a write just after its rename: one round trip through it (one thread) lets
    // that line land before the count is taken (read in between, CI counted one write too few).
    await fleet.ls();
    const before = readFileSync(snapshotFile(), "utf8");
    const writes = snapshotWrites(fleet);
    await fleet.ok(["rm", String(a), String(b)]);
    expect(await fleet.ls()).toEqual([]);
    // --kill runs any pass still pending before the daemon exits, so every pass is done after it.
    await fleet.ok(["--kill"]);
    expect(snapshotWrites(fleet)).toBe(writes);
    expect(readFileSync(snapshotFile(), "utf8")).toBe(before);
  });

  test("a snapshot deleted by hand is rewritten at the next check", async () => {
    fleet = snapshotFleet({ checkMs: 300 });
    await fleet.run("sleep 3600");
    await until("a snapshot", () => snapshotWrites(fleet) === 1);
    const file = snapshotFile();
    unlinkSync(file);
    await until("the snapshot to come back", () => existsSync(file), 20_000);
    expect(JSON.parse(readFileSync(file, "utf8")).dirs).toEqual({ "~": [{ cmd: "sleep 3600", id: 1, history: "1" }] });
  });

  test("a pass after --kill and a restart goes to the new daemon's own file", async () => {
    fleet = snapshotFleet();
    await fleet.run("sleep 3600");
    await until("the first daemon's snapshot", () => snapshotWrites(fleet) === 1);
    await fleet.ok(["--kill"]);
    await fleet.run("sleep 3601");
    await until("the second daemon's snapshot", () => snapshotNames(fleet).length === 2);
    expect(snapshotNames(fleet).every(isSnapshotName)).toBe(true);
  });
});
