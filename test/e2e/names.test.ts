// Names are not silently broken (issue 40, item 5): clearing a name or a group is asked for
// (`--clear` or "") and said; a name another running task holds is refused with the holder named
// (`--force` moves it); past 64 characters is refused, not cut; `tag --on/--off` end in one state.
import { expect, test } from "bun:test";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

test('rename and group with no value are refused and change nothing; --clear and "" clear, and say so', async () => {
  const id = await fleet.run("sleep 600", ["--name", "dev", "--group", "web"]);
  expect(await fleet.cli(["rename", "dev"])).toEqual({ code: 2, stdout: "", stderr: "fleetcom: rename: give a NAME, or --clear to remove dev's name\n" });
  expect(await fleet.cli(["group", "dev"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "fleetcom: group: give a GROUP, or --clear to take dev out of its group\n",
  });
  expect(await fleet.task(id)).toMatchObject({ name: "dev", group: "web" });
  expect(await fleet.cli(["group", "dev", "--clear"])).toEqual({ code: 0, stdout: `task ${id} is in no group now\n`, stderr: "" });
  expect(await fleet.cli(["rename", "dev", ""])).toEqual({ code: 0, stdout: `task ${id} has no name now\n`, stderr: "" });
  expect(await fleet.task(id)).toMatchObject({ name: null, group: null });
  expect((await fleet.cli(["rename", String(id), "--clear", "x"])).code).toBe(2);
});

test("a name a running task holds is refused, naming it; --force moves it; a finished task's name is free", async () => {
  const dev = await fleet.run("sleep 600", ["--name", "dev"]);
  const other = await fleet.run("sleep 601");
  expect(await fleet.cli(["rename", String(other), "dev"])).toEqual({
    code: 1,
    stdout: "",
    stderr: `fleetcom: task ${dev} is already named 'dev' (--force moves the name to task ${other})\n`,
  });
  expect((await fleet.task(other)).name).toBeNull();
  expect((await fleet.cli(["rename", String(other), "dev", "--force"])).stdout).toBe(`task ${other} is now named 'dev'\n`);
  expect([(await fleet.task(dev)).name, (await fleet.task(other)).name]).toEqual([null, "dev"]);
  const done = await fleet.run("true", ["--name", "once"]);
  await fleet.waitForExit(done);
  expect((await fleet.cli(["rename", String(dev), "once"])).code).toBe(0);
});

test("a name or group past 64 characters is refused whole, not cut", async () => {
  const id = await fleet.run("sleep 600", ["--name", "keep"]);
  expect(await fleet.cli(["rename", String(id), "n".repeat(65)])).toEqual({
    code: 1,
    stdout: "",
    stderr: "fleetcom: a name is at most 64 characters (this one has 65)\n",
  });
  expect((await fleet.cli(["group", String(id), "g".repeat(70)])).stderr).toBe("fleetcom: a group is at most 64 characters (this one has 70)\n");
  expect(await fleet.task(id)).toMatchObject({ name: "keep", group: null });
});

test("tag --on and --off end in one state however often they run; a bare tag still toggles", async () => {
  const id = String(await fleet.run("sleep 600"));
  for (let i = 0; i < 2; i++) expect((await fleet.cli(["tag", id, "--on"])).stdout).toBe(`tagged ${id}\n`);
  for (let i = 0; i < 2; i++) expect((await fleet.cli(["tag", id, "--off"])).stdout).toBe(`untagged ${id}\n`);
  expect((await fleet.cli(["tag", id])).stdout).toBe(`tagged ${id}\n`);
  expect((await fleet.cli(["tag", id, "--on", "--off"])).code).toBe(2);
});
