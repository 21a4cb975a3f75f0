// `fleetcom`, `fleetcom SESSION` and `fleetcom --foreground [SESSION]`: load the session if one is
// named, then open the dashboard. In foreground mode the supervisor runs in this process: it listens
// on the usual socket (so other clients work meanwhile), writes recovery snapshots like a daemon,
// and its tasks end when the dashboard closes, whichever of q and Q closed it.
import type { Target } from "./client-target.ts";
import { appendFileSync, existsSync } from "node:fs";
import { requireTerminal } from "./ui-attach.ts";
import { usageError, UserError } from "./errors.ts";
import { resolveSessionTarget } from "./recipe-names.ts";
import type { LoadedRecipe } from "./recipe-sessions.ts";
import { runDashboard } from "./ui-dashboard.ts";
import { chosenDetachKey } from "./ui-attach-settings.ts";
import { logPath, runtimeDir } from "./paths.ts";
import { logLine, printable } from "./text-printable.ts";
import { currentDirectory } from "./text-path.ts";
import { ERASE_LINE } from "./text-ansi.ts";

export interface DashboardRequest {
  session?: string | undefined;
  /** The subcommand SESSION is one slip from, for the error when no such session exists. */
  nearCommand?: string | null;
  foreground?: boolean;
  /** `--detach-key`, for every attach from this dashboard. */
  detachKey?: string | undefined;
  /** The daemon the dashboard shows (`--host`, FLEETCOM_HOST: that host's). */
  target: Target;
}

function logToFile(message: string): void {
  try {
    appendFileSync(logPath(), logLine(message), { mode: 0o600 });
  } catch {
    // the dashboard owns the terminal: a log line that cannot be written is dropped, not printed over it
  }
}

// `fleetcom WORD`: a word that is no subcommand names a saved session (or, ending in `.json`, a
// recipe file). Whether one exists is asked first, so a mistyped command costs no recipe parsing.
async function recipeForWord(word: string, nearCommand: string | null): Promise<LoadedRecipe> {
  const file = word.trim() === "" ? null : resolveSessionTarget(word, currentDirectory());
  if (file === null || !existsSync(file)) {
    const meant = nearCommand ? ` (did you mean ${nearCommand}?)` : "";
    throw usageError(`unknown command '${printable(word)}'${meant}, and no saved session by that name (see fleetcom --help and fleetcom sessions)`);
  }
  const [{ loadRecipe }, { recipeHosts }] = await Promise.all([import("./recipe-sessions.ts"), import("./client-recipes.ts")]);
  return loadRecipe(word, currentDirectory(), process.env, await recipeHosts());
}

export async function openDashboard(request: DashboardRequest): Promise<number> {
  const detachKey = await chosenDetachKey(request.detachKey);
  const recipe = request.session === undefined ? null : await recipeForWord(request.session, request.nearCommand ?? null);
  const loadAndDescribe = async (recipe: LoadedRecipe) => (await import("./client-recipes.ts")).loadAndDescribe(recipe, false, { target: request.target });
  requireTerminal(request.session === undefined ? "the dashboard" : `the dashboard (fleetcom load ${request.session} loads without one)`);
  if (!request.foreground) {
    const status = recipe ? await loadAndDescribe(recipe) : undefined;
    const { end, running, hosts } = await runDashboard({ status, detachKey, target: request.target });
    const said = {
      quit: hosts.length
        ? `[stopped this machine's daemon and its tasks; the tasks on ${hosts.join(", ")} keep running]`
        : "[stopped the daemon and every task]",
      lost: "[left: the daemon had stopped, no task is running]",
      detached: `[detached: ${running} task(s) still running]`,
    };
    console.log(said[end]);
    return 0;
  }
  const { claimRuntimeDir } = await import("./daemon-endpoint.ts");
  const claim = await claimRuntimeDir(runtimeDir());
  if (!claim) throw new UserError("a daemon is already running: run fleetcom to use it, or fleetcom --kill to stop it (and its tasks) first");
  const { daemonOptions, handshakeTimeoutSetting, loadSettings } = await import("./settings.ts");
  const { startSupervisor } = await import("./daemon-supervisor.ts");
  const settings = loadSettings();
  for (const problem of settings.problems) logToFile(problem);
  const supervisor = await startSupervisor(
    {
      ...daemonOptions(settings),
      handshakeTimeoutMs: handshakeTimeoutSetting(process.env.FLEETCOM_HANDSHAKE_TIMEOUT_MS, logToFile),
      log: logToFile,
    },
    claim,
  );
  for (const signal of ["SIGTERM", "SIGHUP"] as const) process.on(signal, () => void supervisor.daemon.stop());
  try {
    const status = recipe ? await loadAndDescribe(recipe) : undefined;
    await runDashboard({ foreground: true, status, detachKey, target: request.target });
  } finally {
    process.stdout.write("stopping every task…\r");
    await supervisor.daemon.stop();
    await supervisor.stopped;
    process.stdout.write(ERASE_LINE);
  }
  console.log("[foreground supervisor stopped with every task]");
  return 0;
}
