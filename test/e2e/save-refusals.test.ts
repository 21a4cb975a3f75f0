// `fleetcom save`'s refusals against the real daemon: an empty fleet, a name that collides, an empty
// name; and the file it writes (overwritten on purpose, 0600 in a 0700 directory).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet } from "../harness/fleet.ts";

let fleet: Fleet;
beforeEach(() => {
  fleet = new Fleet();
});
afterEach(async () => await fleet.stop());

const sessionsDir = () => join(fleet.sandbox.config, "sessions");

describe("save refusals", () => {
  test("saving an empty fleet is refused and writes nothing", async () => {
    await fleet.run("true", ["--name", "gone"]);
    await fleet.waitForExit(1);
    await fleet.ok(["rm", "gone"]);
    const r = await fleet.cli(["save", "nothing"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("fleetcom: cannot save 'nothing': the fleet is empty, there is nothing to relaunch");
    expect(existsSync(join(sessionsDir(), "nothing.json"))).toBe(false);
  });

  test("with no daemon running, save says so and starts none", async () => {
    const r = await fleet.cli(["save", "nothing"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("fleetcom: no daemon is running: nothing to save\n");
    expect(fleet.daemonPid()).toBeNull();
    expect((await fleet.cli(["status"])).stdout).toBe("not running\n");
    expect(existsSync(join(sessionsDir(), "nothing.json"))).toBe(false);
  });

  test("a name that shares a file with another stored session is refused, naming both", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "a/b"]);
    const before = readFileSync(join(sessionsDir(), "a_b.json"), "utf8");
    const r = await fleet.cli(["save", "a.b"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`fleetcom: cannot save 'a.b': 'a.b' and 'a/b' share the file ${join(sessionsDir(), "a_b.json")}; choose another name`);
    expect(readFileSync(join(sessionsDir(), "a_b.json"), "utf8")).toBe(before);
  });

  test("saving under the same name again overwrites with the fleet as it is now", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "again"]);
    await fleet.run("sleep 3601");
    const r = await fleet.ok(["save", "again"]);
    expect(r).toContain("saved 'again': 2 task(s)");
    expect(JSON.parse(readFileSync(join(sessionsDir(), "again.json"), "utf8")).dirs["~"]).toEqual(["sleep 3600", "sleep 3601"]);
  });

  test("an empty name is a usage error", async () => {
    const r = await fleet.cli(["save", "  "]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: a session name cannot be empty");
  });

  test("save writes the session file 0600 in a 0700 directory", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "modes"]);
    const mode = (path: string) => Bun.spawnSync(["stat", "-c", "%a", path]).stdout.toString().trim();
    expect(mode(sessionsDir())).toBe("700");
    expect(mode(join(sessionsDir(), "modes.json"))).toBe("600");
  });
});
