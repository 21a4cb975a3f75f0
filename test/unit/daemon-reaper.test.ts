// The watcher that ends a task's processes when the daemon dies (daemon-reaper.ts), run as the
// daemon runs it: /bin/sh reading its pipe. Real process groups stand for the tasks. At the end of
// its input it kills a group only on the proof daemon-process-group.ts demands: the leader with the
// start time it was told, or, the leader gone, a live member of the leader's session started no
// earlier. A leader PID with another start time (a reused number) is left alone.
import { afterEach, describe, expect, test } from "bun:test";
import { REAPER_SCRIPT } from "../../src/daemon-reaper.ts";
import { isProcessAlive } from "../../src/platform.ts";
import { readProcStat } from "../../src/proc.ts";
import { until } from "../harness/fleet.ts";

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  }
});

/** A process group of its own that ignores SIGHUP, SIGTERM and SIGINT: its leader's PID, and a child's when asked. */
async function ignoringGroup(leaderExits = false): Promise<{ leader: number; child: number }> {
  const script = leaderExits ? "trap '' HUP TERM INT; sleep 300 & echo $!; exit 0" : "trap '' HUP TERM INT; sleep 300 & echo $!; wait";
  const proc = Bun.spawn(["setsid", "/bin/sh", "-c", script], { stdout: "pipe" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  const child = Number(new TextDecoder().decode(value).trim());
  // setsid(1) forks when it already leads a group; the group is the child's session's.
  const leader = readProcStat(child)!.session;
  started.push(leader);
  if (leaderExits) await until("the leader to be reaped", () => readProcStat(leader) === null);
  return { leader, child };
}

/** Runs the watcher with these lines, then closes its input as a dying daemon does. */
async function reap(lines: string[]): Promise<void> {
  const watcher = Bun.spawn(["/bin/sh", "-c", REAPER_SCRIPT], { stdin: "pipe" });
  for (const line of lines) watcher.stdin.write(`${line}\n`);
  await watcher.stdin.end();
  expect(await watcher.exited).toBe(0);
}

describe("the task reaper, once the daemon's end of its pipe closes", () => {
  test("kills a group whose leader has the start time it was told, leader and child", async () => {
    const { leader, child } = await ignoringGroup();
    await reap([`+ ${leader} ${readProcStat(leader)!.start}`]);
    await until("both to end", () => !isProcessAlive(child) && (readProcStat(leader)?.state ?? "Z") === "Z");
  });

  test("leaves alone a group whose leader's start time differs (the number was reused)", async () => {
    const { leader, child } = await ignoringGroup();
    await reap([`+ ${leader} ${readProcStat(leader)!.start - 1}`]);
    expect(isProcessAlive(child)).toBe(true);
    expect(isProcessAlive(leader)).toBe(true);
  });

  test("leaves alone a group it was told to forget (its leader reaped while the daemon lived)", async () => {
    const { leader, child } = await ignoringGroup();
    await reap([`+ ${leader} ${readProcStat(leader)!.start}`, `- ${leader}`]);
    expect(isProcessAlive(child)).toBe(true);
  });

  test("the leader gone: kills the group through a member of its session started after the leader", async () => {
    const { leader, child } = await ignoringGroup(true);
    const childStart = readProcStat(child)!.start;
    await reap([`+ ${leader} ${childStart}`]);
    await until("the child to end", () => !isProcessAlive(child));
  });

  test("the leader gone: leaves alone a group whose members all started before the leader it was told of", async () => {
    const { leader, child } = await ignoringGroup(true);
    await reap([`+ ${leader} ${readProcStat(child)!.start + 1}`]);
    expect(isProcessAlive(child)).toBe(true);
  });
});

describe("the task reaper, once the daemon it was told of is gone, its pipe still open", () => {
  test("kills the group within about a second of the daemon's end, though nothing closed its input", async () => {
    const { leader, child } = await ignoringGroup();
    const daemon = Bun.spawn(["sleep", "300"]);
    const env = { PATH: "/usr/bin:/bin", FLEETCOM_REAPER_DAEMON: `${daemon.pid} ${readProcStat(daemon.pid)!.start}` };
    const watcher = Bun.spawn(["/bin/sh", "-c", REAPER_SCRIPT], { stdin: "pipe", env });
    watcher.stdin.write(`+ ${leader} ${readProcStat(leader)!.start}\n`);
    watcher.stdin.flush();
    daemon.kill("SIGKILL");
    await daemon.exited;
    await until("both to end", () => !isProcessAlive(child) && (readProcStat(leader)?.state ?? "Z") === "Z");
    expect(await watcher.exited).toBe(0);
  });
});
