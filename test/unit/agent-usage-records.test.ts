// What one record of an agent's store says about tokens (src/agent-usage-records.ts): hostile and
// odd shapes in the same tables as the good ones say nothing rather than a wrong number.
import { expect, test } from "bun:test";
import { claudeUsageReader, codexUsageReader, geminiUsageReader, opencodeUsageRows, qwenUsageReader } from "../../src/agent-usage-records.ts";
import { UsageLedger } from "../../src/agent-usage.ts";

const read = (reader: ReturnType<typeof claudeUsageReader>, ...records: unknown[]) => {
  const ledger = new UsageLedger();
  for (const r of records) reader(r, ledger);
  return ledger.usage();
};

test.each([
  ["a string count", { type: "assistant", message: { id: "m", usage: { output_tokens: "50" } } }, 0],
  ["a negative count", { type: "assistant", message: { id: "m", usage: { output_tokens: -5 } } }, 0],
  ["an infinite count", { type: "assistant", message: { id: "m", usage: { output_tokens: Number.POSITIVE_INFINITY } } }, 0],
  ["a fraction", { type: "assistant", message: { id: "m", usage: { output_tokens: 2.7 } } }, 2],
  ["a good count", { type: "assistant", message: { id: "m", usage: { output_tokens: 7 } } }, 7],
])("Claude: %s is read as a whole count or 0", (_, record, output) => {
  expect(read(claudeUsageReader(), record)?.output).toBe(output);
});

test.each([
  ["a user record", { type: "user", message: { id: "m", usage: { output_tokens: 7 } } }],
  ["an assistant record without usage", { type: "assistant", message: { id: "m" } }],
  ["an array", [1, 2]],
  ["null", null],
  ["a number", 5],
])("Claude: %s says nothing", (_, record) => {
  expect(read(claudeUsageReader(), record)).toBeNull();
});

test("Claude's own `<synthetic>` replies name no model", () => {
  expect(read(claudeUsageReader(), { type: "assistant", message: { id: "m", model: "<synthetic>", usage: { output_tokens: 0 } } })?.model).toBeNull();
});

test("Codex: a token_count without info (its first, before any turn) says nothing; cached never exceeds input", () => {
  expect(read(codexUsageReader(), { type: "event_msg", payload: { type: "token_count", info: null } })).toBeNull();
  const info = { total_token_usage: { input_tokens: 10, cached_input_tokens: 50, output_tokens: 1 } };
  expect(read(codexUsageReader(), { type: "event_msg", payload: { type: "token_count", info } })).toMatchObject({ input: 0, cacheRead: 10 });
});

test("Gemini: a user record with tokens, or a reply without an id, says nothing", () => {
  const tokens = { input: 5, output: 1, cached: 0 };
  expect(read(geminiUsageReader(), { id: "u", type: "user", tokens }, { type: "gemini", tokens })).toBeNull();
});

test("Qwen: a record of another type with usageMetadata says nothing", () => {
  expect(read(qwenUsageReader(), { uuid: "s", type: "system", usageMetadata: { promptTokenCount: 9 } })).toBeNull();
});

test("opencode: a row whose data is not JSON, or a user message, says nothing", () => {
  const ledger = new UsageLedger();
  opencodeUsageRows(
    [
      { id: "msg_1", data: "{not json" },
      { id: "msg_2", data: JSON.stringify({ role: "user", tokens: { input: 5 } }) },
    ],
    ledger,
  );
  expect(ledger.usage()).toBeNull();
});
