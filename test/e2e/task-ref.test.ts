// TASK references through the real CLI: a bare command word names the task running it, and an id
// names only that task (the rules themselves are test/unit/task-ref.test.ts).
import { describe, expect, test } from "bun:test";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";

describe("through the CLI", () => {
  let fleet: Fleet;
  eachTestGetsAFleet((f) => (fleet = f));

  test("a bare command word names the task running it, not the task whose name starts with it", async () => {
    const fake = await fleet.run("echo fake; sleep 600", ["--name", "cat-fake"]);
    const cat = await fleet.run("cat");
    const sleeper = await fleet.run("sleep 600");
    expect(await fleet.cli(["rename", "cat", "exact command"])).toEqual({ code: 0, stdout: `task ${cat} is now named 'exact command'\n`, stderr: "" });
    expect(await fleet.cli(["rename", "sleep", "leading word"])).toEqual({ code: 0, stdout: `task ${sleeper} is now named 'leading word'\n`, stderr: "" });
    const names = Object.fromEntries((await fleet.ls()).map((t) => [t.id, t.name]));
    expect(names).toEqual({ [fake]: "cat-fake", [cat]: "exact command", [sleeper]: "leading word" });
    const r = await fleet.cli(["rename", "ca", "x"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `fleetcom: 'ca' matches 2 tasks: ${fake} cat-fake, ${cat} exact command\n` });
  });

  test("kill of a removed task's id is refused and kills nothing, not the task whose name starts with that id", async () => {
    const gone = await fleet.run("sleep 1000", ["--name", "x"]);
    const api = await fleet.run("sleep 1000", ["--name", `${gone}-api`]);
    await fleet.ok(["kill", String(gone)]);
    await fleet.ok(["rm", String(gone)]);
    const r = await fleet.cli(["kill", String(gone)]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `fleetcom: no task ${gone} (tasks: ${api} ${gone}-api)\n` });
    expect((await fleet.task(api)).state).toBe("running");
    expect(await fleet.cli(["rename", `${gone}-api`, "reached by its name"])).toEqual({
      code: 0,
      stdout: `task ${api} is now named 'reached by its name'\n`,
      stderr: "",
    });
    expect((await fleet.task(api)).name).toBe("reached by its name");
  });
});
