// Tokens as people read them (src/task-usage.ts): the short `ls` figure, `—` for an agent whose store
// has none, the totals by agent, model and host, and money only at the prices the user gave.
import { expect, test } from "bun:test";
import { costOf, shortCount, type TokenUsage, usageCell, usageTotals } from "../../src/task-usage.ts";

const usage = (over: Partial<TokenUsage> = {}): TokenUsage => ({
  model: "m1",
  input: 1000,
  output: 2000,
  cacheRead: 40_000,
  cacheWrite: 5000,
  context: { used: 46_000, window: null },
  ...over,
});

test.each([
  [0, "0"],
  [999, "999"],
  [1000, "1k"],
  [48_400, "48k"],
  [999_499, "999k"],
  [999_500, "1.0M"],
  [1_234_567, "1.2M"],
  [12_600_000, "13M"],
])("%p tokens are shown as %p", (n, shown) => {
  expect(shortCount(n)).toBe(shown);
});

test("the ls cell: the whole conversation's tokens, `—` for an agent with none, nothing for a command that is no agent", () => {
  expect(usageCell({ agent: "claude", usage: usage() })).toBe("48k tok");
  expect(usageCell({ agent: "grok", usage: null })).toBe("—");
  expect(usageCell({ agent: null, usage: null })).toBe("");
});

test("totals by agent, model and host; a model without a price has no cost, never a guessed one", () => {
  const totals = usageTotals(
    [
      { agent: "claude", model: "m1", host: null, usage: usage() },
      { agent: "claude", model: "m1", host: null, usage: usage({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }) },
      { agent: "claude", model: "m1", host: "box", usage: usage() },
      { agent: "codex", model: "m2", host: null, usage: usage() },
    ],
    { m1: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  );
  expect(totals.map((t) => [t.agent, t.model, t.host, t.tasks, t.input, t.output, t.total])).toEqual([
    ["claude", "m1", null, 2, 1001, 2001, 48_002],
    ["claude", "m1", "box", 1, 1000, 2000, 48_000],
    ["codex", "m2", null, 1, 1000, 2000, 48_000],
  ]);
  expect(totals[1]!.cost).toBeCloseTo((1000 * 3 + 2000 * 15 + 40_000 * 0.3 + 5000 * 3.75) / 1_000_000, 10);
  expect(totals[2]!.cost).toBeNull();
});

test("a saved conversation no task runs is counted apart from the tasks, its tokens in the same total", () => {
  const totals = usageTotals([
    { agent: "claude", model: "m1", host: null, usage: usage() },
    { agent: "claude", model: "m1", host: null, usage: usage(), saved: true },
    { agent: "claude", model: "m1", host: null, usage: usage(), saved: true },
  ]);
  expect(totals.map((t) => [t.tasks, t.saved, t.total])).toEqual([[1, 2, 3 * 48_000]]);
});

test("a kind of token given no price costs nothing", () => {
  expect(costOf(usage(), { output: 10 })).toBeCloseTo(0.02, 10);
});
