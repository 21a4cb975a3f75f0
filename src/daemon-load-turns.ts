// How much a `load` does before it lets the daemon serve its other clients: four spawns, or 512
// entries skipped for a missing directory, or TURN_MS of either, whichever comes first. A spawn takes
// 3-15 ms on a busy 2-core machine, so a count alone let other clients wait up to ~240 ms there
// (docs/benchmarks.md, load-320-max-wait); counting time as well keeps each turn near 10 ms.

export const CHECKS_PER_TURN = 512;
export const CHECKS_PER_SPAWN = CHECKS_PER_TURN / 4;
export const TURN_MS = 10;

export class LoadTurns {
  private work = 0;
  private started: number;

  /** `now` is monotonic, in ms (performance.now; tests pass their own). */
  constructor(private readonly now: () => number = () => performance.now()) {
    this.started = now();
  }

  /** Counts a spawn or a skipped entry; true when the load should yield before the next one. */
  did(what: "spawn" | "skip"): boolean {
    this.work += what === "spawn" ? CHECKS_PER_SPAWN : 1;
    return this.work >= CHECKS_PER_TURN || this.now() - this.started >= TURN_MS;
  }

  /** After the yield: a new turn starts now. */
  yielded(): void {
    this.work = 0;
    this.started = this.now();
  }
}
