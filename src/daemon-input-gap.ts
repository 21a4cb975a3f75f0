// Periodic work that holds the event loop for milliseconds waits for a gap in the typing.
//
// The history pass reads a task's whole scrollback out of its emulator on the daemon's one thread
// (milliseconds, more the longer it is: docs/benchmarks.md). On its own timer it
// lands on a keystroke now and then, and that key's echo waits behind it: the tail of the typing
// latency. Keys come tens of milliseconds apart even from a fast typist, and a key's whole round
// trip through the daemon is done within a millisecond or two of its arrival, so the safest moment
// for such work is just after a key: GAP_MS after the last input from any attached client, the
// echo is out and the next key is still far off. Input that never pauses (a paste, a script typing
// through attach) cannot hold the work back for more than MAX_WAIT_MS.
//
// Pure: the clock and the timer are given, so the unit test runs it without waiting.

/** No input for this long: the last key's echo is out, and the next key is not due yet. */
export const GAP_MS = 20;
/** Work is never held back longer than this, however steadily input comes. */
export const MAX_WAIT_MS = 1_000;

export interface GapClock {
  now(): number;
  after(ms: number, run: () => void): void;
}

const REAL_CLOCK: GapClock = {
  now: () => performance.now(),
  after: (ms, run) => void setTimeout(run, ms).unref?.(),
};

export class InputGap {
  private lastInput = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: GapClock = REAL_CLOCK) {}

  /** A client's input went to a task. */
  input(): void {
    this.lastInput = this.clock.now();
  }

  /** Runs `work` once no input has come for GAP_MS (at once if none just came), or after MAX_WAIT_MS whatever comes. */
  run(work: () => void): void {
    const deadline = this.clock.now() + MAX_WAIT_MS;
    const attempt = () => {
      const now = this.clock.now();
      const quietFor = now - this.lastInput;
      if (quietFor >= GAP_MS || now >= deadline) return work();
      this.clock.after(Math.min(GAP_MS - quietFor, deadline - now), attempt);
    };
    attempt();
  }
}
