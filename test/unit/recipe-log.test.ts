import { describe, expect, test } from "bun:test";
import {
  cleanLines,
  filterLog,
  LineCutter,
  logPartName,
  parseLogPart,
  parseLogPartName,
  parseLogTime,
  partsToDrop,
  sizeWritten,
  timeMark,
} from "../../src/recipe-log.ts";
import { parseSize } from "../../src/text-size.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("cutting output into lines", () => {
  test("a line is given once its line feed comes, whatever chunk it spans", () => {
    const cutter = new LineCutter();
    expect(cutter.push(bytes("hel"))).toBe("");
    expect(cutter.push(bytes("lo\r\nwor"))).toBe("hello\n");
    expect(cutter.push(bytes("ld\r\n"))).toBe("world\n");
  });

  test("colours and other escapes go, a redrawn line keeps its last state, controls go", () => {
    expect(cleanLines("\x1b[1;31mred\x1b[0m\n")).toBe("red\n");
    expect(cleanLines("10%\r50%\r100%\r\n")).toBe("100%\n");
    // A terminal's line ends (\r\n, even doubled) are plain line ends; a \r within a line still redraws it.
    expect(cleanLines("one\r\ntwo\r\r\nthree\rTHREE\r\n")).toBe("one\ntwo\nTHREE\n");
    expect(cleanLines("\x1b]0;title\x07a\bb\x07\n")).toBe("ab\n");
  });

  test("a tab stays: it parts the words as the terminal showed them (go test's `ok\\tpkg\\t0.01s`)", () => {
    expect(cleanLines("ok\tpkg\t0.01s\r\n")).toBe("ok\tpkg\t0.01s\n");
    expect(new LineCutter().push(bytes("\x1b[32mPASS\x1b[0m\tpkg\r\n"))).toBe("PASS\tpkg\n");
  });

  test("nothing drawn on the alternate screen is a line", () => {
    const cutter = new LineCutter();
    expect(cutter.push(bytes("before\r\n\x1b[?1049hfull screen\r\nredraw\r\n\x1b[?1049lafter\r\n"))).toBe("before\nafter\n");
  });

  test("a run that ended on the alternate screen leaves the next run's lines kept", () => {
    const cutter = new LineCutter();
    expect(cutter.push(bytes("\x1b[?1049hcrashed\r\n"))).toBe("");
    expect(cutter.end()).toBe("");
    expect(cutter.push(bytes("next run\r\n"))).toBe("next run\n");
  });

  test("a UTF-8 character split across chunks is whole", () => {
    const cutter = new LineCutter();
    const all = bytes("é\n");
    expect(cutter.push(all.subarray(0, 1))).toBe("");
    expect(cutter.push(all.subarray(1))).toBe("é\n");
  });

  test("an escape sequence whose start came in an earlier chunk still goes, whichever part of the line it was in", () => {
    const cutter = new LineCutter();
    expect(cutter.push(bytes("plain\r\nab\x1b[1"))).toBe("plain\n");
    expect(cutter.push(bytes(";31mc"))).toBe("");
    expect(cutter.push(bytes("d\r\n"))).toBe("abcd\n");
    expect(cutter.push(bytes("e\x1b"))).toBe("");
    expect(cutter.push(bytes("[0mf\r\n"))).toBe("ef\n");
  });

  test("a character split after plain chunks, and plain chunks after it, are decoded whole", () => {
    const cutter = new LineCutter();
    const all = bytes("ascii\n日本\nmore\n");
    expect(cutter.push(all.subarray(0, 8))).toBe("ascii\n");
    expect(cutter.push(all.subarray(8, 10))).toBe("");
    expect(cutter.push(all.subarray(10, 13))).toBe("日本\n");
    expect(cutter.push(all.subarray(13))).toBe("more\n");
  });

  test("what waits for its line feed is a line when the task ends", () => {
    const cutter = new LineCutter();
    cutter.push(bytes("no newline"));
    expect(cutter.end()).toBe("no newline\n");
    expect(cutter.end()).toBe("");
  });
});

describe("the form on disk", () => {
  test("time marks give the time of the lines after them; a line cut short at the end is left out", () => {
    const text = `${timeMark(1000)}a\nb\n${timeMark(2000)}c\nhalf`;
    expect(parseLogPart(text)).toEqual([
      { at: 1000, text: "a" },
      { at: 1000, text: "b" },
      { at: 2000, text: "c" },
    ]);
  });

  test("part names: only the task key and a number", () => {
    expect(parseLogPartName(logPartName("3", 12))).toEqual({ key: "3", part: 12 });
    for (const name of ["3.txt.gz", "3.0.log", "../3.1.log", "a.1.log", "3.1.log.tmp"]) expect(parseLogPartName(name)).toBeNull();
  });

  test("rotation drops the oldest parts until the rest fit, never the newest", () => {
    const parts = [1, 2, 3, 4].map((part) => ({ part, bytes: 100 }));
    expect(partsToDrop(parts, 250)).toEqual([1, 2]);
    expect(partsToDrop(parts, 400)).toEqual([]);
    expect(partsToDrop([{ part: 9, bytes: 1000 }], 10)).toEqual([]);
  });

  test("since is inclusive, until exclusive, last counts after both", () => {
    const lines = [1, 2, 3, 4].map((at) => ({ at, text: String(at) }));
    expect(filterLog(lines, { since: 2, until: 4 }).map((l) => l.text)).toEqual(["2", "3"]);
    expect(filterLog(lines, { since: 2, last: 1 }).map((l) => l.text)).toEqual(["4"]);
  });
});

describe("--since and --until", () => {
  const now = new Date("2026-12-04T15:00:00");
  test("a duration back from now", () => {
    expect(parseLogTime("--since", "10m", now)).toBe(now.getTime() - 600_000);
    expect(parseLogTime("--since", "1.5h", now)).toBe(now.getTime() - 5_400_000);
  });

  test("a clock time today, or yesterday's when it is still ahead", () => {
    expect(parseLogTime("--since", "12:00", now)).toBe(new Date("2026-12-04T12:00:00").getTime());
    expect(parseLogTime("--since", "16:30:05", now)).toBe(new Date("2026-12-03T16:30:05").getTime());
  });

  test("an RFC 3339 time", () => {
    expect(parseLogTime("--until", "2026-12-04T12:00:00Z", now)).toBe(Date.UTC(2026, 11, 4, 12));
    expect(parseLogTime("--until", "2026-12-04T12:00:00+02:00", now)).toBe(Date.UTC(2026, 11, 4, 10));
  });

  test("anything else is refused, naming the flag", () => {
    for (const bad of ["yesterday", "25:00", "10x", "", "2026-13-45T99:00:00Z"]) expect(() => parseLogTime("--until", bad, now)).toThrow("--until: ");
  });
});

test("log_max sizes", () => {
  expect(parseSize("100M")).toBe(100 * 1024 * 1024);
  expect(parseSize("64 KiB")).toBe(65536);
  expect(parseSize("1g")).toBe(1024 ** 3);
  expect(parseSize(4096)).toBe(4096);
  expect(parseSize("lots")).toBeNull();
  expect(sizeWritten(100 * 1024 * 1024)).toBe("100M");
  expect(sizeWritten(65536)).toBe("64K");
});
