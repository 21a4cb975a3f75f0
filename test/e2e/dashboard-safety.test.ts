// The dashboard when things go wrong (ux.md, problems 5 and 6), in a real PTY: the daemon dies under
// it (it stays, says so, and `r` reconnects), the previous fleet was lost (the header says so and `L`
// recovers it), recovery snapshots fail (a line under the header while they do), another client
// removes the task it is about to kill (nothing else is killed).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rows, selectedRow } from "../harness/dashboard.ts";
import { type Fleet, type PtyClient, until } from "../harness/fleet.ts";
import { crashDaemon, killProcessGroups, processesWithMarker, recoveryDirOf, snapshotFleet, snapshotNames } from "../harness/recovery-helpers.ts";

let fleet: Fleet;
let marker: string;
beforeEach(() => {
  fleet = snapshotFleet();
  const id = crypto.randomUUID();
  marker = `FLEETCOM_TEST_MARKER=${id}`;
  fleet.env.FLEETCOM_TEST_MARKER = id;
});
afterEach(async () => {
  killProcessGroups(processesWithMarker(marker));
  await fleet.stop();
});

async function dashboard(): Promise<PtyClient> {
  const client = fleet.spawnClient([], { cols: 160, rows: 20 });
  await client.waitForScreen("the dashboard", (s) => s.startsWith("fleetcom") && /(\? help|\?:help)$/m.test(s));
  await client.waitForRawMode();
  return client;
}

/** SIGKILL the daemon once its snapshot holds `command`, and wait for its tasks to die with their PTYs. */
async function killDaemonAfterSnapshotOf(command: string): Promise<number> {
  const dir = recoveryDirOf(fleet);
  await until("the snapshot", () => snapshotNames(fleet).some((n) => readFileSync(join(dir, n), "utf8").includes(command)));
  return crashDaemon(fleet);
}

describe("when the daemon dies", () => {
  test("the dashboard stays and says so; r starts a daemon and reconnects; the lost fleet is offered as L", async () => {
    await fleet.run("sleep 3600", ["--name", "api"]);
    const client = await dashboard();
    await client.waitForScreen("the task", (s) => s.includes("api"));
    const old = await killDaemonAfterSnapshotOf("sleep 3600");
    const lost = await client.waitForScreen("the lost connection", (s) =>
      s.includes("lost the connection to the daemon — r reconnects (starting a daemon), q leaves"),
    );
    expect(lost).toContain("no tasks");
    expect(client.proc.exitCode).toBeNull();
    client.write("n"); // any other key does nothing while lost
    client.write("r");
    const back = await client.waitForScreen("reconnected", (s) => /reconnected to daemon \d+/.test(s));
    expect(fleet.daemonPid()).not.toBe(old);
    expect(back).not.toContain("lost the connection");
    expect(back.split("\n")[1]).toMatch(/^the previous fleet \(1 task, autosaved \d+s ago\) ended unexpectedly — L recovers it$/);
    expect(await fleet.ls()).toEqual([]);

    client.write("L");
    const recovered = await client.waitForScreen("the fleet back", (s) => s.includes("api") && s.includes("loaded 'autosaved"));
    expect(recovered).not.toContain("ended unexpectedly");
    expect(recovered).toContain("press w (or run fleetcom save NAME) to keep this fleet under a permanent name");
    expect((await fleet.ls()).map((t) => [t.name, t.state])).toEqual([["api", "running"]]);
    expect(JSON.parse(await fleet.ok(["status", "--json"])).crash).toBeNull();
    client.write("q");
    expect(await client.proc.exited).toBe(0);
  });

  test("while lost, a daemon started by another client is found again by itself (1, 2, 4, then every 8 s), no key pressed", async () => {
    await fleet.run("sleep 3600", ["--name", "api"]);
    const client = await dashboard();
    await client.waitForScreen("the task", (s) => s.includes("api"));
    await fleet.ok(["--kill"]);
    await client.waitForScreen("the lost connection", (s) => s.includes("lost the connection to the daemon"));
    // Another client starts a daemon (a service manager would too): the dashboard finds it on its own.
    await fleet.run("sleep 3600", ["--name", "web"]);
    const back = await client.waitForScreen("found again", (s) => /reconnected to daemon \d+/.test(s) && s.includes("web"));
    expect(back).not.toContain("lost the connection");
    expect(back).not.toContain("api");
  });

  test("q while the connection is lost leaves, saying the daemon had stopped", async () => {
    await fleet.run("sleep 3600");
    const client = await dashboard();
    await fleet.ok(["--kill"]);
    await client.waitForScreen("the lost connection", (s) => s.includes("lost the connection to the daemon"));
    client.write("q");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("[left: the daemon had stopped, no task is running]");
    expect(fleet.daemonPid()).toBeNull();
  });

  test("a dashboard opened after a crash names the lost fleet under its header", async () => {
    await fleet.run("sleep 3600", ["--name", "web"]);
    await fleet.run("sleep 3601", ["--name", "db"]);
    await killDaemonAfterSnapshotOf("sleep 3601");
    const client = await dashboard();
    const screen = await client.waitForScreen("the notice", (s) => s.includes("ended unexpectedly"));
    expect(screen.split("\n")[1]).toMatch(/^the previous fleet \(2 tasks, autosaved \d+s ago\) ended unexpectedly — L recovers it$/);
    // Told to the dashboard, so not again to the next command.
    expect((await fleet.cli(["ls"])).stderr).toBe("");
  });
});

