// What a dead daemon's tasks left running, ended before `recover` starts the fleet again: else a
// task that ignores SIGHUP (Gemini's launcher and its child) would run twice on one conversation.
// The daemon's watcher (daemon-reaper.ts) ends them as the daemon dies; this is for what it could
// not: a watcher killed with the daemon, or a daemon from before it.
//
// A survivor, from /proc (Linux only; none elsewhere): a live process of this user whose environment
// holds `FLEETCOM_TASK_ID` and names this runtime directory (the evidence daemon-escapees.ts uses),
// and whose daemon (`FLEETCOM_DAEMON_PID`) is dead: no process has that PID, or the one that has it
// started after the survivor did, so it cannot be the daemon that started it. A process without
// that variable (a daemon from before it) counts only while no daemon runs here. Each is ended by
// PID with SIGKILL, only while the process with that PID still has the start time read when it was
// found (a reused number is someone else's); the one gap is the moment between that read and the kill.
import { EXIT, UserError } from "./errors.ts";
import { runtimeDir } from "./paths.ts";
import { commandOf, environOf, listProcStats, processUid, readProcStat, type ProcStat } from "./proc.ts";
import { printable } from "./text-printable.ts";

export interface Survivor {
  pid: number;
  /** Start time in ticks since boot: with the PID, names the process for good. */
  start: number;
  task: string;
  command: string;
}

/** What the rule needs to know of one process. */
export interface Candidate {
  stat: ProcStat;
  uid: number | null;
  env: Record<string, string> | null;
}

export interface SurvivorContext {
  uid: number;
  runtime: string;
  /** The running daemon's PID; null when none runs. */
  runningDaemon: number | null;
  /** The start time of the process with this PID now; null when there is none. */
  startOf(pid: number): number | null;
}

/** Pure: whether a process is one a dead daemon's task left running. */
export function isSurvivor({ stat, uid, env }: Candidate, ctx: SurvivorContext): boolean {
  if (stat.state === "Z" || uid !== ctx.uid || !env?.FLEETCOM_TASK_ID) return false;
  if (runtimeDir(env, ctx.uid) !== ctx.runtime) return false;
  const daemon = env.FLEETCOM_DAEMON_PID;
  if (daemon === undefined) return ctx.runningDaemon === null;
  if (!/^[1-9]\d*$/.test(daemon)) return false;
  const pid = Number(daemon);
  if (pid === ctx.runningDaemon) return false;
  const daemonStart = ctx.startOf(pid);
  return daemonStart === null || daemonStart > stat.start;
}

/** The processes dead daemons' tasks of this runtime directory left running, by PID. */
export function findSurvivors(runningDaemon: number | null, env = process.env): Survivor[] {
  const uid = process.getuid?.() ?? 0;
  const ctx: SurvivorContext = { uid, runtime: runtimeDir(env, uid), runningDaemon, startOf: (pid) => readProcStat(pid)?.start ?? null };
  const found: Survivor[] = [];
  for (const stat of listProcStats() ?? []) {
    if (stat.pid === process.pid) continue;
    // The environment first: nearly every process lacks FLEETCOM_TASK_ID, and its owner is not read then.
    const env = environOf(stat.pid);
    if (!env?.FLEETCOM_TASK_ID) continue;
    const candidate = { stat, uid: processUid(stat.pid), env };
    if (!isSurvivor(candidate, ctx)) continue;
    found.push({ pid: stat.pid, start: stat.start, task: candidate.env!.FLEETCOM_TASK_ID!, command: commandOf(stat.pid) });
  }
  return found.sort((a, b) => a.pid - b.pid);
}

/** Whether the process found as `survivor` still runs (not a zombie), the same process. */
function stillRuns(survivor: Survivor): boolean {
  const now = readProcStat(survivor.pid);
  return now !== null && now.start === survivor.start && now.state !== "Z";
}

/** SIGKILL to the survivor, only while its PID still names the process that was found. */
function kill(survivor: Survivor): void {
  if (!stillRuns(survivor)) return;
  try {
    process.kill(survivor.pid, "SIGKILL");
  } catch {
    // gone meanwhile, or not ours to signal: the wait below tells
  }
}

/** How long the survivors get to be gone after the KILL. */
const GONE_WAIT_MS = 3_000;

function describe(survivors: readonly Survivor[]): string {
  return survivors.map((s) => `pid ${s.pid} ${printable(s.command)} (task ${printable(s.task)})`).join(", ");
}

/**
 * Ends what dead daemons' tasks left running, and says so in one line (null when there was none).
 * Refuses (a UserError naming the PIDs) when some still run after the wait: nothing is started then.
 */
export async function endSurvivors(runningDaemon: number | null, now: () => number = () => performance.now()): Promise<string | null> {
  const survivors = findSurvivors(runningDaemon);
  if (survivors.length === 0) return null;
  for (const survivor of survivors) kill(survivor);
  const deadline = now() + GONE_WAIT_MS;
  let holding = survivors.filter(stillRuns);
  while (holding.length > 0 && now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    holding = holding.filter(stillRuns);
  }
  if (holding.length > 0) {
    throw new UserError(
      `recover: the dead daemon's tasks left processes that do not end: ${describe(holding)}; nothing was started (end them, then recover again)`,
      EXIT.failure,
    );
  }
  return `ended ${survivors.length} process(es) the dead daemon's tasks left running: ${describe(survivors)}`;
}
