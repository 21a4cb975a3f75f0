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

/**
 * On the runtime directory this process claimed (daemon-endpoint.ts claimRuntimeDir): listens and
 * serves until stopped. `listening` is called once the socket takes connections, before the daemon is
 * set up on it: a client told then connects and sends its hello while the rest runs (the clean-stop
 * record, the first snapshot), and is accepted after it, as the next turn of the event loop.
 */
export async function startSupervisor(options: DaemonOptions, claim: Claim, listening: () => void = () => {}): Promise<Supervisor> {
  let daemon: Daemon | null = null;
  const endpoint = await Endpoint.open(runtimeDir(), claim, {
    log: options.log,
    accept: (socket) => (daemon ? daemon.accept(socket) : socket.destroy()),
    lost: () => void daemon?.stop(),
  });
  listening();
  const stopped = Promise.withResolvers<void>();
  // Synchronously, before the first connection is accepted: the first client is the one told.
  daemon = new Daemon(options, (fleet) => {
    const record = lostFleetCheck(fleet, options.log);
    const history = options.history ? startHistory(fleet, process.env, options.log, options.settings?.logMax.value) : null;
    const snapshots = startSnapshots(fleet, process.env, options.log, options.history);
    return {
      history,
      recipeChanged: (urgency) => snapshots.changed(urgency),
      crashCleared: () => record.recovered(),
      // The pending passes run after the tasks end: the recipe still lists them, and their history
      // holds their last output, so a clean stop loses nothing; the clean-stop marker comes last,
      // once nothing more can be lost.
      stopped: () => {
        endpoint.close();
        stopped.resolve(
          (async () => {
            await history?.stop();
            snapshots.stop();
            record.stopped();
          })(),
        );
      },
    };
  });
  options.log(`daemon ${process.pid} listening on ${endpoint.socketPath}`);
  return { daemon, stopped: stopped.promise };
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
  return new CleanStopRecord(path, own, notice?.snapshot ?? null, log);
}
