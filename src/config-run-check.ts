// How long `run`, `load` and `recover` watch what they started for a failure at once
// (client-started.ts): `run_check` in config.toml, FLEETCOM_RUN_CHECK over it, else the default.
// The moment is paid by every task that keeps running, so it is the user's to choose: `0` turns the
// check off (a script that starts many tasks and reads `ls` itself), a longer one catches a program
// that takes longer to fail. A bad value is one line naming the file and line (or the variable),
// and the default is used.
import type { Env } from "./paths.ts";
import { configFile, readConfigFile } from "./settings.ts";

/** Long enough for a shell to find no command and a program to refuse its arguments; short enough to wait for. */
export const DEFAULT_RUN_CHECK_MS = 300;
/** A check longer than this is no longer a moment: a script would wait it for every task. */
export const MAX_RUN_CHECK_MS = 5_000;

export const RUN_CHECK_KEY = "run_check";
const RUN_CHECK_ENV = "FLEETCOM_RUN_CHECK";

/** The moment in milliseconds, where it came from (`default`, the variable, `<file>:<line>`), and the problem that made it the default. */
export interface RunCheck {
  ms: number;
  source: string;
  problem: string | null;
}

/** `0.3s`, `300ms`, `0.3` or `0` (seconds when no unit is written), or a TOML number of seconds. */
export function parseRunCheck(value: unknown): number | string {
  const written = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : null;
  const match = written === null ? null : /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(written);
  if (!match) return `expected a moment such as "0.3s", "300ms" or 0 (off), got ${JSON.stringify(value)}`;
  const ms = Math.round(Number(match[1]) * (match[2] === "ms" ? 1 : 1000));
  if (ms > MAX_RUN_CHECK_MS) return `${written} is longer than the most, ${MAX_RUN_CHECK_MS / 1000}s`;
  return ms;
}

/** The moment in effect for this process: the variable, else the config file's key, else the default. */
export function runCheckSetting(env: Env = process.env): RunCheck {
  const fromEnv = env[RUN_CHECK_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    const parsed = parseRunCheck(fromEnv);
    if (typeof parsed === "number") return { ms: parsed, source: RUN_CHECK_ENV, problem: null };
    return byDefault(`${RUN_CHECK_ENV}: ${parsed}`);
  }
  const file = configFile(env);
  const given = readConfigFile(file).values.get(RUN_CHECK_KEY);
  if (given === undefined) return { ms: DEFAULT_RUN_CHECK_MS, source: "default", problem: null };
  const parsed = parseRunCheck(given.value);
  if (typeof parsed === "number") return { ms: parsed, source: `${file}:${given.line}`, problem: null };
  return byDefault(`${file}:${given.line}: ${RUN_CHECK_KEY}: ${parsed}`);
}

function byDefault(problem: string): RunCheck {
  return { ms: DEFAULT_RUN_CHECK_MS, source: "default", problem: `${problem}; using ${runCheckText(DEFAULT_RUN_CHECK_MS)}` };
}

/** `0.3s`, or `off`. */
export function runCheckText(ms: number): string {
  return ms === 0 ? "off" : `${ms / 1000}s`;
}
