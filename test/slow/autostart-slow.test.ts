// Autostart on a loaded machine (issue 23, item 3): a daemon that takes longer than the client used
// to wait (8 s) to listen is followed, not reported as failed. FLEETCOM_TEST_START_DELAY_MS makes
// the daemon hold its lock that long before it loads and listens, as one starved of CPU does.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { daemonsOf, eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const slowStart = (ms: number) => ({ env: { FLEETCOM_TEST_START_DELAY_MS: String(ms) } });

/**
 * The daemon serving this fleet while it starts: its process holds the lock (its PID is in it) and
 * its socket is not there yet. (Before it takes the lock, Bun's own start-up, nothing can tell a
 * starting daemon from none.)
 */
function startingDaemon(): number | false {
  const daemons = daemonsOf(fleet.sandbox.runtime);
  const starting = daemons.length === 1 && fleet.daemonPid() === daemons[0] && !existsSync(join(fleet.sandbox.runtime, "default.sock"));
  return starting && daemons[0]!;
}

test("two clients autostarting a daemon that takes 10 s to listen both get their task run, by one daemon", async () => {
  const [first, second] = await Promise.all([
    fleet.cli(["run", "--name", "first", "--", "echo hi"], slowStart(10_000)),
    fleet.cli(["run", "--name", "second", "--", "echo hi"], slowStart(10_000)),
  ]);
  expect(first).toMatchObject({ code: 0, stderr: "" });
  expect(second).toMatchObject({ code: 0, stderr: "" });
  expect((await fleet.ls()).map((t) => t.name).sort()).toEqual(["first", "second"]);
  expect(daemonsOf(fleet.sandbox.runtime)).toEqual([fleet.daemonPid()!]);
});

test("on a terminal the client says it is starting the daemon, then does the command", async () => {
  fleet.env.FLEETCOM_TEST_START_DELAY_MS = "3000";
  const client = fleet.spawnClient(["run", "--name", "slow", "--", "echo hi"]);
  await client.waitForOutput("1\r\n");
  expect(await client.proc.exited).toBe(0);
  expect(client.output).toBe("fleetcom: starting the daemon…\r\n1\r\n");
  expect((await fleet.task(1)).name).toBe("slow");
});

test("--kill while the daemon is starting stops it, and the client waiting for it says so", async () => {
  const run = fleet.cli(["run", "--", "echo hi"], slowStart(30_000));
  const pid = await until("a daemon starting", startingDaemon);
  const kill = await fleet.cli(["--kill"]);
  expect(kill).toMatchObject({ code: 0, stdout: `stopped daemon ${pid}\n` });
  const waited = await run;
  expect(waited.code).toBe(3);
  expect(waited.stderr).toBe(`fleetcom: the daemon (pid ${pid}) was killed by SIGTERM before it listened; see ${fleet.sandbox.runtime}/daemon.log\n`);
});
