// `fleetcom`, `fleetcom SESSION` and `fleetcom --foreground [SESSION]`: load the session if one is
// named, then open the dashboard. In foreground mode the supervisor runs in this process: it listens
// on the usual socket (so other clients work meanwhile), writes recovery snapshots like a daemon,
// and its tasks end when the dashboard closes, whichever of q and Q closed it.
import { appendFileSync } from "node:fs";
import { requireTerminal } from "./ui-attach.ts";
import { EXIT, UserError } from "./errors.ts";
import { runDashboard } from "./ui-dashboard.ts";
import { logPath } from "./paths.ts";
import { logLine } from "./text-printable.ts";

export interface DashboardRequest {
  session?: string;
  /** The subcommand SESSION is one slip from, for the error when no such session exists. */
  nearCommand?: string | null;
  foreground?: boolean;
}

function logToFile(message: string): void {
  try {
    appendFileSync(logPath(), logLine(message), { mode: 0o600 });
  } catch {
    // the dashboard owns the terminal: a log line that cannot be written is dropped, not printed over it
  }
}

export async function openDashboard(request: DashboardRequest): Promise<number> {
  const { recipeForWord, loadAndDescribe } = await import("./cmd-load.ts");
  const recipe = request.session === undefined ? null : recipeForWord(request.session, request.nearCommand ?? null);
  requireTerminal(request.session === undefined ? "the dashboard" : `the dashboard (fleetcom load ${request.session} loads without one)`);
  if (!request.foreground) {
    const status = recipe ? await loadAndDescribe(recipe) : undefined;
    const { end, running } = await runDashboard({ status });
    if (end === "lost") throw new UserError("the daemon stopped", EXIT.unreachable);
    console.log(end === "quit" ? "[stopped the daemon and every task]" : `[detached: ${running} task(s) still running]`);
    return 0;
  }
  const { scrollbackSetting } = await import("./settings.ts");
  const { startSupervisor } = await import("./daemon-supervisor.ts");
  const { handshakeTimeoutSetting } = await import("./daemon.ts");
  const supervisor = await startSupervisor({
    scrollback: scrollbackSetting(undefined, process.env.FLEETCOM_SCROLLBACK, logToFile),
    handshakeTimeoutMs: handshakeTimeoutSetting(process.env.FLEETCOM_HANDSHAKE_TIMEOUT_MS, logToFile),
    log: logToFile,
  });
  if (!supervisor) {
    throw new UserError("a daemon is already running: run fleetcom to use it, or fleetcom --kill to stop it (and its tasks) first");
  }
  for (const signal of ["SIGTERM", "SIGHUP"] as const) process.on(signal, () => void supervisor.daemon.stop());
  try {
    const status = recipe ? await loadAndDescribe(recipe) : undefined;
    await runDashboard({ foreground: true, status });
  } finally {
    process.stdout.write("stopping every task…\r");
    await supervisor.daemon.stop();
    await supervisor.stopped;
    process.stdout.write("\x1b[2K");
  }
  console.log("[foreground supervisor stopped with every task]");
  return 0;
}
