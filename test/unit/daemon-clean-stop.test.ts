// The supervisor record (daemon-clean-stop.ts): in place the moment a supervisor starts, made durable
// a moment later, and never written over another supervisor's once this one stops.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CleanStopRecord, readRecord, type SupervisorRecord } from "../../src/daemon-clean-stop.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function recordFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "fleetcom-record-"));
  dirs.push(dir);
  return join(dir, "recovery", "supervisor-test.state.json");
}

const own = (pid: number) => ({ runtimeDir: "/run/user/1000/fleetcom", pid, startedAt: new Date(pid).toISOString(), snapshot: `snap-${pid}.json` });
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 5));

test("a starting supervisor's record is in place at once, running, before its durable write", () => {
  const path = recordFile();
  const record = new CleanStopRecord(path, own(41), null, () => {});
  expect(readRecord(path)).toMatchObject({ pid: 41, stoppedAt: null, unrecovered: null } satisfies Partial<SupervisorRecord>);
  record.stopped();
  expect(readRecord(path)?.stoppedAt).toEqual(expect.any(String));
});

test("once stopped it leaves another supervisor's record alone: its pending durable write does not come back", async () => {
  const path = recordFile();
  const record = new CleanStopRecord(path, own(41), null, () => {}, 0);
  const other = `${JSON.stringify({ ...own(42), stoppedAt: null, unrecovered: null })}\n`;
  writeFileSync(path, other);
  record.stopped();
  await nextTurn();
  expect(readFileSync(path, "utf8")).toBe(other);
});

test("the durable write is of the record as it is then", async () => {
  const path = recordFile();
  const record = new CleanStopRecord(path, own(41), "lost.json", () => {}, 0);
  record.recovered();
  await nextTurn();
  expect(readRecord(path)).toMatchObject({ pid: 41, stoppedAt: null, unrecovered: null });
});
