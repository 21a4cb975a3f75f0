// Whether a task's news is pushed at all (src/daemon-notify-gate.ts): a muted task never; one a client
// attached to it typed into within notify_idle, not while that lasts; looking without typing does not count.
import { expect, test } from "bun:test";
import { PushGate } from "../../src/daemon-notify-gate.ts";

test("typing while attached silences a task for notify_idle; being attached alone, or having typed and left, does not", () => {
  const gate = new PushGate();
  gate.idleMs = 60_000;
  const task = { id: 4, notify: true };
  expect(gate.silent(task, true, 1_000)).toBe(false);
  gate.typed(4, 1_000);
  expect(gate.silent(task, true, 30_000)).toBe(true);
  expect(gate.silent(task, false, 30_000)).toBe(false);
  expect(gate.silent(task, true, 61_000)).toBe(false);
  expect(gate.silent({ id: 5, notify: true }, true, 30_000)).toBe(false);
});

test("a muted task is silent whoever looks; a forgotten task's typing is gone", () => {
  const gate = new PushGate();
  expect(gate.silent({ id: 1, notify: false }, false)).toBe(true);
  gate.typed(2, 0);
  gate.forget(2);
  expect(gate.silent({ id: 2, notify: true }, true, 1)).toBe(false);
});
