import { describe, expect, test } from "bun:test";
import { lsTable } from "../../src/ui-format.ts";
import { fromPs } from "../../src/daemon-resources.ts";
import { taskInfo } from "../harness/task-info.ts";
import {
  cpuCell,
  groupResources,
  memCell,
  NOTHING_SAMPLED,
  overMemoryReason,
  parseMemoryLimit,
  parsePsLine,
  processKey,
  sampled,
  sparkline,
  type SampledProcess,
} from "../../src/task-resources.ts";

const proc = (pid: number, start: number, cpuTicks: number, over: Partial<SampledProcess> = {}): SampledProcess => ({
  pid,
  start,
  cpuTicks,
  rssBytes: 0,
  threads: 1,
  ...over,
});

describe("a task's group summed", () => {
  test("a process sampled before: CPU over the time since that sample", () => {
    const previous = { at: 1000, ticks: new Map([[processKey({ pid: 5, start: 10 }), 300]]) };
    // 200 ticks of CPU in 200 ticks of time: one core, busy.
    expect(groupResources([proc(5, 10, 500)], previous, 1200).cpu).toBe(100);
  });

  test("a process first seen: CPU over its whole life, as ps shows it", () => {
    expect(groupResources([proc(5, 1000, 50)], NOTHING_SAMPLED, 1200).cpu).toBe(25);
  });

  test("every member counts: a child's CPU, memory and threads are its task's", () => {
    const previous = { at: 1000, ticks: new Map([[processKey({ pid: 5, start: 10 }), 100]]) };
    const members = [proc(5, 10, 100, { rssBytes: 1 << 20, threads: 1 }), proc(6, 900, 200, { rssBytes: 200 << 20, threads: 4 })];
    expect(groupResources(members, previous, 1200)).toEqual({ cpu: 66.7, rss: 201 << 20, threads: 5, processes: 2 });
  });

  test("a PID reused (another start time) is a new process, not the old one's ticks going back", () => {
    const previous = { at: 1000, ticks: new Map([[processKey({ pid: 5, start: 10 }), 9000]]) };
    expect(groupResources([proc(5, 1100, 100)], previous, 1200).cpu).toBe(100);
  });

  test("no time gone by, or ticks going backwards, is no CPU rather than a division by zero", () => {
    expect(groupResources([proc(5, 1200, 0)], NOTHING_SAMPLED, 1200).cpu).toBe(0);
    const previous = { at: 1000, ticks: new Map([[processKey({ pid: 5, start: 10 }), 500]]) };
    expect(groupResources([proc(5, 10, 400)], previous, 1200).cpu).toBe(0);
  });

  test("an empty group uses nothing", () => {
    expect(groupResources([], NOTHING_SAMPLED, 5)).toEqual({ cpu: 0, rss: 0, threads: 0, processes: 0 });
  });
});

