// Recovery snapshots as the writer makes them (recovery.md), in-process with a fake fleet: what a
// pass writes, when passes run, and what each write prunes. The daemon's own writes are in
// test/e2e/snapshots.test.ts. Writes are counted from the writer's log, never inferred from elapsed time.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshotFileName } from "../../src/recipe-snapshot-rules.ts";
import type { RecipeEntry } from "../../src/recipe.ts";
import { SnapshotWriter, type SnapshotSource } from "../../src/daemon-snapshots.ts";
import { until } from "../harness/fleet.ts";

const mode = (path: string) => statSync(path).mode & 0o777;

describe("the snapshot writer", () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function writer(entries: RecipeEntry[], settings: { debounceMs?: number; checkMs?: number } = {}) {
    root = mkdtempSync(join(tmpdir(), "fleetcom-snapshots-"));
    const log: string[] = [];
    const source: SnapshotSource = { startedAt: new Date("2026-11-29T21:04:33Z"), recipe: () => entries };
    const dir = join(root, "sessions", "recovery");
    const w = new SnapshotWriter(source, {
      dir,
      home: "/home/u",
      debounceMs: settings.debounceMs ?? 50,
      checkMs: settings.checkMs ?? 3_600_000,
      log: (m) => log.push(m),
    });
    const writes = () => log.filter((m) => m.startsWith("snapshot written ")).length;
    return { w, source, dir, log, writes };
  }

  const task = (cmd: string, dir = "/home/u/api"): RecipeEntry => ({ dir, cmd, group: null, name: null });

  test("a pass writes the recipe labelled with the write time to this supervisor's file, 0600 in a 0700 directory", () => {
    const { w, dir } = writer([task("cargo run"), { dir: "/srv", cmd: "top", group: "ops", name: "t" }]);
    w.pass();
    const file = join(dir, `20261129T210433Z-${process.pid}.json`);
    expect(w.file).toBe(file);
    const doc = JSON.parse(readFileSync(file, "utf8"));
    expect(doc.name).toMatch(/^autosaved \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(doc.dirs).toEqual({ "/srv": [{ cmd: "top", group: "ops", name: "t" }], "~/api": ["cargo run"] });
    expect(mode(file)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
  });

  test("an unchanged recipe is not written again, a changed one is", () => {
    const entries = [task("a")];
    const { w, writes } = writer(entries);
    w.pass();
    w.pass();
    expect(writes()).toBe(1);
    entries.push(task("b"));
    w.pass();
    expect(writes()).toBe(2);
  });

  test("an empty fleet writes nothing and leaves the last snapshot in place", () => {
    const entries = [task("a")];
    const { w, writes } = writer(entries);
    w.pass();
    const before = readFileSync(w.file, "utf8");
    entries.length = 0;
    w.pass();
    expect(writes()).toBe(1);
    expect(readFileSync(w.file, "utf8")).toBe(before);
  });

  test("an empty fleet from the start creates no file at all", () => {
    const { w, dir } = writer([]);
    w.pass();
    expect(existsSync(dir)).toBe(false);
  });

  test("a hundred changes in a burst end in one pass", async () => {
    const entries = [task("a")];
    const { w, writes } = writer(entries, { debounceMs: 200 });
    w.start();
    for (let i = 0; i < 100; i++) {
      entries[0] = task(`a ${i}`);
      w.changed();
    }
    await until("the pass after the burst", () => writes() === 1);
    w.stop(); // runs a pass only if one were still pending
    expect(writes()).toBe(1);
    expect(readFileSync(w.file, "utf8")).toContain('"a 99"');
  });

  test("changes that keep coming are still written: a burst never puts the pass off to its end", async () => {
    const entries = [task("a")];
    const { w, writes } = writer(entries, { debounceMs: 100 });
    w.start();
    let change = 0;
    const changes = setInterval(() => {
      entries[0] = task(`a ${change++}`);
      w.changed();
    }, 10);
    try {
      await until("a pass while the changes go on", () => writes() >= 1, 10_000);
    } finally {
      clearInterval(changes);
      w.stop();
    }
  });

  test("stopping runs the pending pass at once", () => {
    const { w, writes } = writer([task("a")], { debounceMs: 3_600_000 });
    w.start();
    w.changed();
    w.stop();
    expect(writes()).toBe(1);
  });

  test("a snapshot deleted by hand is written again at the next check", async () => {
    const { w, writes } = writer([task("a")], { checkMs: 50 });
    w.pass();
    w.start();
    unlinkSync(w.file);
    await until("the snapshot to be rewritten", () => existsSync(w.file));
    w.stop();
    expect(writes()).toBe(2);
  });

  test("each write prunes old snapshots of dead supervisors and leaves strangers alone", () => {
    const { w, dir } = writer([task("a")]);
    mkdirSync(dir, { recursive: true });
    const deadPid = 2 ** 22 + 7; // above Linux's largest pid_max: never alive
    const writtenAt = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, i));
    const old = Array.from({ length: 12 }, (_, i) => snapshotFileName(writtenAt(i), deadPid + i));
    // A live writer: a running process that started before the time in the name. Written first.
    const live = snapshotFileName(new Date(), process.ppid);
    const strangers = ["notes.txt", "20250101-000000-1.json", "my-backup.json"];
    for (const name of [...old, live, ...strangers]) writeFileSync(join(dir, name), "{}");
    old.forEach((name, i) => {
      utimesSync(join(dir, name), writtenAt(i), writtenAt(i));
    });
    utimesSync(join(dir, live), new Date(Date.UTC(2024, 0, 1)), new Date(Date.UTC(2024, 0, 1)));
    w.pass();
    const left = readdirSync(dir).sort();
    expect(left).toEqual([...old.slice(3), live, ...strangers, `20261129T210433Z-${process.pid}.json`].sort());
  });
});
