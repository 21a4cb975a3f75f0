// `fleetcom --kill`, and `kill`/`rm --force` of a group or of every task, from a terminal ask before they
// stop running tasks, as Q and X do in the dashboard (test/dashboard.test.ts); --yes, a script's stdin or
// `confirm = false` are never asked.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

describe("fleetcom --kill", () => {
  test("from a terminal with tasks running it asks; n (or Enter) keeps everything and exits 1; y stops", async () => {
    await fleet.run("sleep 3600");
    await fleet.run("sleep 3601");
    const daemon = fleet.daemonPid();
    for (const answer of ["n\r", "\r"]) {
      const declined = fleet.spawnClient(["--kill"]);
      await declined.waitForScreen("the question", (s) => s.includes("fleetcom: stop 2 tasks and the daemon? y/N"));
      declined.write(answer);
      expect(await declined.proc.exited).toBe(1);
      expect(declined.output).toContain(`nothing stopped: daemon ${daemon} and its 2 running task(s) carry on`);
      expect((await fleet.ls()).map((t) => t.state)).toEqual(["running", "running"]);
    }
    const accepted = fleet.spawnClient(["--kill"]);
    await accepted.waitForScreen("the question", (s) => s.includes("stop 2 tasks and the daemon? y/N"));
    accepted.write("y\r");
    expect(await accepted.proc.exited).toBe(0);
    expect(accepted.output).toContain(`stopped daemon ${daemon}`);
    expect(fleet.daemonPid()).toBeNull();
  });

  test("--yes does not ask, from a terminal either", async () => {
    await fleet.run("sleep 3600");
    const client = fleet.spawnClient(["--kill", "--yes"]);
    expect(await client.proc.exited).toBe(0);
    expect(client.output).not.toContain("y/N");
    expect(fleet.daemonPid()).toBeNull();
  });

  test("a script (stdin not a terminal) is never asked", async () => {
    await fleet.run("sleep 3600");
    const r = await fleet.cli(["--kill"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(/^stopped daemon \d+\n$/);
  });

  test("nothing running, or confirm = false in the config file: no question", async () => {
    const done = await fleet.run("true");
    await fleet.waitForExit(done);
    const idle = fleet.spawnClient(["--kill"]);
    expect(await idle.proc.exited).toBe(0);
    expect(idle.output).not.toContain("y/N");
    mkdirSync(fleet.sandbox.config, { recursive: true });
    writeFileSync(join(fleet.sandbox.config, "config.toml"), "confirm = false\n");
    await fleet.run("sleep 3600");
    const off = fleet.spawnClient(["--kill"]);
    expect(await off.proc.exited).toBe(0);
    expect(off.output).not.toContain("y/N");
  });

  test("--yes alone, or --kill with another word, is a usage error", async () => {
    expect(await fleet.cli(["--yes"])).toMatchObject({ code: 2, stderr: "fleetcom: --yes goes with --kill (see fleetcom --help)\n" });
    expect(await fleet.cli(["--kill", "now"])).toMatchObject({ code: 2, stderr: "fleetcom: --kill takes no arguments (see fleetcom --help)\n" });
  });
});

describe("kill and rm of a group or of every task", () => {
  test("from a terminal they ask before killing; n keeps everything and exits 1, y or --yes goes ahead", async () => {
    await fleet.run("sleep 3600", ["--name", "api", "--group", "backend"]);
    await fleet.run("sleep 3601", ["--name", "worker", "--group", "backend"]);
    const declined = fleet.spawnClient(["kill", "--all"]);
    await declined.waitForScreen("the question", (s) => s.includes("fleetcom: kill 2 running tasks (api, worker)? y/N"));
    declined.write("n\r");
    expect(await declined.proc.exited).toBe(1);
    expect(declined.output).toContain("nothing killed");
    expect((await fleet.ls()).map((t) => t.state)).toEqual(["running", "running"]);

    const accepted = fleet.spawnClient(["rm", "--force", "-g", "backend"]);
    await accepted.waitForScreen("the question", (s) => s.includes("fleetcom: kill and remove 2 running tasks of group 'backend' (api, worker)? y/N"));
    accepted.write("y\r");
    expect(await accepted.proc.exited).toBe(0);
    expect(accepted.output).toContain("removed 2 tasks of group 'backend'");
    expect(await fleet.ls()).toEqual([]);

    await fleet.run("sleep 3602");
    const yes = fleet.spawnClient(["kill", "--all", "--yes"]);
    expect(await yes.proc.exited).toBe(0);
    expect(yes.output).not.toContain("y/N");
    expect((await fleet.ls()).map((t) => t.state)).toEqual(["exited"]);
  });
});
