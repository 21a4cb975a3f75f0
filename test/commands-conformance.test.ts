// Rules of the Rust original and the spec that the conformance check found broken (issue 12): a
// task in a directory whose name is not UTF-8, a missing recipe file, a recipe bigger than a request,
// and the session picker's Ctrl-D and Ctrl-R on a hand-edited session whose `name` is not its stem.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, Fleet } from "./fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

describe("a recipe file that is not there", () => {
  test("is reported as no such file, by load, the dry run and recover", async () => {
    const missing = join(fleet.sandbox.home, "nothere.json");
    for (const args of [["load", missing], ["load", "--dry-run", missing], ["recover", "--dry-run", missing], ["recover", missing]]) {
      expect({ args, ...(await fleet.cli(args)) }).toEqual({ args, code: 1, stdout: "", stderr: `fleetcom: no such file: ${missing}\n` });
    }
    const relative = await fleet.cli(["load", "./nope"]);
    expect(relative.stderr).toEndWith("__nope.json; a recipe file is given by a path ending in .json)\n");
  });

  test("a recipe bigger than a request frame (one 5 MiB command) is one line naming the file, never a lost connection", async () => {
    const file = join(fleet.sandbox.home, "h.json");
    writeFileSync(file, JSON.stringify({ "/tmp": [`true ${"#".repeat(5 * 1024 * 1024)}`] }));
    expect(await fleet.cli(["load", file])).toEqual({ code: 1, stdout: "", stderr: `fleetcom: ${file}: command too long (5242885 bytes; at most 64 KiB) in /tmp\n` });
  });
});
