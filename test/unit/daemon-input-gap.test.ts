// Periodic work on the daemon's loop waits for a gap in the typing (daemon-input-gap.ts): it runs
// GAP_MS after the last keystroke, or at once when nobody typed, and never later than MAX_WAIT_MS
// however steadily keys come. The clock and timer are the test's own: nothing here waits.
import { expect, test } from "bun:test";
import { GAP_MS, InputGap, MAX_WAIT_MS, type GapClock } from "../../src/daemon-input-gap.ts";

class FakeClock implements GapClock {
  time = 1_000;
  private timers: { at: number; run: () => void }[] = [];
  now(): number {
    return this.time;
  }
  after(ms: number, run: () => void): void {
    this.timers.push({ at: this.time + ms, run });
  }
  /** Moves time on by `ms`, running each timer that comes due, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.time = next.at;
      next.run();
    }
    this.time = end;
  }
}

test("with nobody typing, the work runs at once", () => {
  const clock = new FakeClock();
  const gap = new InputGap(clock);
  let runs = 0;
  gap.run(() => runs++);
  expect(runs).toBe(1);
});

test("right after a keystroke the work waits, and runs once the typing has paused for GAP_MS", () => {
  const clock = new FakeClock();
  const gap = new InputGap(clock);
  let ranAt: number | null = null;
  gap.input();
  clock.advance(1);
  gap.run(() => (ranAt = clock.now()));
  expect(ranAt).toBeNull();
  // Another key comes before the gap: the wait starts again from it.
  clock.advance(GAP_MS - 5);
  gap.input();
  clock.advance(GAP_MS - 1);
  expect(ranAt).toBeNull();
  clock.advance(1);
  expect(ranAt as number | null).toBe(clock.now());
});

test("input that never pauses holds the work back for MAX_WAIT_MS at most", () => {
  const clock = new FakeClock();
  const gap = new InputGap(clock);
  const started = clock.now();
  let ranAt: number | null = null;
  gap.input();
  gap.run(() => (ranAt = clock.now()));
  for (let t = 0; t < 2 * MAX_WAIT_MS && ranAt === null; t += 2) {
    clock.advance(2);
    gap.input();
  }
  expect(ranAt as number | null).toBe(started + MAX_WAIT_MS);
});

test("the history writer's timed pass reads no scrollback while a client is typing, and writes in the next gap", async () => {
  const { mkdtempSync, readdirSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { HistoryWriter } = await import("../../src/daemon-history.ts");
  const dir = mkdtempSync(join(tmpdir(), "fleetcom-input-gap-"));
  const clock = new FakeClock();
  const asked: (() => void)[] = [];
  const waited = new Promise<void>((resolve) => {
    const after = clock.after.bind(clock);
    clock.after = (ms, run) => {
      after(ms, run);
      asked.push(run);
      resolve();
    };
  });
  let reads = 0;
  let read!: () => void;
  const wasRead = new Promise<void>((resolve) => (read = resolve));
  const task = {
    id: 1,
    historyDirty: true,
    async history() {
      reads += 1;
      read();
      return ["typed"];
    },
  };
  const inputGap = new InputGap(clock);
  const source = { startedAt: new Date(), all: () => [task], holds: () => true, inputGap };
  const writer = new HistoryWriter(source as never, { recoveryDir: dir, intervalMs: 1, log: () => {} });
  try {
    inputGap.input();
    writer.start();
    await waited;
    expect(reads).toBe(0);
    clock.advance(GAP_MS);
    await wasRead;
    await writer.stop();
    expect(reads).toBeGreaterThan(0);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
  } finally {
    await writer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