describe("when recovery snapshots fail", () => {
  test("a line under the header says so for as long as they fail, and the status line when they work again", async () => {
    // A file where the recovery directory should be: every write fails until it goes.
    const sessions = join(fleet.sandbox.config, "sessions");
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, "recovery"), "");
    const id = await fleet.run("sleep 3600");
    const client = await dashboard();
    const failing = await client.waitForScreen("the failure", (s) =>
      /^recovery snapshots failing for \d+s: cannot prepare recovery directory .*recovery/m.test(s),
    );
    expect(failing.split("\n")[1]).toStartWith("recovery snapshots failing for ");
    client.write("j"); // a key clears the status line, not the notice
    await client.settled();
    expect(client.screen()).toContain("recovery snapshots failing for ");
    rmSync(join(sessions, "recovery"));
    await fleet.ok(["rename", String(id), "again"]);
    const fixed = await client.waitForScreen("written again", (s) => s.includes("recovery snapshots are written again"));
    expect(fixed).not.toContain("recovery snapshots failing");
  });
});

describe("when another client removes the task a question is about", () => {
  test("answering y to X kills nothing: not the task whose name starts with the removed id", async () => {
    const gone = await fleet.run("sleep 3600", ["--name", "x"]);
    const api = await fleet.run("sleep 3601", ["--name", `${gone}-api`]);
    const client = await dashboard();
    // A key at a time, each seen taken, as a person types: keys that come in one read are a paste.
    client.write(`${gone}`);
    await client.waitForScreen("the jump typed", (s) => s.includes(`go to task ${gone}`));
    client.write("\r");
    await client.waitForScreen("the task selected", (s) => /\bx\b/.test(selectedRow(s)) && !selectedRow(s).includes("-api") && !s.includes("go to task"));
    client.write("X");
    await client.waitForScreen("the question", (s) => s.includes("kill x? y/N"));
    await fleet.ok(["kill", String(gone)]);
    await fleet.ok(["rm", String(gone)]);
    client.write("y");
    const answered = await client.waitForScreen("the answer", (s) => s.includes(`killed task ${gone}`) || s.includes(`no task ${gone}`));
    // The bare line of an id the dashboard held, not the list a typed reference gets.
    expect(rows(answered)).toContain(`no task ${gone}`);
    expect((await fleet.task(api)).state).toBe("running");
  });
});
