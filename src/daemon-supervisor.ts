// The supervisor core: the daemon serving the socket plus its recovery snapshot writer. `fleetcom
// daemon` runs it on its own; `fleetcom --foreground` runs it inside the dashboard's process.
import { serveDaemon, type Daemon, type DaemonOptions } from "./daemon.ts";
import { startSnapshots } from "./daemon-snapshots.ts";

export interface Supervisor {
  daemon: Daemon;
  /** Resolves once every task has ended and the last snapshot pass has run. */
  stopped: Promise<void>;
}

/** Null when another supervisor holds the lock. */
export async function startSupervisor(options: DaemonOptions): Promise<Supervisor | null> {
  const served = await serveDaemon(options);
  if (!served) return null;
  const snapshots = startSnapshots(served.daemon, process.env, options.log);
  // The pending pass runs after the tasks end: the recipe still lists them, so a clean stop loses nothing.
  const stopped = served.stopped.then(() => snapshots.stop());
  return { daemon: served.daemon, stopped };
}
