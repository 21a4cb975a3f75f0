// How much of a `load` runs before the daemon serves its other clients (daemon-load-turns.ts): a
// turn ends after four spawns or 512 skipped entries, and after 10 ms of either, whichever comes
// first. The clock is the test's own: nothing here waits.
import { expect, test } from "bun:test";
import { LoadTurns, TURN_MS } from "../../src/daemon-load-turns.ts";

test("a turn ends after four spawns, or after 512 skipped entries", () => {
  const turns = new LoadTurns(() => 0);
  expect([turns.did("spawn"), turns.did("spawn"), turns.did("spawn"), turns.did("spawn")]).toEqual([false, false, false, true]);
  turns.yielded();
  const skips = Array.from({ length: 512 }, () => turns.did("skip"));
  expect(skips.indexOf(true)).toBe(511);
});

test("a turn also ends once it has run for 10 ms, however little it did: one slow spawn is a turn", () => {
  let now = 1_000;
  const turns = new LoadTurns(() => now);
  now += 2;
  expect(turns.did("spawn")).toBe(false);
  now += TURN_MS;
  expect(turns.did("spawn")).toBe(true);
  turns.yielded();
  now += 1;
  expect(turns.did("skip")).toBe(false);
  now += TURN_MS;
  expect(turns.did("skip")).toBe(true);
});
