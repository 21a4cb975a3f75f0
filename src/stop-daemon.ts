// `fleetcom --kill`: signal the PID in the lock file, so it works whatever clients are connected
// (and even when the socket is gone), then wait for the teardown to finish.
import { readFileSync } from "node:fs";
import { EXIT, UserError } from "./errors.ts";
import { lockPath } from "./paths.ts";
import { isProcessAlive } from "./runtime.ts";

const STOP_TIMEOUT_MS = 10_000;

export function daemonPid(): number | null {
  try {
    const pid = Number(readFileSync(lockPath(), "utf8").trim());
    return isProcessAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

export async function stopDaemon(): Promise<number> {
  const pid = daemonPid();
  if (pid === null) {
    console.log("no daemon running");
    return 0;
  }
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) throw new UserError(`daemon ${pid} did not stop within ${STOP_TIMEOUT_MS / 1000}s`, EXIT.failure);
    await new Promise((r) => setTimeout(r, 20));
  }
  console.log(`stopped daemon ${pid}`);
  return 0;
}
