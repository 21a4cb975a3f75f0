// The supervisor core: the daemon, the socket it serves (the runtime directory's endpoint) and its
// recovery snapshot writer. `fleetcom daemon` runs it on its own; `fleetcom --foreground` runs it
// inside the dashboard's process.
import { Daemon, type DaemonOptions } from "./daemon.ts";
import { Endpoint } from "./daemon-endpoint.ts";
import { runtimeDir } from "./paths.ts";
import { startSnapshots } from "./daemon-snapshots.ts";
import { startHistory } from "./daemon-history.ts";

export interface Supervisor {
  daemon: Daemon;
  /** Resolves once every task has ended and the last snapshot pass has run. */
  stopped: Promise<void>;
}

/** Null when another supervisor holds the lock. */
export async function startSupervisor(options: DaemonOptions): Promise<Supervisor | null> {
  const served = await serveDaemon(options);
  if (!served) return null;
  const history = options.history ? startHistory(served.daemon, process.env, options.log) : null;
  served.daemon.history = history;
  const snapshots = startSnapshots(served.daemon, process.env, options.log, options.history);
  // The pending passes run after the tasks end: the recipe still lists them, and their history
  // holds their last output, so a clean stop loses nothing.
  const stopped = served.stopped.then(async () => {
    await history?.stop();
    snapshots.stop();
  });
  return { daemon: served.daemon, stopped };
}

/** Takes the lock, listens, and serves until stopped. Resolves null when another daemon holds the lock. */
async function serveDaemon(options: DaemonOptions): Promise<{ daemon: Daemon; stopped: Promise<void> } | null> {
  let daemon: Daemon | null = null;
  const endpoint = await Endpoint.open(runtimeDir(), {
    log: options.log,
    accept: (socket) => (daemon ? daemon.accept(socket) : socket.destroy()),
    lost: () => void daemon?.stop(),
  });
  if (!endpoint) return null;
  daemon = new Daemon(options);
  options.log(`daemon ${process.pid} listening on ${endpoint.socketPath}`);
  const stopped = new Promise<void>((resolve) => {
    daemon!.onStop = () => {
      endpoint.close();
      resolve();
    };
  });
  return { daemon, stopped };
}
