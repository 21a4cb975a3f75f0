// The pure rules of recovery.md: snapshot names, labels, pruning and the write decision.
import { describe, expect, test } from "bun:test";
import {
  KEEP_OTHER_SNAPSHOTS,
  isSnapshotName,
  parseSnapshotName,
  shouldWriteSnapshot,
  snapshotFileName,
  snapshotLabel,
  snapshotsToPrune,
} from "../src/recovery.ts";

describe("snapshot file names", () => {
  test("a name is the supervisor's UTC start time, then its pid, as in the spec's example", () => {
    expect(snapshotFileName(new Date("2026-11-29T21:04:33.789Z"), 48213)).toBe("20261129T210433Z-48213.json");
  });

  test("the time is UTC whatever the local zone, zero-padded", () => {
    expect(snapshotFileName(new Date(Date.UTC(2027, 0, 2, 3, 4, 5)), 7)).toBe("20270102T030405Z-7.json");
  });

  test("a name parses back to its start time and pid", () => {
    const parsed = parseSnapshotName("20261129T210433Z-48213.json");
    expect(parsed?.startedAt.toISOString()).toBe("2026-11-29T21:04:33.000Z");
    expect(parsed?.pid).toBe(48213);
  });

  test("only the spec's pattern is a snapshot name", () => {
    const notSnapshots = [
      "20261129-210433-48213.json", // the older wording
      "20261129T210433Z-48213.json.tmp",
      ".fleetcom-123-abcdef.tmp",
      "20261129T210433-48213.json",
      "20261129T210433Z-.json",
      "20261129T210433Z-0.json",
      "20261129T210433Z-012.json",
      "20261329T210433Z-1.json", // month 13
      "20260231T210433Z-1.json", // 31 February
      "20261129T250433Z-1.json",
      "work.json",
      "notes.txt",
      "x20261129T210433Z-1.json",
    ];
    for (const name of notSnapshots) expect({ name, ok: isSnapshotName(name) }).toEqual({ name, ok: false });
    expect(isSnapshotName("20261129T210433Z-48213.json")).toBe(true);
  });
});

describe("snapshot labels", () => {
  test("the label is 'autosaved' and the UTC time of the write to the second", () => {
    expect(snapshotLabel(new Date("2026-11-29T21:04:33.999Z"))).toBe("autosaved 2026-11-29 21:04:33 UTC");
  });
});

describe("pruning", () => {
  const name = (minute: number, pid: number) => snapshotFileName(new Date(Date.UTC(2026, 10, 29, 10, minute, 0)), pid);
  const noneAlive = () => false;

  test("with ten or fewer snapshots nothing is deleted", () => {
    const names = Array.from({ length: 10 }, (_, i) => name(i, 1000 + i));
    expect(snapshotsToPrune(names, names[9]!, noneAlive)).toEqual([]);
  });

  test("of more than ten, the written file and the nine newest others survive", () => {
    const names = Array.from({ length: 15 }, (_, i) => name(i, 1000 + i));
    const written = names[14]!;
    expect(snapshotsToPrune(names, written, noneAlive).sort()).toEqual(names.slice(0, 5).sort());
  });

  test("the file just written survives even when it is the oldest name", () => {
    const names = Array.from({ length: 12 }, (_, i) => name(i, 1000 + i));
    const pruned = snapshotsToPrune(names, names[0]!, noneAlive);
    expect(pruned).not.toContain(names[0]);
    expect(pruned.sort()).toEqual([names[1]!, names[2]!].sort());
  });

  test("a file whose pid is alive is never deleted, however old, and does not count among the nine", () => {
    const own = process.pid;
    const live = [name(0, own), name(1, own)];
    const dead = Array.from({ length: 12 }, (_, i) => name(10 + i, 2_000_000 + i));
    const isAlive = (pid: number) => pid === own;
    const pruned = snapshotsToPrune([...live, ...dead], dead[11]!, isAlive);
    expect(pruned).not.toContain(live[0]);
    expect(pruned).not.toContain(live[1]);
    // 11 dead files besides the written one: the 9 newest survive, the 2 oldest go.
    expect(pruned.sort()).toEqual([dead[0]!, dead[1]!].sort());
  });

  test("names that do not follow the pattern are never touched", () => {
    const strangers = ["notes.txt", "20261129-100000-1.json", ".fleetcom-1-ab.tmp", "backup.json", "20261329T100000Z-1.json"];
    const snapshots = Array.from({ length: 14 }, (_, i) => name(i, 1000 + i));
    const pruned = snapshotsToPrune([...strangers, ...snapshots], snapshots[13]!, noneAlive);
    for (const stranger of strangers) expect(pruned).not.toContain(stranger);
    expect(pruned).toHaveLength(14 - 1 - KEEP_OTHER_SNAPSHOTS);
  });

  test("supervisors started in the same second are ordered by pid", () => {
    const names = Array.from({ length: 11 }, (_, i) => name(0, 100 + i));
    const written = snapshotFileName(new Date(Date.UTC(2026, 10, 29, 11, 0, 0)), 1);
    expect(snapshotsToPrune([...names, written], written, noneAlive)).toEqual([names[1]!, names[0]!]);
  });

  test("liveness is asked per pid, so a shared directory can hold more than ten snapshots", () => {
    const alive = new Set([11, 12, 13, 14]);
    const names = Array.from({ length: 14 }, (_, i) => name(i, i + 1));
    const pruned = snapshotsToPrune(names, names[13]!, (pid) => alive.has(pid));
    // Ten dead files besides the written one: only the oldest goes, and thirteen files stay.
    expect(pruned).toEqual([names[0]!]);
    expect(names.length - pruned.length).toBe(13);
  });
});

describe("whether a pass writes", () => {
  const pass = { file: "/r/20261129T210433Z-1.json", tasks: 2, body: "recipe A" };

  test("the first pass with tasks writes", () => {
    expect(shouldWriteSnapshot(pass, null, false)).toBe(true);
  });

  test("an unchanged recipe to an existing file is not written again", () => {
    expect(shouldWriteSnapshot(pass, { file: pass.file, body: pass.body }, true)).toBe(false);
  });

  test("changed content writes", () => {
    expect(shouldWriteSnapshot(pass, { file: pass.file, body: "recipe B" }, true)).toBe(true);
  });

  test("a changed destination writes", () => {
    expect(shouldWriteSnapshot(pass, { file: "/other/20261129T210433Z-1.json", body: pass.body }, true)).toBe(true);
  });

  test("a snapshot deleted by hand or pruned is written again", () => {
    expect(shouldWriteSnapshot(pass, { file: pass.file, body: pass.body }, false)).toBe(true);
  });

  test("an empty fleet never writes, so it never replaces the last snapshot", () => {
    const empty = { ...pass, tasks: 0, body: "empty" };
    expect(shouldWriteSnapshot(empty, null, false)).toBe(false);
    expect(shouldWriteSnapshot(empty, { file: pass.file, body: pass.body }, true)).toBe(false);
    expect(shouldWriteSnapshot(empty, { file: pass.file, body: pass.body }, false)).toBe(false);
  });
});
