// How the daemon numbers tasks (daemon-task-ids.ts): a recovered task keeps its recorded id when it
// is free, a taken one gets a fresh id, and the counter never falls back onto an id in use; and how a
// recovery snapshot records the ids (recipe.ts) that a recovery sends and a session load does not.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskIds } from "../../src/daemon-task-ids.ts";
import { formatRecipe, parseRecipe } from "../../src/recipe.ts";
import { loadRecipe } from "../../src/recipe-sessions.ts";
import { latestSnapshot } from "../../src/recipe-snapshots.ts";
import { entry } from "../harness/helpers.ts";

/** Assigns each wanted id in turn, as a load spawns its entries, against the ids in use so far. */
function assignAll(ids: TaskIds, wanted: (number | undefined)[], inUse: number[] = []): number[] {
  const used = new Set(inUse);
  return wanted.map((w) => {
    const id = ids.assign(w, (n) => used.has(n));
    used.add(id);
    return id;
  });
}

describe("task ids", () => {
  test("fresh ids count up from 1", () => {
    expect(assignAll(new TaskIds(), [undefined, undefined, undefined])).toEqual([1, 2, 3]);
  });

  test("a free recorded id is kept, gaps and order as recorded, and the next fresh id is above them all", () => {
    const ids = new TaskIds();
    expect(assignAll(ids, [5, 3, 67])).toEqual([5, 3, 67]);
    expect(ids.assign(undefined, () => false)).toBe(68);
  });

  test("a taken id gets a fresh id above every id the load recorded, so it takes no later entry's", () => {
    const ids = new TaskIds();
    expect(assignAll(ids, [undefined, undefined])).toEqual([1, 2]);
    ids.reserve([1, 2, 5]);
    expect(assignAll(ids, [1, 2, 5], [1, 2])).toEqual([6, 7, 5]);
  });

  test("the same id recorded twice is kept once; the second entry gets a fresh id", () => {
    const ids = new TaskIds();
    ids.reserve([4, 4]);
    expect(assignAll(ids, [4, 4])).toEqual([4, 5]);
  });

  test("a removed task's id is free again for a recovery, but never for a fresh id", () => {
    const ids = new TaskIds();
    expect(assignAll(ids, [undefined, undefined])).toEqual([1, 2]);
    // Task 1 was removed: a recovery that recorded it gets it back; a new run does not.
    expect(ids.assign(1, (n) => n === 2)).toBe(1);
    expect(ids.assign(undefined, (n) => n <= 2)).toBe(3);
  });
});

describe("recorded ids in a recipe", () => {
  const ctx = { home: "/home/u", cwd: "/home/u" };

  test("a snapshot entry's id is written and read back; an entry without one is written as before", () => {
    const text = formatRecipe("autosaved", [{ dir: "/home/u", cmd: "make", group: null, name: null, id: 4 }, entry("/home/u", "top")], "/home/u");
    expect(JSON.parse(text).dirs["~"]).toEqual([{ cmd: "make", id: 4 }, "top"]);
    expect(parseRecipe(text, "f", ctx).entries.map((e) => e.id)).toEqual([4, undefined]);
  });

  test("an id that is not a task id is ignored, the entry kept: its task gets a fresh id", () => {
    const ids = [0, -3, 1.5, "4", null, 2 ** 31, 2 ** 53, 7];
    const text = JSON.stringify({ version: 1, name: "n", dirs: { "/w": ids.map((id) => ({ cmd: "a", id })) } });
    const parsed = parseRecipe(text, "f", ctx);
    expect(parsed.dropped).toBe(0);
    expect(parsed.entries.map((e) => e.id)).toEqual([...ids.slice(0, -1).map(() => undefined), 7]);
  });

  test("recover sends the recorded ids; a load of the same file as a session sends none", () => {
    const root = mkdtempSync(join(tmpdir(), "fleetcom-ids-"));
    try {
      const recovery = join(root, "sessions", "recovery");
      mkdirSync(recovery, { recursive: true });
      const file = join(recovery, "20261129T210433Z-48213.json");
      writeFileSync(
        file,
        JSON.stringify({
          version: 1,
          name: "autosaved",
          dirs: {
            [root]: [
              { cmd: "a", id: 4 },
              { cmd: "b", id: 67, history: "67" },
            ],
          },
        }),
      );
      const env = { FLEETCOM_CONFIG_DIR: root, HOME: root };
      expect(latestSnapshot(null, env, root).entries.map((e) => e.id)).toEqual([4, 67]);
      expect(loadRecipe(file, root, env).entries.map((e) => "id" in e || "history" in e)).toEqual([false, false]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