describe("cells and limits", () => {
  test("CPU and memory cells in a few characters; nothing for a task not sampled", () => {
    expect([cpuCell(99.6), cpuCell(0), cpuCell(null)]).toEqual(["100%", "0%", ""]);
    expect([memCell(812 * 1024), memCell(212 * 1024 ** 2), memCell(2.1 * 1024 ** 3), memCell(2 * 1024 ** 3), memCell(null)]).toEqual([
      "812K",
      "212M",
      "2.1G",
      "2G",
      "",
    ]);
  });

  test("--max-memory takes binary units, any case, with or without B or iB; anything else is refused", () => {
    const cases: [string, number | null][] = [
      ["2G", 2 * 1024 ** 3],
      ["512m", 512 * 1024 ** 2],
      ["1.5GiB", 1.5 * 1024 ** 3],
      ["300MB", 300 * 1024 ** 2],
      ["4096", 4096],
      ["0", null],
      ["2 gigs", null],
      ["-1G", null],
      ["", null],
      ["1e9", null],
    ];
    for (const [text, bytes] of cases) expect([text, parseMemoryLimit(text)]).toEqual([text, bytes]);
  });

  test("the sparkline: one bar a sample, one core the tallest, a busier sample than that the tallest instead", () => {
    expect(sparkline([0, 50, 100])).toBe("▁▅█");
    expect(sparkline([100, 200])).toBe("▅█");
    expect(sparkline([])).toBe("");
    expect(sparkline([-3])).toBe("▁");
  });

  test("sampled: a figure present; null or absent (a daemon of an earlier version) is not", () => {
    expect([sampled({ rss: 0 }), sampled({ rss: null }), sampled({})]).toEqual([true, false, false]);
    expect([cpuCell(undefined), memCell(undefined)]).toEqual(["", ""]);
  });

  test("the reason names the use and the limit", () => {
    expect(overMemoryReason(2.1 * 1024 ** 3, 2 * 1024 ** 3)).toBe("memory 2.1G over --max-memory 2G");
  });

  test("a line of macOS ps: rss in KiB, CPU and elapsed time in their three shapes, the start from now; a header or garbage is none", () => {
    expect(parsePsLine("  412   400  20480   1:02.50   10:00", 100, 100_000)).toEqual({
      pid: 412,
      state: "S",
      pgrp: 400,
      session: 400,
      start: 100_000 - 60_000,
      cpuTicks: 6250,
      rssBytes: 20480 * 1024,
      threads: 1,
    });
    expect(parsePsLine("1 1 4 2:00:00.00 00:01", 100, 0)!.cpuTicks).toBe(720_000);
    expect(parsePsLine("1 1 4 1-00:00:01 1-00:00:01", 100, 10_000_000)).toMatchObject({ cpuTicks: 8_640_100, start: 10_000_000 - 8_640_100 });
    expect(parsePsLine("  PID  PGID    RSS      TIME  ELAPSED", 100, 0)).toBeNull();
    expect(parsePsLine("1 1 x 0:01 0:01", 100, 0)).toBeNull();
    expect(parsePsLine("1 1 4 0:01", 100, 0)).toBeNull();
  });

  test("ps itself (procps here; macOS's ps takes the same options): this very process is read, and its start is in the past", async () => {
    const read = await fromPs();
    const me = read!.processes.find((p) => p.pid === process.pid)!;
    expect(me.rssBytes).toBeGreaterThan(1024 * 1024);
    expect(me.start).toBeLessThanOrEqual(read!.now);
    expect(me.pgrp).toBeGreaterThan(0);
  });
});

describe("the ls table's CPU and MEM", () => {
  const sampled = taskInfo(1, { cwd: "/w", cpu: 97.4, rss: 212 * 1024 ** 2, threads: 9, processes: 3 });
  const finished = taskInfo(2, { cwd: "/w", state: "exited", exitCode: 0, endedAt: new Date(0).toISOString() });

  test("CPU and MEM after AGE, -v adds THREADS and PROCS; a task not sampled has empty cells", () => {
    const [head, one, two] = lsTable([sampled, finished], "/home/u", 0).split("\n");
    expect(head).toMatch(/AGE +CPU +MEM +PREVIEW$/);
    expect(one).toMatch(/ 97% +212M$/);
    expect(two).not.toMatch(/%|M$/);
    expect(lsTable([sampled], "/home/u", 0, undefined, true).split("\n")[1]).toMatch(/ 97% +212M +9 +3$/);
  });

  test("a task stopped over its memory limit says so in STATE, not as the signal it took", () => {
    const stopped = taskInfo(3, { state: "exited", signal: "SIGTERM", stopReason: "memory 213M over --max-memory 100M" });
    expect(lsTable([stopped], "/home/u", 0).split("\n")[1]).toContain("stopped: memory 213M over --max-memory 100M");
  });

  test("no task sampled (no /proc, nothing running): no columns for them", () => {
    expect(lsTable([finished], "/home/u", 0).split("\n")[0]).not.toContain("CPU");
  });

  test("a terminal too narrow for them even with the rest cut loses them, never a figure cut short", () => {
    const wide = taskInfo(1, { ...sampled, name: "a-rather-long-task-name", preview: "x".repeat(80) });
    expect(lsTable([wide], "/home/u", 0, 120).split("\n")[0]).toContain("CPU");
    const narrow = lsTable([wide], "/home/u", 0, 50).split("\n");
    expect(narrow[0]).not.toContain("CPU");
    expect(narrow[1]).not.toContain("212M");
  });
});
