import { describe, expect, test } from "bun:test";
import { changesCell, parseNumstat } from "../../src/text-changes.ts";

describe("parseNumstat", () => {
  test("text files' lines are summed and every file counted", () => {
    expect(parseNumstat("3\t1\tsrc/a.ts\0" + "10\t0\tnew file.txt\0")).toEqual({ files: 2, insertions: 13, deletions: 1 });
  });
  test("a binary file counts as a file with no lines", () => {
    expect(parseNumstat("-\t-\tlogo.png\0" + "1\t2\tb\0")).toEqual({ files: 2, insertions: 1, deletions: 2 });
  });
  test("a rename's two paths are not read as records of their own", () => {
    expect(parseNumstat("0\t0\t\0old\tname\0new\tname\0" + "4\t4\tc\0")).toEqual({ files: 2, insertions: 4, deletions: 4 });
  });
  test("a path holding a tab or a newline stays one file", () => {
    expect(parseNumstat("1\t1\ta\tb\nc\0")).toEqual({ files: 1, insertions: 1, deletions: 1 });
  });
  test("nothing changed, or output that is not numstat, is no change", () => {
    expect(parseNumstat("")).toEqual({ files: 0, insertions: 0, deletions: 0 });
    expect(parseNumstat("fatal: bad object\n")).toEqual({ files: 0, insertions: 0, deletions: 0 });
  });
});

describe("changesCell", () => {
  test("a task with changes shows its lines added and removed; none, or outside a repository, shows nothing", () => {
    expect(changesCell({ files: 3, insertions: 120, deletions: 14 })).toBe("+120 −14");
    expect(changesCell({ files: 1, insertions: 0, deletions: 0 })).toBe("+0 −0");
    expect(changesCell({ files: 0, insertions: 0, deletions: 0 })).toBe("");
    expect(changesCell(null)).toBe("");
  });
});
