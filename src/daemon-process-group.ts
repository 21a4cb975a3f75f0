// A task's process group, and the right to signal it.
//
// SECURITY INVARIANT: fleetcom signals `-pgid` only while it can prove the group is still the
// task's. A PID, and so a group id, is reused by the kernel once nothing holds it; a finished task's
// number may by then lead an unrelated group (PIDs wrap in minutes on a busy machine, and as root
// that group may be anyone's). The proof, on Linux, from /proc:
// - the process with the leader's PID has the start time recorded at spawn: it is the leader, not
//   yet reaped (running, or a zombie), and the number cannot have been reused;
// - a process with that PID but another start time means the number was reused, which the kernel
//   does only once no process is left in the task's group or session: the group is not the task's;
// - no process with that PID (the leader is reaped): the group is the task's only if a live member
//   is in the task's session (session id = pgid: the leader ran setsid) and started no earlier than
//   the leader and no later than the reap. Such a member was in the task's session before the number came
//   free, and a process can leave a session but never join one it did not create; while it stays,
//   the kernel keeps the number, so every other member of the group is the task's too.
// The reap time is when the runtime reported it, a moment after the kernel freed the number, and
// start times count 10 ms ticks, so "no later" includes the reap's own tick: a leader that forks a
// child and exits at once must still be able to prove that child. The price is the one gap left
// without a pidfd-based reaper: a process that took the number within that moment (and that tick),
// called setsid, forked and died before the check would pass.
// Without /proc (macOS) nothing proves the group after the reap, so it is no longer signalled: a
// member that outlives the leader there is left alone rather than risk someone else's processes.
import { hasProc, listProcStats, readProcStat, ticksNow, type ProcStat } from "./proc.ts";
import { errnoCode } from "./errors.ts";

export interface GroupIdentity {
  /** The leader's PID: also the group's and the session's id. */
  pgid: number;
  /** The leader's start time (clock ticks since boot) read at spawn; null when it could not be read. */
  leaderStart: number | null;
  /** When the runtime reported the leader reaped (ticks since boot); null while fleetcom holds it. */
  reapedAt: number | null;
}

/**
 * Pure: whether `stats` (processes /proc shows, or null without /proc) prove the group is still the
 * task's at `now` (ticks since boot). A zombie is no proof: it cannot fork, and its group id may
 * outlive it only as long as a live member holds it.
 */
export function groupIsTheTasks(id: GroupIdentity, stats: ProcStat[] | null, now: number | null): boolean {
  if (stats === null || id.leaderStart === null) return id.reapedAt === null;
  const leader = stats.find((s) => s.pid === id.pgid);
  if (leader) return leader.start === id.leaderStart;
  const reaped = id.reapedAt ?? now;
  if (reaped === null) return false;
  return stats.some((s) => s.pgrp === id.pgid && s.session === id.pgid && s.state !== "Z" && s.start >= id.leaderStart! && s.start <= reaped);
}

/** Pure: the group's members that still run (zombies excluded). */
export function liveMembers(pgid: number, stats: ProcStat[]): ProcStat[] {
  return stats.filter((s) => s.pgrp === pgid && s.state !== "Z");
}

/**
 * Pure: whether a member of the task's group may still run, from the leader's own stat (null when no
 * process has its PID) and, only when that cannot tell, every process /proc shows (`everyProcess`)
 * and the time (`now`), both read only then.
 * The leader not reaped yet (running, or a zombie the runtime reaps on its next turn) counts as
 * running: the next look, after the reap, tells whether a member outlives it. Reading every process
 * is dear on a busy machine, and the TERM of every task at a stop comes back to it while the
 * leader's reap is one turn away.
 */
export function groupMayRun(id: GroupIdentity, leader: ProcStat | null, everyProcess: () => ProcStat[], now: () => number | null): boolean {
  if (id.leaderStart !== null && leader?.start === id.leaderStart) return true;
  const stats = everyProcess();
  return groupIsTheTasks(id, stats, now()) && liveMembers(id.pgid, stats).length > 0;
}

export class ProcessGroup {
  private readonly id: GroupIdentity;
  private readonly proc = hasProc();

  /** Call right after spawning, before the runtime can have reaped the leader. */
  constructor(leader: number) {
    this.id = { pgid: leader, leaderStart: readProcStat(leader)?.start ?? null, reapedAt: null };
  }

  get pgid(): number {
    return this.id.pgid;
  }

  /** The leader's start time as read at spawn (ticks since boot); null when it could not be read. */
  get leaderStart(): number | null {
    return this.id.leaderStart;
  }

  /** The runtime has reaped the leader: from now on its number proves nothing. */
  leaderReaped(): void {
    this.id.reapedAt ??= this.proc ? ticksNow() : 0;
  }

  /** Signals the group if it is provably the task's; false when it was not signalled. */
  signal(signal: NodeJS.Signals): boolean {
    if (!this.provenNow()) return false;
    try {
      process.kill(-this.id.pgid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** Whether a member of the task's group may still run (groupMayRun). */
  alive(): boolean {
    if (!this.exists()) return false;
    if (!this.proc) return groupIsTheTasks(this.id, null, null);
    return groupMayRun(this.id, readProcStat(this.id.pgid), () => listProcStats() ?? [], ticksNow);
  }

  private provenNow(): boolean {
    if (!this.proc) return groupIsTheTasks(this.id, null, null);
    // The usual cases read one file: the leader still held, or its number taken by another process.
    const leader = readProcStat(this.id.pgid);
    if (leader) return groupIsTheTasks(this.id, [leader], null);
    if (!this.exists()) return false;
    return groupIsTheTasks(this.id, listProcStats() ?? [], ticksNow());
  }

  /** Whether any process at all has this group id (cheap, and false for nearly every finished task). */
  private exists(): boolean {
    try {
      process.kill(-this.id.pgid, 0);
      return true;
    } catch (error) {
      return errnoCode(error) === "EPERM";
    }
  }
}

/**
 * TERM to the group, then KILL after `graceMs` to whatever is still there, each only while the group
 * is provably the task's. The grace runs on the monotonic clock (`now`): a wall-clock step must not
 * stretch or skip it.
 */
export async function terminateGroup(
  group: ProcessGroup,
  graceMs: number,
  now: () => number = () => performance.now(),
  first: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  if (!group.signal(first)) return;
  const deadline = now() + graceMs;
  while (now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    if (!group.alive()) return;
  }
  group.signal("SIGKILL");
}
