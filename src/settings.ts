// The daemon's settings. A bad environment value must not stop a daemon from starting, so it falls
// back with a warning in the log; a bad flag is the user's to fix.
import { UserError } from "./errors.ts";

export const DEFAULT_SCROLLBACK = 2_000;
export const MAX_SCROLLBACK = 100_000;

/** How many lines each task keeps above its screen: `daemon --scrollback N`, else FLEETCOM_SCROLLBACK, else 2,000; capped at 100,000; 0 keeps none. */
export function scrollbackSetting(flag: string | undefined, env: string | undefined, log: (m: string) => void): number {
  const parse = (v: string) => (/^\d+$/.test(v.trim()) ? Math.min(Number(v), MAX_SCROLLBACK) : NaN);
  if (flag !== undefined) {
    const n = parse(flag);
    if (Number.isNaN(n)) throw new UserError(`--scrollback: expected a whole number, got '${flag}'`, 2);
    return n;
  }
  if (env !== undefined && env !== "") {
    const n = parse(env);
    if (!Number.isNaN(n)) return n;
    log(`FLEETCOM_SCROLLBACK='${env}' is not a whole number; using ${DEFAULT_SCROLLBACK}`);
  }
  return DEFAULT_SCROLLBACK;
}

/** Long enough for any client on a loaded machine (the hello is its first write), short enough that silent connections cannot pile up until the daemon runs out of fds. */
export const HANDSHAKE_TIMEOUT_MS = 5_000;

/** FLEETCOM_HANDSHAKE_TIMEOUT_MS (milliseconds, for tests); a bad value falls back with a warning in the log. */
export function handshakeTimeoutSetting(env: string | undefined, log: (m: string) => void): number {
  if (env === undefined || env === "") return HANDSHAKE_TIMEOUT_MS;
  if (/^\d+$/.test(env.trim()) && Number(env) > 0) return Number(env);
  log(`FLEETCOM_HANDSHAKE_TIMEOUT_MS='${env}' is not a positive whole number; using ${HANDSHAKE_TIMEOUT_MS}`);
  return HANDSHAKE_TIMEOUT_MS;
}

/** How long a spawn waits at most for an agent binary's --help before running the command as typed. */
export const DEFAULT_PROBE_BUDGET_MS = 300;

/** FLEETCOM_AGENT_PROBE_MS: how long a spawn may wait for an agent binary's --help (agent-probe.ts; tests raise it). */
export function agentProbeBudgetSetting(raw: string | undefined, log: (message: string) => void): number {
  if (raw === undefined || raw === "") return DEFAULT_PROBE_BUDGET_MS;
  if (/^\d+$/.test(raw.trim())) return Number(raw);
  log(`FLEETCOM_AGENT_PROBE_MS='${raw}' is not a whole number of milliseconds; using ${DEFAULT_PROBE_BUDGET_MS}`);
  return DEFAULT_PROBE_BUDGET_MS;
}

/**
 * FLEETCOM_HISTORY=on|off: whether each task's history is kept on disk beside the recovery snapshot
 * and restored by `recover` (docs/recovery.md, History). On by default; history can hold secrets,
 * so `off` writes none, restores none, and lets the next prune remove what earlier daemons kept.
 * Anything else is logged and taken as on.
 */
export function historySetting(raw: string | undefined, log: (message: string) => void): boolean {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "on") return true;
  if (value === "off") return false;
  log(`FLEETCOM_HISTORY='${raw}' is neither on nor off; keeping history (on)`);
  return true;
}
