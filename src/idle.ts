// When a running task counts as idle, in one place for the daemon (which decides it) and `wait`
// (which sets a timer for it). Durations here are monotonic milliseconds (`performance.now()`):
// a wall-clock step (NTP, a VM restore, `date -s`) must neither wake a quiet task nor keep one
// active. Wall-clock time is only for timestamps people read.

/**
 * A running task with no output for this long is idle (daemon.md): 10 s, or FLEETCOM_IDLE_SECONDS,
 * which the daemon reads over the config file's idle_seconds (settings.ts) and `wait` reads too, so
 * a test's short spell is one setting for both.
 */
export const IDLE_AFTER_MS = idleAfterMs(process.env.FLEETCOM_IDLE_SECONDS);

function idleAfterMs(raw: string | undefined): number {
  const seconds = raw !== undefined && /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  return seconds > 0 && seconds <= 86_400 ? seconds * 1000 : 10_000;
}

export function isIdle(lastActivity: number, now: number, after = IDLE_AFTER_MS): boolean {
  return now - lastActivity >= after;
}

// However the clocks of two processes disagree, a task that prints nothing more is idle at most
// IDLE_AFTER_MS from now; and asking again sooner than this would only poll the daemon.
const RECHECK_MIN_MS = 250;

/**
 * How long a client waits before asking again whether a task is idle, from the wall-clock time of
 * its last output as the daemon reported it. Bounded both ways, so that a wall-clock step between
 * the two readings costs at most one more question, never an hour's wait or a busy loop.
 */
export function msUntilIdle(lastOutputWallMs: number, nowWallMs: number): number {
  const estimate = lastOutputWallMs + IDLE_AFTER_MS - nowWallMs;
  return Math.min(IDLE_AFTER_MS, Math.max(RECHECK_MIN_MS, estimate));
}
