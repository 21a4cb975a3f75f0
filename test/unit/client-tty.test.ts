// The terminal attach draws on (client-tty.ts): a resize that came before attach listened for one
// (it listens once its first screen is drawn) is told to the listener when it comes, through Bun's
// libc terminal and node's streams alike.
import { expect, test } from "bun:test";
import { SeenSize } from "../../src/client-tty.ts";

test("a listener that comes after an unheard resize is told at once; one that comes after none is not", async () => {
  let now = { cols: 90, rows: 25 };
  const seen = new SeenSize(() => now);
  expect(seen.size()).toEqual({ cols: 90, rows: 25 });
  let told = 0;
  seen.catchUp(() => told++);
  await Promise.resolve();
  expect(told).toBe(0);
  now = { cols: 110, rows: 33 };
  seen.catchUp(() => told++);
  await Promise.resolve();
  expect(told).toBe(1);
  // The listener reads the size again, as attach's does: nothing more is owed.
  expect(seen.size()).toEqual({ cols: 110, rows: 33 });
  seen.catchUp(() => told++);
  await Promise.resolve();
  expect(told).toBe(1);
});

test("before any size was handed out there is nothing to compare with", async () => {
  let told = 0;
  new SeenSize(() => ({ cols: 1, rows: 1 })).catchUp(() => told++);
  await Promise.resolve();
  expect(told).toBe(0);
});
