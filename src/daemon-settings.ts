// The daemon's settings at work (settings.ts, docs/config.md): a reload (SIGHUP, `fleetcom config
// --reload`) and what it changes at once, the agents the settings declare, and what `status` and
// `fleetcom config` show of them.
import { useDeclaredAgents } from "./agent-declared.ts";
import type { Task } from "./daemon-task.ts";
import { UserError } from "./errors.ts";
import type { NotifyTarget } from "./config-notify.ts";
import { reloadedSettings, type Settings } from "./settings.ts";
import type { DaemonSettings, OpResult } from "./wire-protocol.ts";

/** The daemon's options a reload changes (daemon.ts DaemonOptions). */
export interface SettingsInUse {
  scrollback: number;
  notify?: NotifyTarget[];
  idleMs?: number;
  settings?: Settings;
  reread?: () => Settings;
  log(message: string): void;
}

/** What a reload changes beyond the options. */
export interface Reloaded {
  tasks(): Iterable<Task>;
  /** notify's destinations and rules, from now on. */
  notifyTo(targets: NotifyTarget[], settings: Settings): void;
  /** The idle rule changed: every task's idle state is looked at again. */
  idleRuleChanged(): void;
}

/**
 * Reads the settings again and goes by them: notify and idle_seconds at once, scrollback for tasks
 * started or rerun from now on; history waits for a restart (RELOAD_APPLIES in settings.ts). The
 * problems are the file's as it is now.
 */
export function reloadSettings(options: SettingsInUse, fleet: Reloaded): OpResult<"reload"> {
  const { settings: current, reread } = options;
  if (!current || !reread) throw new UserError("this daemon was handed its settings and cannot read them again");
  const { settings, changes } = reloadedSettings(current, reread());
  options.settings = settings;
  declareAgents(settings, false, options.log);
  options.notify = settings.notify.value;
  fleet.notifyTo(settings.notify.value, settings);
  options.scrollback = settings.scrollback.value;
  const idleMs = settings.idleSeconds.value * 1000;
  if (idleMs !== options.idleMs) {
    options.idleMs = idleMs;
    for (const task of fleet.tasks()) task.idleMs = idleMs;
    fleet.idleRuleChanged();
  }
  const changed = changes.map(
    (c) => `${c.key} ${JSON.stringify(c.from.value)} → ${JSON.stringify(c.to.value)}${c.applies === "restart" ? " (after a restart)" : ""}`,
  );
  options.log(`read ${settings.file} again: ${changed.length ? changed.join(", ") : "nothing changed"}`);
  for (const problem of settings.problems) options.log(problem);
  return { changes, settings: daemonSettings(settings)! };
}

/**
 * The agents the settings declare (agent-declared.ts) from now on, for spawns to come; a problem
 * with one joins the settings' problems (the notices, `fleetcom config`), logged here at start (a
 * reload logs them all).
 */
export function declareAgents(settings: Settings | undefined, starting: boolean, log: (message: string) => void): void {
  const problems = useDeclaredAgents(settings?.agents ?? null);
  if (settings) settings.problems.push(...problems);
  if (starting) for (const problem of problems) log(problem);
}

/** The settings as `status` and `fleetcom config` show them; null for a daemon handed none. */
export function daemonSettings(s: Settings | undefined): DaemonSettings | null {
  if (!s) return null;
  const { file, notify, notifyMinRuntime, notifyIdle, scrollback, idleSeconds, history, problems } = s;
  return { file, notify, notifyMinRuntime, notifyIdle, scrollback, idleSeconds, history, problems };
}
