// The running daemon, if any, for the commands that only ask one and never start one: `recover
// --list`, `load --dry-run`, `config`, `service`, the pickers. Where none runs here (client-target.ts
// noDaemonHere) the answer is "none" without loading client.ts at all.
import type { DaemonClient } from "./client.ts";
import { noDaemonHere, type Target } from "./client-target.ts";
import { EXIT, UserError } from "./errors.ts";
import type { DaemonStatus } from "./wire-protocol.ts";

/** The running supervisor's status, or null when none runs; never starts one. */
export async function runningDaemonStatus(target: Target): Promise<DaemonStatus | null> {
  if (noDaemonHere(target)) return null;
  const { withDaemon } = await import("./client.ts");
  try {
    return await withDaemon(target, (c) => c.request("status"), { autostart: false, notices: false });
  } catch (error) {
    if (error instanceof UserError && error.exitCode === EXIT.unreachable) return null;
    throw error;
  }
}

/**
 * `work` on a connection to the running daemon, or on null when none runs; never starts one. A
 * daemon that holds the runtime directory but does not answer is an error, not "none".
 */
export async function withRunningDaemon<T>(target: Target, work: (client: DaemonClient | null) => Promise<T>): Promise<T> {
  if (noDaemonHere(target)) return work(null);
  const { DaemonClient, DaemonNotRunning } = await import("./client.ts");
  let client: DaemonClient;
  try {
    client = await DaemonClient.open(target, { autostart: false, notices: false });
  } catch (error) {
    if (error instanceof DaemonNotRunning) return work(null);
    throw error;
  }
  try {
    return await work(client);
  } finally {
    client.close();
  }
}
