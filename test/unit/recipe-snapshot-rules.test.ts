// The pure rules of recovery.md: snapshot names, labels, pruning, the write decision and when a pass runs.
import { describe, expect, test } from "bun:test";
import {
  KEEP_OTHER_SNAPSHOTS,
  WRITER_START_SLACK_MS,
  compareSnapshotsNewestFirst,
  couldBeWriter,
  isSnapshotName,
  parseSnapshotName,
  shouldWriteSnapshot,
  snapshotFileName,
  snapshotLabel,
  snapshotPassDue,
  snapshotsToPrune,
  type SnapshotUrgency,
} from "../../src/recipe-snapshot-rules.ts";

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
  const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);
  const name = (minute: number, pid: number) => snapshotFileName(new Date(T0 + minute * 60_000), pid);
  // Most files are written the minute their supervisor starts; `written` overrides that.
  const file = (minute: number, pid: number, writtenMinute = minute) => ({ name: name(minute, pid), writtenMs: T0 + writtenMinute * 60_000 + 1_000 });
  const noneAlive = () => false;

  test("with ten or fewer snapshots nothing is deleted", () => {
    const files = Array.from({ length: 10 }, (_, i) => file(i, 1000 + i));
    expect(snapshotsToPrune(files, files[9]!.name, noneAlive)).toEqual([]);
  });

  test("of more than ten, the written file and the nine most recently written others survive", () => {
    const files = Array.from({ length: 15 }, (_, i) => file(i, 1000 + i));
    const written = files[14]!.name;
    expect(snapshotsToPrune(files, written, noneAlive).sort()).toEqual(
      files
        .slice(0, 5)
        .map((f) => f.name)
        .sort(),
    );
  });

  test("the file just written survives even when it is the oldest name", () => {
    const files = Array.from({ length: 12 }, (_, i) => file(i, 1000 + i));
    const pruned = snapshotsToPrune(files, files[0]!.name, noneAlive);
    expect(pruned).not.toContain(files[0]!.name);
    expect(pruned.sort()).toEqual([files[1]!.name, files[2]!.name].sort());
  });

  test("a crashed long-lived supervisor's snapshot survives ten younger supervisors that came and went", () => {
    // The field report's H4: the fleet started at minute 0, ten supervisors started and died after
    // it, the fleet's daemon wrote its snapshot at minute 30 and crashed; a new one writes at 31.
    const crashed = file(0, 5983, 30);
    const younger = Array.from({ length: 10 }, (_, i) => file(1 + i, 7000 + i));
    const fresh = file(31, 9001);
    const pruned = snapshotsToPrune([crashed, ...younger, fresh], fresh.name, noneAlive);
    expect(pruned).not.toContain(crashed.name);
    // Eleven candidates besides the written file: the two written longest ago go.
    expect(pruned.sort()).toEqual([younger[0]!.name, younger[1]!.name].sort());
  });

  test("most recently written wins over newest name, whatever the names say", () => {
    // Names newest-first are the reverse of the writes: the oldest names were written last.
    const files = Array.from({ length: 12 }, (_, i) => file(i, 1000 + i, 100 - i));
    const written = files[0]!.name;
    expect(snapshotsToPrune(files, written, noneAlive).sort()).toEqual([files[10]!.name, files[11]!.name].sort());
  });

  test("the newest order is by write time, then by name", () => {
    const a = file(5, 1, 20);
    const b = file(6, 2, 10);
    const sameWrite = [file(1, 7, 30), file(2, 3, 30)];
    const sorted = [b, ...sameWrite, a].sort(compareSnapshotsNewestFirst).map((f) => f.name);
    expect(sorted).toEqual([sameWrite[1]!.name, sameWrite[0]!.name, a.name, b.name]);
  });

  test("a file whose writer is live is never deleted, however old, and does not count among the nine", () => {
    const own = process.pid;
    const live = [file(0, own), file(1, own)];
    const dead = Array.from({ length: 12 }, (_, i) => file(10 + i, 2_000_000 + i));
    const pruned = snapshotsToPrune([...live, ...dead], dead[11]!.name, (s) => s.pid === own);
    expect(pruned).not.toContain(live[0]!.name);
    expect(pruned).not.toContain(live[1]!.name);
    // 11 dead files besides the written one: the 9 newest survive, the 2 oldest go.
    expect(pruned.sort()).toEqual([dead[0]!.name, dead[1]!.name].sort());
  });

  test("names that do not follow the pattern are never touched", () => {
    const strangers = ["notes.txt", "20261129-100000-1.json", ".fleetcom-1-ab.tmp", "backup.json", "20261329T100000Z-1.json"].map((n) => ({
      name: n,
      writtenMs: 0,
    }));
    const snapshots = Array.from({ length: 14 }, (_, i) => file(i, 1000 + i));
    const pruned = snapshotsToPrune([...strangers, ...snapshots], snapshots[13]!.name, noneAlive);
    for (const stranger of strangers) expect(pruned).not.toContain(stranger.name);
    expect(pruned).toHaveLength(14 - 1 - KEEP_OTHER_SNAPSHOTS);
  });

  test("files written in the same millisecond are ordered by name: start time, then pid", () => {
    const files = Array.from({ length: 11 }, (_, i) => ({ name: name(0, 100 + i), writtenMs: T0 }));
    const written = name(60, 1);
    expect(snapshotsToPrune([...files, { name: written, writtenMs: T0 + 1 }], written, noneAlive)).toEqual([files[1]!.name, files[0]!.name]);
  });

  test("liveness is asked per file, so a shared directory can hold more than ten snapshots", () => {
    const alive = new Set([11, 12, 13, 14]);
    const files = Array.from({ length: 14 }, (_, i) => file(i, i + 1));
    const pruned = snapshotsToPrune(files, files[13]!.name, (s) => alive.has(s.pid));
    // Ten dead files besides the written one: only the oldest goes, and thirteen files stay.
    expect(pruned).toEqual([files[0]!.name]);
    expect(files.length - pruned.length).toBe(13);
  });
});

