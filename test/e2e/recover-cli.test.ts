// `fleetcom recover` through the real program: the list, damaged snapshots and usage errors, on
// snapshot files fabricated in the recovery directory (--latest and FILE: recover-latest).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Fleet } from "../harness/fleet.ts";
import { DEAD_PID, eachTestGetsARecoveryDir, type Fabricate, snapshotRecipe } from "../harness/recovery-helpers.ts";

let fleet: Fleet;
let dir: string;
let fabricate: Fabricate;
eachTestGetsARecoveryDir((f, d, fab) => {
  fleet = f;
  dir = d;
  fabricate = fab;
});

describe("recover --list", () => {
  test("with no snapshots it says so", async () => {
    const r = await fleet.cli(["recover", "--list"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`no recovery snapshots (in ${dir})`);
  });

  test("one row per snapshot, newest written first, damaged ones listed as damaged, strangers ignored", async () => {
    const older = snapshotRecipe(90, { "~": ["sleep 3600"] });
    const newer = snapshotRecipe(5, { "~": ["sleep 3600", { cmd: "sleep 3601", group: "g" }], "/srv": ["top"] });
    fabricate(DEAD_PID, 90, older);
    // Started earlier but written later: newest means most recently written.
    fabricate(DEAD_PID + 1, 5, newer, 120);
    const torn = fabricate(DEAD_PID + 2, 30, '{"version": 1, "name": "autosaved');
    writeFileSync(join(dir, "notes.json"), "{}");
    const r = await fleet.cli(["recover", "--list"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      `1  5m ago · 3 tasks · sleep 3600, sleep 3601, top · ${newer.name}`,
      `2  30m ago · damaged · ${join(dir, torn)}: invalid JSON at line 1, column 24: unterminated string`,
      `3  1h ago · 1 task · sleep 3600 · ${older.name}`,
      "fleetcom recover N loads the N-th (--dry-run shows it first); fleetcom recover opens the same list as a picker",
    ]);
  });

  test("recover N loads the N-th row of the list (issue 40, item 6); a number past it names the range", async () => {
    fabricate(DEAD_PID, 90, snapshotRecipe(90, { "~": ["sleep 3600 # the older"] }));
    fabricate(DEAD_PID + 1, 5, snapshotRecipe(5, { "~": ["sleep 3600 # the newer"] }));
    const dry = await fleet.cli(["recover", "2", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("sleep 3600 # the older");
    expect(dry.stdout).not.toContain("the newer");
    expect(await fleet.cli(["recover", "3"])).toEqual({ code: 1, stdout: "", stderr: "fleetcom: no snapshot 3: recover --list shows 1 to 2\n" });
    const loaded = await fleet.cli(["recover", "1"]);
    expect(loaded.code).toBe(0);
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 3600 # the newer"]);
  });

  test("--json gives the directory and, per snapshot, file, write time, label, counts and damage", async () => {
    const name = fabricate(DEAD_PID, 1, snapshotRecipe(1, { "/srv": ["top", 7] }));
    const bad = fabricate(DEAD_PID + 1, 2, "");
    const r = await fleet.cli(["recover", "--list", "--json"]);
    const out = JSON.parse(r.stdout);
    expect(out.dir).toBe(dir);
    expect(out.snapshots).toHaveLength(2);
    expect(out.snapshots[0]).toMatchObject({ file: join(dir, name), tasks: 1, finished: 0, labels: ["top"], dropped: 1, damaged: null, thisFleet: false });
    expect(out.snapshots[0].label).toMatch(/^autosaved /);
    expect(Date.parse(out.snapshots[0].written)).not.toBeNaN();
    expect(out.snapshots[1]).toMatchObject({ file: join(dir, bad), tasks: 0, label: null });
    expect(out.snapshots[1].damaged).toContain("invalid JSON");
  });
});

describe("recover usage", () => {
  // Without a flag or FILE it opens the picker (test/picker.test.ts), which needs a terminal.
  test("without a flag or FILE and without a terminal it says the picker needs one and exits 2", async () => {
    const r = await fleet.cli(["recover"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: recover without an argument (the picker) needs a terminal");
  });

  test("two of --latest, --list and FILE, or --dry-run with --list, are usage errors", async () => {
    for (const args of [
      ["--latest", "--list"],
      ["--list", "x.json"],
      ["--latest", "x.json"],
      ["--list", "--dry-run"],
    ]) {
      const r = await fleet.cli(["recover", ...args]);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
    }
  });
});
