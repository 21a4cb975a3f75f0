// When a running task counts as idle, in one place for the daemon (which decides it) and `wait`
// (which sets a timer for it). Durations here are monotonic milliseconds (`performance.now()`):
// a wall-clock step (NTP, a VM restore, `date -s`) must neither wake a quiet task nor keep one
// active. Wall-clock time is only for timestamps people read.

/**
 * A running task with no output for `after` ms is idle (daemon.md). The threshold is the daemon's
 * idle_seconds (settings.ts, the one parser of the file and FLEETCOM_IDLE_SECONDS); `wait` asks
 * the daemon for it, so the two never go by different ones.
 */
export function isIdle(lastActivity: number, now: number, after: number): boolean {
  return now - lastActivity >= after;
}

// However the clocks of two processes disagree, a task that prints nothing more is idle at most
// the threshold from now; and asking again sooner than this would only poll the daemon.
const RECHECK_MIN_MS = 250;

/**
 * How long a client waits before asking again whether a task is idle, from the wall-clock time of
 * its last output as the daemon reported it. Bounded both ways, so that a wall-clock step between
 * the two readings costs at most one more question, never an hour's wait or a busy loop.
 */
export function msUntilIdle(lastOutputWallMs: number, nowWallMs: number, idleMs: number): number {
  const estimate = lastOutputWallMs + idleMs - nowWallMs;
  return Math.min(idleMs, Math.max(RECHECK_MIN_MS, estimate));
}
