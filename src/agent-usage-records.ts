// What each agent's own store says about tokens, record by record, as the real CLIs write it
// (docs/usage.md). Pure: each reader takes a parsed record and puts what it says in a ledger
// (agent-usage.ts reads the files). A record of another shape says nothing; nothing is guessed.
//
// - Claude: transcript records `{type: "assistant", message: {id, model, usage: {input_tokens,
//   output_tokens, cache_read_input_tokens, cache_creation_input_tokens}}}`. Claude writes one line
//   per content block while it streams, each with the message's id and usage so far: a message is
//   counted once, as its last line says.
// - Codex: rollout records `{type: "event_msg", payload: {type: "token_count", info:
//   {total_token_usage, last_token_usage, model_context_window}}}`, the totals already summed by
//   Codex (its input_tokens include cached_input_tokens); the model from `turn_context` records.
// - Gemini: session records `{id, type: "gemini", model, tokens: {input, output, cached, thoughts,
//   tool, total}}` (input includes cached), a record written again under its id when it changes, and
//   `{"$set": {"messages": […]}}` replacing the whole list.
// - Qwen: transcript records `{uuid, type: "assistant", model, contextWindowSize, usageMetadata:
//   {promptTokenCount, candidatesTokenCount, cachedContentTokenCount, thoughtsTokenCount}}`.
// - opencode: its database's `message` rows, whose `data` is `{role: "assistant", modelID, tokens:
//   {input, output, reasoning, cache: {read, write}}}`.
import { member } from "./agent-files.ts";
import type { ContextUse, TokenUsage } from "./task-usage.ts";

/** One message's tokens, with the model it names and the context its input filled. */
export type UsageEntry = TokenUsage;

/** Where a reader puts what records say (agent-usage.ts UsageLedger). */
export interface Ledger {
  /** The entry for a message, replacing what an earlier line said of the same message. */
  put(key: string, entry: UsageEntry): void;
  /** Forget every entry: the store says its whole list again. */
  clear(): void;
}

/** A reader of one store's records; it may keep what earlier records said (Codex's model). */
export type RecordReader = (record: unknown, ledger: Ledger) => void;

/** A count the store gives, or 0 for anything that is not a finite count. */
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function context(used: number, window: unknown): ContextUse {
  const size = count(window);
  return { used, window: size > 0 ? size : null };
}

// Claude names a message it made up itself (an API error shown as a reply) `<synthetic>`: it used no model.
const CLAUDE_SYNTHETIC = "<synthetic>";

/** Claude's transcript: each assistant message once, by its id. */
export function claudeUsageReader(): RecordReader {
  return (record, ledger) => {
    if (member(record, "type") !== "assistant") return;
    const message = member(record, "message");
    const usage = member(message, "usage");
    const key = text(member(message, "id")) ?? text(member(record, "requestId")) ?? text(member(record, "uuid"));
    if (usage === undefined || key === null) return;
    const model = text(member(message, "model"));
    const input = count(member(usage, "input_tokens"));
    const cacheRead = count(member(usage, "cache_read_input_tokens"));
    const cacheWrite = count(member(usage, "cache_creation_input_tokens"));
    ledger.put(key, {
      model: model === CLAUDE_SYNTHETIC ? null : model,
      input,
      output: count(member(usage, "output_tokens")),
      cacheRead,
      cacheWrite,
      context: context(input + cacheRead + cacheWrite, null),
    });
  };
}

