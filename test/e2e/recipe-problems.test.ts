// Recipes say why they drop an entry (issue 40, item 1): the report's three files through the
// binary. Each dropped or doubtful entry is one line naming the file, directory, index and member,
// with the member meant; the dry run and the real load agree; an empty command is refused as
// `run -- ''` is, and nothing nameless starts; a member it does not know is a warning, and the entry loads.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

function recipes(): string {
  const dir = join(fleet.sandbox.root, "recipes");
  mkdirSync(dir);
  writeFileSync(join(dir, "wrong-key.json"), '{ "version": 1, "dirs": { ".": [ { "command": "echo hi" } ] } }');
  writeFileSync(join(dir, "typo-field.json"), '{ "version": 1, "dirs": { ".": [ { "cmd": "echo hi", "grup": "x" } ] } }');
  writeFileSync(join(dir, "empty-cmd.json"), '{ "version": 1, "dirs": { ".": [ { "cmd": "" } ] } }');
  return dir;
}

test("a mistyped cmd: the member and the one meant are named, and --dry-run and load both exit 1", async () => {
  const dir = recipes();
  const file = join(dir, "wrong-key.json");
  const said = [
    `fleetcom: ${file}: dirs["."][0]: unknown member "command" (did you mean "cmd"?); dropped`,
    `fleetcom: nothing to load: ${file} holds no command (1 dropped, each said above)`,
    "",
  ].join("\n");
  expect(await fleet.cli(["load", "--dry-run", "./wrong-key.json"], { cwd: dir })).toEqual({ code: 1, stdout: "", stderr: said });
  expect(await fleet.cli(["load", "./wrong-key.json"], { cwd: dir })).toEqual({ code: 1, stdout: "", stderr: said });
});

test("a mistyped member is a warning naming it; the entry loads", async () => {
  const dir = recipes();
  const dry = await fleet.cli(["load", "--dry-run", "./typo-field.json"], { cwd: dir });
  expect(dry.code).toBe(0);
  expect(dry.stderr).toBe(`fleetcom: ${join(dir, "typo-field.json")}: dirs["."][0]: unknown member "grup" (did you mean "group"?); ignored\n`);
  expect(dry.stdout).toContain("    echo hi\n");
  const { problems } = JSON.parse((await fleet.cli(["load", "--dry-run", "--json", "./typo-field.json"], { cwd: dir })).stdout);
  expect(problems).toEqual([`${join(dir, "typo-field.json")}: dirs["."][0]: unknown member "grup" (did you mean "group"?); ignored`]);
});

test("an empty command is refused with its place, and no nameless task starts", async () => {
  const dir = recipes();
  const r = await fleet.cli(["load", "./empty-cmd.json"], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stderr).toStartWith(`fleetcom: ${join(dir, "empty-cmd.json")}: dirs["."][0]: empty command (as run -- '' is refused); dropped\n`);
  expect(fleet.daemonPid()).toBeNull();
});
