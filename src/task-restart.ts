// Restart policies (docs/services.md) as pure functions: whether a run that ended is started again,
// after how long, and when a task that keeps failing is given up on as a crash loop. The daemon's
// timers live in daemon-restarts.ts; both processes read the policy's names and the crash loop's text.
//
// INVARIANT: a run the user stopped (kill, rm --force, a restart, the daemon stopping) is never
// restarted by a policy: the caller says so in `RunEnd.stoppedOnPurpose`, and that wins over any policy.

export const RESTART_POLICIES = ["no", "on-failure", "always"] as const;
export type RestartPolicy = (typeof RESTART_POLICIES)[number];

/** pm2's and process-compose's default: five restarts that never stay up, then give up. */
export const DEFAULT_MAX_RESTARTS = 5;
/** The first restart of a streak waits this long; each next one twice as long as the last. */
export const FIRST_BACKOFF_MS = 100;
/** The longest wait between two restarts. */
export const MAX_BACKOFF_MS = 60_000;
/** A run up this long has stayed up: the backoff and the crash-loop count start again (pm2's min_uptime). */
export const STAYED_UP_MS = 60_000;

/** A task's policy, as `run --restart`/`--max-restarts` and a recipe give it. `maxRestarts` 0: no limit. */
export interface RestartRule {
  policy: RestartPolicy;
  maxRestarts: number;
}

export const NO_RESTART: RestartRule = { policy: "no", maxRestarts: DEFAULT_MAX_RESTARTS };

/** Where a task stands with its policy. `streak`: restarts since a run last stayed up; `streakSince`: when its first failure ended (epoch ms). */
export interface RestartState {
  rule: RestartRule;
  /** Every restart the policy made, for `ls` (↻3); a recovery keeps it. */
  restarts: number;
  streak: number;
  streakSince: number | null;
}

export function restartState(rule: RestartRule = NO_RESTART, restarts = 0): RestartState {
  return { rule, restarts, streak: 0, streakSince: null };
}

/** How a run ended, as the policy weighs it. */
export interface RunEnd {
  exitCode: number | null;
  signal: string | null;
  /** How long the run was up. */
  upMs: number;
  /** When it ended (epoch ms). */
  at: number;
  /** The user stopped it (kill, rm --force, restart) or the daemon is stopping. */
  stoppedOnPurpose: boolean;
  /** Its readiness probe gave up on it (task-ready.ts): a failure, however the run then ended. */
  notReady?: boolean;
  /** fleetcom stopped it over its --max-memory: a failure, however the run then ended. */
  overMemory?: boolean;
}

export type RestartDecision =
  | { kind: "none" }
  | { kind: "restart"; delayMs: number; state: RestartState }
  | { kind: "crash-loop"; state: RestartState; text: string };

/** Whether this ending is one the policy answers: any for `always`, a non-zero exit or a signal for `on-failure`. */
export function endCalls(policy: RestartPolicy, end: Pick<RunEnd, "exitCode" | "signal" | "notReady" | "overMemory">): boolean {
  if (policy === "always") return true;
  if (policy === "on-failure" && (end.notReady || end.overMemory)) return true;
  if (policy === "on-failure") return end.signal !== null || end.exitCode !== 0;
  return false;
}

/** The wait before restart number `streak + 1` of a streak: FIRST_BACKOFF_MS doubled `streak` times, at most MAX_BACKOFF_MS. */
export function backoffMs(streak: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.min(streak, 20), MAX_BACKOFF_MS);
}

/** What happens after a run ended: nothing, a restart after a wait, or the crash loop that ends the streak. */
export function decide(state: RestartState, end: RunEnd): RestartDecision {
  if (end.stoppedOnPurpose || !endCalls(state.rule.policy, end)) return { kind: "none" };
  const stayedUp = end.upMs >= STAYED_UP_MS;
  const streak = stayedUp ? 0 : state.streak;
  const streakSince = stayedUp || state.streakSince === null ? end.at : state.streakSince;
  const { maxRestarts } = state.rule;
  if (maxRestarts > 0 && streak >= maxRestarts) {
    const seconds = Math.max(0, Math.round((end.at - streakSince) / 1000));
    return { kind: "crash-loop", state: { ...state, streak, streakSince }, text: crashLoopText(streak, seconds, end) };
  }
  return { kind: "restart", delayMs: backoffMs(streak), state: { ...state, restarts: state.restarts + 1, streak: streak + 1, streakSince } };
}

/** `crash loop · 5 restarts in 40s · exit 1` (or `· not ready`): the state a task given up on shows. */
export function crashLoopText(restarts: number, seconds: number, end: Pick<RunEnd, "exitCode" | "signal" | "notReady" | "overMemory">): string {
  const how = end.notReady ? "not ready" : end.overMemory ? "over --max-memory" : howItEnded(end);
  return `crash loop · ${restarts} restart${restarts === 1 ? "" : "s"} in ${seconds}s · ${how}`;
}

/** `exit 1`, `SIGSEGV`: how a run ended, in the few characters a separator or a state has. */
export function howItEnded(end: Pick<RunEnd, "exitCode" | "signal">): string {
  if (end.signal !== null) return end.signal;
  return `exit ${end.exitCode ?? "?"}`;
}

/** `── run 3 · 12:03:44 · after exit 1 ──`: the line between one run's output and the next one's in a task's history. */
export function runSeparator(run: number, at: Date, previous: Pick<RunEnd, "exitCode" | "signal">): string {
  const clock = [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  return `── run ${run} · ${clock} · after ${howItEnded(previous)} ──`;
}

/** `↻3` beside a task's state once a policy restarted it; nothing before. */
export function restartMark(restarts: number): string {
  return restarts > 0 ? ` ↻${restarts}` : "";
}

/** `restarting in 3s`: what a task waiting out its backoff shows (`nextRestartAt` ISO 8601, `now` epoch ms). */
export function countdownText(nextRestartAt: string, now: number): string {
  const seconds = Math.max(0, Math.ceil((Date.parse(nextRestartAt) - now) / 1000));
  return `restarting in ${seconds}s`;
}
