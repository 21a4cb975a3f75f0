// The rule that decides whether fleetcom may still signal a task's process group (issue 11, H2), as
// a table: the proofs it accepts and the look-alikes it must refuse. The processes are made up; the
// PID-reuse scenarios with real processes are in security-process.test.ts.
import { describe, expect, test } from "bun:test";
import { groupIsTheTasks, groupMayRun, type GroupIdentity, ProcessGroup } from "../../src/daemon-process-group.ts";
import type { ProcStat } from "../../src/proc.ts";
import { parseProcStat, readProcStat } from "../../src/proc.ts";

describe("the proof that a process group is still the task's (pure rule)", () => {
  const P = 500;
  const held: GroupIdentity = { pgid: P, leaderStart: 1_000, reapedAt: null };
  const reaped: GroupIdentity = { ...held, reapedAt: 2_000 };
  const proc = (pid: number, start: number, over: Partial<ProcStat> = {}): ProcStat => ({ pid, state: "S", pgrp: P, session: P, start, ...over });
  const cases: [string, GroupIdentity, ProcStat[] | null, boolean][] = [
    ["the leader itself, not yet reaped", held, [proc(P, 1_000)], true],
    ["the leader as a zombie, not yet reaped", held, [proc(P, 1_000, { state: "Z" })], true],
    ["the leader's PID held by a later process: reused, whoever else is in the group", reaped, [proc(P, 5_000), proc(600, 1_500)], false],
    ["the leader's PID reused before the reap was reported", held, [proc(P, 5_000)], false],
    ["leader reaped, a member of its session started before the reap", reaped, [proc(600, 1_500)], true],
    ["leader reaped, only members started after the reap (a new session with the old number)", reaped, [proc(600, 2_001), proc(601, 9_000)], false],
    ["leader reaped, a member started in the reap's own tick (forked just before the leader exited)", reaped, [proc(600, 2_000)], true],
    ["leader reaped, a member of the group in another session", reaped, [proc(600, 1_500, { session: 42 })], false],
    ["leader reaped, only zombies left", reaped, [proc(600, 1_500, { state: "Z" })], false],
    ["leader reaped, a member older than the leader", reaped, [proc(600, 999)], false],
    ["leader reaped, nothing left", reaped, [], false],
    ["no /proc: held", held, null, true],
    ["no /proc: reaped", reaped, null, false],
    ["start unknown: held", { ...held, leaderStart: null }, [proc(P, 1_000)], true],
    ["start unknown: reaped", { ...reaped, leaderStart: null }, [proc(600, 1_500)], false],
  ];
  for (const [name, id, stats, expected] of cases) {
    test(`${name}: ${expected ? "signal" : "never signal"}`, () => {
      expect(groupIsTheTasks(id, stats, 3_000)).toBe(expected);
    });
  }
});

describe("whether a member of the group may still run, while a stop waits out the grace", () => {
  const P = 500;
  const held: GroupIdentity = { pgid: P, leaderStart: 1_000, reapedAt: null };
  const reaped: GroupIdentity = { ...held, reapedAt: 2_000 };
  const proc = (pid: number, start: number, over: Partial<ProcStat> = {}): ProcStat => ({ pid, state: "S", pgrp: P, session: P, start, ...over });
  const noScan = (): ProcStat[] => {
    throw new Error("read every process");
  };
  const scanOf = (stats: ProcStat[]) => {
    const scan = {
      count: 0,
      read: () => {
        scan.count += 1;
        return stats;
      },
    };
    return scan;
  };

  test("the leader running, or a zombie not yet reaped, answers from its own stat: every process is not read", () => {
    expect(groupMayRun(held, proc(P, 1_000), noScan, () => 3_000)).toBe(true);
    expect(groupMayRun(held, proc(P, 1_000, { state: "Z" }), noScan, () => 3_000)).toBe(true);
  });

  test("once the leader is reaped, every process is read: a member left in its session runs; only zombies, or nothing, do not", () => {
    for (const [stats, expected] of [
      [[proc(600, 1_500)], true],
      [[proc(600, 1_500, { state: "Z" })], false],
      [[], false],
    ] as const) {
      const scan = scanOf([...stats]);
      expect(groupMayRun(reaped, null, scan.read, () => 3_000)).toBe(expected);
      expect(scan.count).toBe(1);
    }
  });

  test("the leader's PID held by another process (reused) is no proof: every process is read, and the group is not the task's", () => {
    const scan = scanOf([proc(P, 5_000), proc(600, 1_500)]);
    expect(groupMayRun(reaped, proc(P, 5_000), scan.read, () => 3_000)).toBe(false);
    expect(scan.count).toBe(1);
  });

  test("a start never read is no proof either", () => {
    const scan = scanOf([proc(P, 1_000)]);
    expect(groupMayRun({ ...held, leaderStart: null }, proc(P, 1_000), scan.read, () => 3_000)).toBe(true);
    expect(scan.count).toBe(1);
  });
});

describe("reading /proc/<pid>/stat", () => {
  test("fields are read after the last parenthesis, so a command name with spaces and ')' cannot shift them", () => {
    const line = "4242 (evil) 1 2 3 (x) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 987654 0 0";
    expect(parseProcStat(4242, line)).toEqual({ pid: 4242, state: "S", pgrp: 4242, session: 4242, start: 987654, cpuTicks: 0, rssPages: 0, threads: 1 });
  });

  test("CPU time is user plus system ticks; resident memory in pages; threads", () => {
    const line = "77 (node server) R 1 77 77 0 -1 4194560 0 0 0 0 1500 250 0 0 20 0 9 0 4000 734003200 51200 18446744073709551615";
    expect(parseProcStat(77, line)).toMatchObject({ cpuTicks: 1750, rssPages: 51200, threads: 9, start: 4000 });
  });

  test("a truncated line is no process", () => {
    expect(parseProcStat(1, "1 (init) S 0 1 1")).toBeNull();
  });
});

describe("the members a task's use is summed over", () => {
  // This process as a task's leader: its start time is read as a spawn reads it.
  const leader = readProcStat(process.pid)!;
  const group = new ProcessGroup(process.pid);
  const member = (pid: number, over: Partial<ProcStat> = {}): ProcStat => ({
    pid,
    state: "S",
    pgrp: process.pid,
    session: process.pid,
    start: leader.start + 5,
    ...over,
  });

  test("the group proven the task's: its live members, not zombies nor other groups' processes", () => {
    const stats = [{ ...leader, pgrp: process.pid }, member(900_001), member(900_002, { state: "Z" }), member(900_003, { pgrp: 1 })];
    expect(group.membersIn(stats, null).map((p) => p.pid)).toEqual([process.pid, 900_001]);
  });

  test("the leader's PID held by another process (reused): nothing counts, however many share the number", () => {
    const stats = [{ ...leader, start: leader.start + 1 }, member(900_001)];
    expect(group.membersIn(stats, null)).toEqual([]);
  });
});
