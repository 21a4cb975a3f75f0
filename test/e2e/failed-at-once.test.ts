// Commands that die at once are reported (issue 40, item 4): run, load and recover watch what they
// started for a short moment and name each task that failed in it (a command not found, exit 127),
// with its last line, and exit 1; the task stays in the list for `logs`. A task that keeps running,
// or ends with 0, changes nothing. The moment is `run_check` in config.toml (FLEETCOM_RUN_CHECK over
// it): these tests take it as a user has it, not as the harness sets it for every other test (0, off).
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => {
  fleet = f;
  delete f.sandbox.env.FLEETCOM_RUN_CHECK;
});

test("run of a command not found prints its id, says it ended with 127 and its last line, and exits 1; the task stays", async () => {
  const r = await fleet.cli(["run", "--", "nosuchcmd-xyz", "--flag"]);
  const id = Number(r.stdout.trim());
  expect(r).toEqual({
    code: 1,
    stdout: `${id}\n`,
    stderr: expect.stringMatching(
      new RegExp(`^fleetcom: task ${id} \\(nosuchcmd-xyz --flag\\) exited 127 at once: .*nosuchcmd-xyz: .*not found \\(fleetcom logs ${id}\\)\\n$`),
    ),
  });
  expect((await fleet.task(id)).exitCode).toBe(127);
  // One that fails quickly with its own code is said too; one that runs on, or succeeds, is not.
  const three = await fleet.cli(["run", "--", "echo broken config; exit 3"]);
  expect(three.code).toBe(1);
  expect(three.stderr).toMatch(/exited 3 at once: broken config \(fleetcom logs \d+\)\n$/);
  expect(await fleet.cli(["run", "--", "sleep 3600"])).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\n$/), stderr: "" });
  expect((await fleet.cli(["run", "--", "true"])).code).toBe(0);
});

test("load and recover say each task that failed at once and exit 1, the summary still printed", async () => {
  const dir = join(fleet.sandbox.root, "proj");
  mkdirSync(dir);
  const file = join(fleet.sandbox.root, "r.json");
  writeFileSync(file, JSON.stringify({ version: 1, dirs: { [dir]: ["sleep 3600", "claude-not-on-path-xyz", "exit 0"] } }));
  const loaded = await fleet.cli(["load", file]);
  expect(loaded.code).toBe(1);
  expect(loaded.stdout).toStartWith("loaded 'r': 3 task(s)");
  expect(loaded.stderr).toMatch(/^fleetcom: task \d+ \(claude-not-on-path-xyz\) exited 127 at once: .*not found \(fleetcom logs \d+\)\n$/);
  const snapshot = join(fleet.sandbox.root, "snap.json");
  writeFileSync(snapshot, JSON.stringify({ version: 1, dirs: { [dir]: [{ cmd: "exec /nonexistent/agent.sh" }] } }));
  const recovered = await fleet.cli(["recover", snapshot]);
  expect(recovered.code).toBe(1);
  expect(recovered.stderr).toMatch(/^fleetcom: task \d+ \(exec \/nonexistent\/agent\.sh\) exited 12[67] at once: .*\/nonexistent\/agent\.sh.*\n$/);
});

test("run_check = 0 in config.toml turns the check off: run answers with the id and exit 0, whatever the task does", async () => {
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), "run_check = 0\n");
  const r = await fleet.cli(["run", "--", "nosuchcmd-xyz"]);
  expect(r).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\n$/), stderr: "" });
  expect(await fleet.ok(["config"])).toMatch(/^run_check +off +config\.toml:1$/m);
  // The variable is over the file, as for every setting.
  const checked = await fleet.cli(["run", "--", "nosuchcmd-xyz"], { env: { FLEETCOM_RUN_CHECK: "300ms" } });
  expect(checked.code).toBe(1);
  expect(checked.stderr).toMatch(/exited 127 at once/);
});

test("a longer run_check catches a program that takes longer to fail; a bad one is named with its line and the default used", async () => {
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), 'run_check = "4s"\n');
  const late = await fleet.cli(["run", "--", "sleep 0.5; echo refused the port; exit 4"]);
  expect(late.code).toBe(1);
  expect(late.stderr).toMatch(/exited 4 at once: refused the port \(fleetcom logs \d+\)\n$/);
  expect(await fleet.ok(["config"])).toMatch(/^run_check +4s +config\.toml:1$/m);
  writeFileSync(join(fleet.sandbox.config, "config.toml"), '# the moment\nrun_check = "soon"\n');
  const bad = await fleet.cli(["run", "--", "nosuchcmd-xyz"]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toStartWith(
    `fleetcom: warning: ${join(fleet.sandbox.config, "config.toml")}:2: run_check: expected a moment such as "0.3s", "300ms" or 0 (off), got "soon"; using 0.3s\n`,
  );
  expect(bad.stderr).toMatch(/exited 127 at once/);
  expect((await fleet.cli(["run", "--", "true"], { env: { FLEETCOM_RUN_CHECK: "10s" } })).stderr).toStartWith(
    "fleetcom: warning: FLEETCOM_RUN_CHECK: 10s is longer than the most, 5s; using 0.3s\n",
  );
});
