// What the session and recovery tests share: a fleet with short snapshot intervals, a raw socket
// client for bursts the CLI could not issue within a second, the snapshots on disk and the writes the
// daemon logged, and the process sweep for tasks a SIGKILLed daemon may leave behind.
import { isProcessAlive } from "../../src/platform.ts";
import { afterEach, beforeEach } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isSnapshotName, snapshotFileName, snapshotLabel } from "../../src/recipe-snapshot-rules.ts";
import { Fleet, until } from "./fleet.ts";
import { processesWhere } from "./helpers.ts";

/** A Fleet whose daemon snapshots quickly; the minute check stays out of the way unless asked for. */
export function snapshotFleet(settings: { debounceMs?: number; checkMs?: number } = {}): Fleet {
  const fleet = new Fleet();
  fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = String(settings.debounceMs ?? 100);
  fleet.env.FLEETCOM_SNAPSHOT_CHECK_MS = String(settings.checkMs ?? 3_600_000);
  return fleet;
}

/** A snapshot fleet for every test in the file, its recovery directory made (0700), always stopped after it. */
/** fabricateSnapshot in one recovery directory. */
export type Fabricate = (pid: number, minutesAgo: number, content: string | object, startedMinutesAgo?: number) => string;

export function eachTestGetsARecoveryDir(use: (fleet: Fleet, dir: string, fabricate: Fabricate) => void): void {
  let current: Fleet;
  beforeEach(() => {
    current = snapshotFleet();
    const dir = recoveryDirOf(current);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    use(current, dir, (pid, minutesAgo, content, startedMinutesAgo) => fabricateSnapshot(dir, pid, minutesAgo, content, startedMinutesAgo));
  });
  afterEach(() => current.stop());
}

/** What a recipe keeps of a task, in the order a load recreates it (directory, then id). */
export type Launch = { cwd: string; command: string; group: string | null; name: string | null };

export function launches(tasks: Launch[]): Launch[] {
  const rows = tasks.map(({ cwd, command, group, name }) => ({ cwd, command, group, name }));
  return rows.sort((a, b) => (a.cwd < b.cwd ? -1 : a.cwd > b.cwd ? 1 : 0));
}

export function recoveryDirOf(fleet: Fleet): string {
  return join(fleet.sandbox.config, "sessions", "recovery");
}

export function snapshotNames(fleet: Fleet): string[] {
  try {
    return readdirSync(recoveryDirOf(fleet)).filter(isSnapshotName);
  } catch {
    return [];
  }
}

/** How many tasks the snapshot at `path` records (0 while it is not there yet). */
export function snapshotTasks(path: string): number {
  try {
    const dirs: Record<string, unknown[]> = JSON.parse(readFileSync(path, "utf8")).dirs;
    return Object.values(dirs).reduce((n, entries) => n + entries.length, 0);
  } catch {
    return 0;
  }
}

/** `snapshot written` lines in the daemon log: the write counter that does not depend on timing. */
export function snapshotWrites(fleet: Fleet): number {
  try {
    return readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8")
      .split("\n")
      .filter((l) => / snapshot written /.test(l)).length;
  } catch {
    return 0;
  }
}

/** Processes whose environment holds `marker`: every task a test's daemons started, and nothing else. */
export function processesWithMarker(marker: string): number[] {
  return processesWhere((read) => read("environ").split("\0").includes(marker)).filter(isProcessAlive);
}

/** SIGKILL the daemon, as a crash would, and wait for it and its tasks (which die with their PTYs) to be gone; returns its pid. */
export async function crashDaemon(fleet: Fleet): Promise<number> {
  const pid = fleet.daemonPid()!;
  // The tasks' own pids, not a marker: a client started with the marker in its environment carries it too.
  const tasks = (await fleet.ls()).map((t) => t.pid!);
  process.kill(pid, "SIGKILL");
  await until("the daemon to die", () => !isProcessAlive(pid));
  await until("its tasks to die", () => tasks.every((p) => !isProcessAlive(p)));
  return pid;
}

/** Cleanup after a crash: each task leads its own process group, so kill the groups. */
export function killProcessGroups(pids: number[]): void {
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {}
    }
  }
}

/** The line `recover` ends with, suggesting a permanent name. */
export const SAVE_HINT = "to keep this fleet under a permanent name: fleetcom save NAME";
/** A pid no supervisor can have had: above Linux's largest pid_max. */
export const DEAD_PID = 2 ** 22 + 1;

/** A snapshot in `dir` written `minutesAgo` minutes ago by a supervisor started `startedMinutesAgo` ago; returns its name. */
export function fabricateSnapshot(dir: string, pid: number, minutesAgo: number, content: string | object, startedMinutesAgo = minutesAgo): string {
  const now = Date.now();
  const name = snapshotFileName(new Date(now - startedMinutesAgo * 60_000), pid);
  const text = typeof content === "string" ? content : JSON.stringify(content);
  writeFileSync(join(dir, name), text, { mode: 0o600 });
  const written = new Date(now - minutesAgo * 60_000);
  utimesSync(join(dir, name), written, written);
  return name;
}

/** A recovery snapshot's contents, labelled as written `minutesAgo` minutes ago. */
export const snapshotRecipe = (minutesAgo: number, dirs: Record<string, unknown>) => ({
  version: 1,
  name: snapshotLabel(new Date(Date.now() - minutesAgo * 60_000)),
  dirs,
});