describe("whose file a running PID is", () => {
  const snapshot = parseSnapshotName("20261129T100000Z-4242.json")!;
  const named = snapshot.startedAt.getTime();

  test("a process that started before the name's start time (or within its second) is the writer", () => {
    expect(couldBeWriter(snapshot, named - 5_000)).toBe(true);
    expect(couldBeWriter(snapshot, named + 999)).toBe(true);
  });

  test("a process that started well after the name's start time got a reused PID", () => {
    expect(couldBeWriter(snapshot, named + 60_000)).toBe(false);
    expect(couldBeWriter(snapshot, named + WRITER_START_SLACK_MS + 1)).toBe(false);
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

describe("when a pass runs", () => {
  const DELAY = 2_000;

  /** A fake clock: the changes at these times (ms), and the times the passes ran. */
  function passes(changes: { at: number; urgency?: SnapshotUrgency }[], until: number): number[] {
    const ran: number[] = [];
    let due: number | null = null;
    let next = 0;
    for (let now = 0; now <= until; now++) {
      while (next < changes.length && changes[next]!.at === now) due = snapshotPassDue(due, now, changes[next++]!.urgency ?? "soon", DELAY);
      if (due !== null && now >= due) {
        ran.push(now);
        due = null;
      }
    }
    return ran;
  }

  test("a burst ends in one pass, the delay after its first change", () => {
    expect(passes([{ at: 100 }, { at: 150 }, { at: 1_900 }], 10_000)).toEqual([2_100]);
  });

  test("changes that never stop still write every delay: a long load is not put off to its end", () => {
    const everyTenMs = Array.from({ length: 500 }, (_, i) => ({ at: i * 10 }));
    expect(passes(everyTenMs, 10_000)).toEqual([2_000, 4_010, 6_020]);
  });

  test("a load just accepted is written at once, and changes after it wait for the next pass", () => {
    expect(passes([{ at: 100 }, { at: 500, urgency: "now" }, { at: 600 }], 10_000)).toEqual([500, 2_600]);
  });

  test("a later change never moves a pending pass later", () => {
    expect(snapshotPassDue(1_000, 900, "soon", DELAY)).toBe(1_000);
    expect(snapshotPassDue(null, 900, "soon", DELAY)).toBe(2_900);
    expect(snapshotPassDue(5_000, 900, "now", DELAY)).toBe(900);
  });
});