/** Codex's rollout: its running totals, the last one standing for the conversation. */
export function codexUsageReader(): RecordReader {
  let model: string | null = null;
  return (record, ledger) => {
    const payload = member(record, "payload");
    if (member(record, "type") === "turn_context") {
      model = text(member(payload, "model")) ?? model;
      return;
    }
    if (member(record, "type") !== "event_msg" || member(payload, "type") !== "token_count") return;
    const info = member(payload, "info");
    const total = member(info, "total_token_usage");
    if (total === undefined) return;
    const input = count(member(total, "input_tokens"));
    const cached = Math.min(input, count(member(total, "cached_input_tokens")));
    const last = member(info, "last_token_usage");
    ledger.put("total", {
      model,
      input: input - cached,
      output: count(member(total, "output_tokens")),
      cacheRead: cached,
      cacheWrite: 0,
      context: last === undefined ? null : context(count(member(last, "input_tokens")), member(info, "model_context_window")),
    });
  };
}

/** Gemini's session file: each reply once, by its id; a `$set` of the messages starts the list again. */
export function geminiUsageReader(): RecordReader {
  const putReply = (record: unknown, ledger: Ledger) => {
    const tokens = member(record, "tokens");
    const key = text(member(record, "id"));
    if (member(record, "type") !== "gemini" || tokens === undefined || key === null) return;
    const prompt = count(member(tokens, "input"));
    const cached = Math.min(prompt, count(member(tokens, "cached")));
    ledger.put(key, {
      model: text(member(record, "model")),
      input: prompt - cached + count(member(tokens, "tool")),
      output: count(member(tokens, "output")) + count(member(tokens, "thoughts")),
      cacheRead: cached,
      cacheWrite: 0,
      context: context(prompt, null),
    });
  };
  return (record, ledger) => {
    const messages = member(member(record, "$set"), "messages");
    if (Array.isArray(messages)) {
      ledger.clear();
      for (const message of messages) putReply(message, ledger);
      return;
    }
    putReply(record, ledger);
  };
}

/** Qwen's transcript: each assistant record once, by its uuid. */
export function qwenUsageReader(): RecordReader {
  return (record, ledger) => {
    const usage = member(record, "usageMetadata");
    const key = text(member(record, "uuid"));
    if (member(record, "type") !== "assistant" || usage === undefined || key === null) return;
    const prompt = count(member(usage, "promptTokenCount"));
    const cached = Math.min(prompt, count(member(usage, "cachedContentTokenCount")));
    ledger.put(key, {
      model: text(member(record, "model")),
      input: prompt - cached,
      output: count(member(usage, "candidatesTokenCount")) + count(member(usage, "thoughtsTokenCount")),
      cacheRead: cached,
      cacheWrite: 0,
      context: context(prompt, member(record, "contextWindowSize")),
    });
  };
}

/** The query of a session's messages, oldest first: its one parameter is the session's ID. */
export const OPENCODE_USAGE_SQL = "SELECT id, data FROM message WHERE session_id = ? ORDER BY id";

/**
 * opencode's message rows (`id`, `data` as JSON text): each assistant message once. A row whose data
 * is not JSON says nothing. Returns when the newest of those messages was completed (else created),
 * epoch ms, as its `time` says; null when none says.
 */
export function opencodeUsageRows(rows: readonly Record<string, unknown>[], ledger: Ledger): number | null {
  let newest: number | null = null;
  for (const row of rows) {
    const key = text(row.id);
    let data: unknown;
    try {
      data = typeof row.data === "string" ? JSON.parse(row.data) : row.data;
    } catch {
      continue;
    }
    const tokens = member(data, "tokens");
    if (key === null || member(data, "role") !== "assistant" || tokens === undefined) continue;
    const cache = member(tokens, "cache");
    const input = count(member(tokens, "input"));
    const cacheRead = count(member(cache, "read"));
    const cacheWrite = count(member(cache, "write"));
    const time = member(data, "time");
    const at = count(member(time, "completed")) || count(member(time, "created"));
    if (at > 0) newest = Math.max(newest ?? 0, at);
    ledger.put(key, {
      model: text(member(data, "modelID")),
      input,
      output: count(member(tokens, "output")) + count(member(tokens, "reasoning")),
      cacheRead,
      cacheWrite,
      context: context(input + cacheRead + cacheWrite, null),
    });
  }
  return newest;
}
