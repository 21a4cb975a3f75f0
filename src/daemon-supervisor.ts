// The supervisor core: the daemon, the socket it serves (the runtime directory's endpoint), its
// recovery snapshot writer and its clean-stop record. `fleetcom daemon` runs it on its own;
// `fleetcom --foreground` runs it inside the dashboard's process.
import { Daemon, type DaemonOptions } from "./daemon.ts";
import { type Claim, Endpoint } from "./daemon-endpoint.ts";
import { CleanStopRecord, crashNotice, lostFleetCandidates, readRecord, recordPath } from "./daemon-clean-stop.ts";
import { runtimeDir } from "./paths.ts";
import { snapshotFileName } from "./recipe-snapshot-rules.ts";
import { startSnapshots } from "./daemon-snapshots.ts";
import { startHistory } from "./daemon-history.ts";

export interface Supervisor {
  daemon: Daemon;
  /** Resolves once every task has ended, the last snapshot pass has run and the clean stop is recorded. */
  stopped: Promise<void>;
}

/** On the runtime directory this process claimed (daemon-endpoint.ts claimRuntimeDir). */
export async function startSupervisor(options: DaemonOptions, claim: Claim): Promise<Supervisor> {
  const served = await serveDaemon(options, claim);
  const history = options.history ? startHistory(served.daemon, process.env, options.log) : null;
  served.daemon.history = history;
  const snapshots = startSnapshots(served.daemon, process.env, options.log, options.history);
  // The pending passes run after the tasks end: the recipe still lists them, and their history
  // holds their last output, so a clean stop loses nothing; the clean-stop marker comes last, once
  // nothing more can be lost.
  const stopped = served.stopped.then(async () => {
    await history?.stop();
    snapshots.stop();
    served.record.stopped();
  });
  return { daemon: served.daemon, stopped };
}

/** Listens and serves until stopped. */
async function serveDaemon(options: DaemonOptions, claim: Claim): Promise<{ daemon: Daemon; stopped: Promise<void>; record: CleanStopRecord }> {
  let daemon: Daemon | null = null;
  const endpoint = await Endpoint.open(runtimeDir(), claim, {
    log: options.log,
    accept: (socket) => (daemon ? daemon.accept(socket) : socket.destroy()),
    lost: () => void daemon?.stop(),
  });
  daemon = new Daemon(options);
  // Synchronously, before the first connection is accepted: the first client is the one told.
  const record = lostFleetCheck(daemon, options.log);
  options.log(`daemon ${process.pid} listening on ${endpoint.socketPath}`);
  const stopped = new Promise<void>((resolve) => {
    daemon!.onStop = () => {
      endpoint.close();
      resolve();
    };
  });
  return { daemon, stopped, record };
}

/** Reads the previous supervisor's record (we hold the lock, so it cannot change under us), then writes ours. */
function lostFleetCheck(daemon: Daemon, log: (message: string) => void): CleanStopRecord {
  const path = recordPath(runtimeDir());
  const notice = crashNotice(lostFleetCandidates(readRecord(path)));
  if (notice) log(`the previous fleet (${notice.tasks} task(s), snapshot ${notice.snapshot}) ended without a clean stop; the first client is told`);
  daemon.setCrash(notice);
  const own = {
    runtimeDir: runtimeDir(),
    pid: process.pid,
    startedAt: daemon.startedAt.toISOString(),
    snapshot: snapshotFileName(daemon.startedAt, process.pid),
  };
  const record = new CleanStopRecord(path, own, notice?.snapshot ?? null, log);
  daemon.onCrashCleared = () => record.recovered();
  return record;
}
