// Autostart: `fleetcom daemon`, started detached by the command that finds none running here, and
// followed until it listens (client-autostart-follow.ts). A command that will need the daemon
// whatever happens (client-early-start.ts needsDaemonHereAnyway: `ls`, `run CMD`) starts it before
// its own code loads, so that the two processes start side by side: otherwise a cold `ls` would
// load the client before it spawned the daemon and then wait for it to come up (docs/benchmarks.md). Where the
// early autostart has already started it (client-early-start.ts), that one is followed.
import { closeSync, openSync } from "node:fs";
import { socketSeenEarly, takeEarlyStart } from "./client-early-start.ts";
import { HERE, noDaemonHere } from "./client-target.ts";
import { LOG_NAME, READY_FD_VARIABLE, runtimeDir } from "./paths.ts";
import { selfCommand, spawnDetached } from "./platform.ts";
import type { ChildEnd, DetachedChild } from "./spawn-bun.ts";
import { openRuntimeDir } from "./runtime-dir.ts";

export interface Started {
  pid: number | undefined;
  /**
   * `session`: in a session of its own (setsid). `scope`: through systemd-run's scope, which execs
   * the daemon in the same process. `early`: by the early autostart, its output nowhere until it
   * opens its log; one that ends before it listens is started again the ordinary way.
   */
  how: "session" | "scope" | "early";
  /** How it ended; null while it runs. */
  exit: ChildEnd | null;
  /** Settles when it says it listens (or ends) on its fd 3 (cmd-daemon.ts); null once it has settled. */
  listening: Promise<void> | null;
  /** Stops waiting for it to say so. */
  letGo(): void;
}

/**
 * `fleetcom daemon`, detached, its output to the log: in a systemd scope of its own where that keeps
 * it past a logout (client-service-manager.ts), else in a new session (`setsid`).
 */
export async function startDaemon(dirPath: string, scope: boolean): Promise<Started> {
  const { scopeCommand } = await import("./client-service-manager.ts");
  const dir = openRuntimeDir(dirPath);
  let log: number;
  try {
    log = openSync(dir.entry(LOG_NAME), "a", 0o600);
  } finally {
    dir.close();
  }
  const daemon = [...selfCommand(), "daemon"];
  const argv = (scope && scopeCommand(daemon)) || daemon;
  const child = spawnDetached(argv, log, { ...process.env, [READY_FD_VARIABLE]: "3" });
  closeSync(log);
  return following(child, argv === daemon ? "session" : "scope");
}

function following(child: DetachedChild, how: Started["how"]): Started {
  const started: Started = { pid: child.pid, how, exit: null, listening: child.spoke, letGo: child.letGo };
  void child.ended.then((ended) => (started.exit = ended));
  void child.spoke.then(() => (started.listening = null));
  return started;
}

let prestarted: Promise<Started | null> | null = null;

/**
 * Starts this machine's daemon now when none runs here, for a command that will connect to it: the
 * connection (client-connect.ts connectSocket) follows this one instead of starting another. Anything that
 * stands in the way (a runtime directory to refuse) is left for the connection to report.
 */
export async function prestartDaemon(): Promise<void> {
  if (socketSeenEarly()) return;
  const early = takeEarlyStart();
  if (early) prestarted ??= Promise.resolve(following(early, "early"));
  prestarted ??= (async () => (noDaemonHere(HERE) ? startDaemon(runtimeDir(), true) : null))().catch(() => null);
  await prestarted;
}

/** The daemon prestartDaemon started, once: null when it started none. */
export function takePrestarted(): Promise<Started | null> {
  const taken = prestarted ?? Promise.resolve(null);
  prestarted = null;
  return taken;
}
