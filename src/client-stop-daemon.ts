// `fleetcom --kill`: stop this runtime directory's daemon whatever clients are connected (and even
// when its socket is gone), then wait for the teardown to finish.
//
// SECURITY INVARIANT: SIGTERM goes only to a process proven to be the daemon. The PID in daemon.lock
// is a hint, never a proof: a daemon that crashed leaves its number behind, and the kernel may since
// have given it to anything. Proof is the lock being held (a non-blocking flock on it fails) and
// either the daemon's own word (it answers on our private socket and its welcome gives its PID) or,
// on Linux, /proc showing that the PID in the file holds that flock right now. A lock nobody holds
// means no daemon: the socket and lock are stale files, removed, and nothing is signalled.
import { HERE } from "./client-target.ts";
import { closeSync, existsSync, openSync, unlinkSync } from "node:fs";
import { DaemonClient } from "./client.ts";
import { EXIT, UserError } from "./errors.ts";
import { lockPath, runtimeDir, socketPath } from "./paths.ts";
import { flockHolder, pidInLockFile, readProcStat } from "./proc.ts";
import { openRuntimeDir } from "./runtime-dir.ts";
import { endsWithin, isProcessAlive, tryLockExclusive } from "./platform.ts";

const STOP_TIMEOUT_MS = 10_000;
/** How long a welcome may take, and how long a held lock may stay unproven. */
const PROOF_TIMEOUT_MS = 3_000;
/**
 * Without /proc a daemon that has the lock but no socket yet (starting) cannot be proven until it
 * answers: it is waited for while the PID in the lock lives, as long as client.ts follows a start.
 */
const STARTING_TIMEOUT_MS = 60_000;

interface Proven {
  pid: number;
  /** /proc start time, so that waiting for the exit never mistakes a later process for the daemon. */
  start: number | null;
}

/**
 * `ask`: called with the number of running tasks, when there are any, before anything is signalled;
 * false leaves everything running (exit 1). Absent: nothing is asked (`--yes`, a script).
 * `otherHosts`: the hosts added here, whose fleets this does not stop: said, so "every task" is
 * never read into it.
 */
export async function stopDaemon(options: { ask?: ((running: number) => Promise<boolean>) | undefined; otherHosts?: readonly string[] } = {}): Promise<number> {
  const dir = runtimeDir();
  if (existsSync(dir)) openRuntimeDir(dir).close();
  const daemon = await findDaemon();
  if (daemon === null) {
    console.log("no daemon running");
    return 0;
  }
  if (options.ask) {
    const running = await runningTasks();
    if (running > 0 && !(await options.ask(running)))
      throw new UserError(`nothing stopped: daemon ${daemon.pid} and its ${running} running task(s) carry on`, EXIT.failure);
  }
  process.kill(daemon.pid, "SIGTERM");
  if (!(await endsWithin(() => stillRunning(daemon), STOP_TIMEOUT_MS, 20)))
    throw new UserError(`daemon ${daemon.pid} did not stop within ${STOP_TIMEOUT_MS / 1000}s`, EXIT.failure);
  const hosts = options.otherHosts ?? [];
  const elsewhere =
    hosts.length === 0 ? "" : ` and this machine's tasks; the tasks on ${hosts.join(", ")} keep running (fleetcom --host NAME --kill stops them)`;
  console.log(`stopped daemon ${daemon.pid}${elsewhere}`);
  return 0;
}

/** The daemon, proven; null when there is none (stale files are removed on the way). */
async function findDaemon(): Promise<Proven | null> {
  const deadline = performance.now() + PROOF_TIMEOUT_MS;
  const startingDeadline = performance.now() + STARTING_TIMEOUT_MS;
  for (;;) {
    if ((await probeLock(lockPath())) !== "held") return null;
    const answered = await DaemonClient.daemonPidOnSocket(PROOF_TIMEOUT_MS);
    if (answered !== null) return proven(answered);
    const hinted = pidInLockFile(lockPath());
    if (hinted !== null && flockHolder(lockPath()) === hinted) return proven(hinted);
    // Held but unproven: a daemon between taking the lock and listening, or (without /proc) one of
    // another protocol version that will not welcome us.
    const starting = hinted !== null && isProcessAlive(hinted) && !existsSync(socketPath()) && performance.now() < startingDeadline;
    if (performance.now() > deadline && !starting) {
      throw new UserError(
        `${lockPath()} is locked, but no process proved to be its daemon (none answered on ${socketPath()}); nothing was signalled`,
        EXIT.failure,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How many tasks the daemon runs; 0 when it does not say (the question is then not worth asking). */
async function runningTasks(): Promise<number> {
  try {
    const client = await DaemonClient.open(HERE, { autostart: false, notices: false });
    try {
      return (await client.request("status")).tasks.running;
    } finally {
      client.close();
    }
  } catch {
    return 0;
  }
}

function proven(pid: number): Proven {
  return { pid, start: readProcStat(pid)?.start ?? null };
}

function stillRunning(daemon: Proven): boolean {
  if (!isProcessAlive(daemon.pid)) return false;
  return daemon.start === null || readProcStat(daemon.pid)?.start === daemon.start;
}

/**
 * Whether a daemon holds the lock: "held" when a non-blocking flock fails. A free lock is taken for a
 * moment, and while we hold it no daemon can start, so the stale socket and lock are removed safely.
 */
async function probeLock(path: string): Promise<"absent" | "free" | "held"> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return "absent";
  }
  try {
    if (!(await tryLockExclusive(fd))) return "held";
    for (const stale of [socketPath(), path]) {
      try {
        unlinkSync(stale);
      } catch {}
    }
    return "free";
  } finally {
    closeSync(fd);
  }
}
