// The tokens an agent task's conversation has used, as both processes see them (docs/usage.md): the
// shape the daemon sends in TaskInfo `usage`, the short figure `ls` shows, the totals `fleetcom
// usage` prints, and money only from prices the user gave. Pure.
//
// `input` is the input the model read that no cache served; `cacheRead` and `cacheWrite` are the
// cached parts, so the four kinds never overlap and their sum is everything the model processed.
import type { ModelPrice } from "./config-prices.ts";

export type { ModelPrice };

/** How full the model's context is now: the last turn's input, and the window when the agent's store records it. */
export interface ContextUse {
  used: number;
  window: number | null;
}

/** One conversation's tokens, from the agent's own store; a task whose store records none has `usage: null` instead. */
export interface TokenUsage {
  /** The model of the last turn, as the agent's store names it; null when the store names none. */
  model: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** null when the store records no turn's input yet. */
  context: ContextUse | null;
}

export const NO_TOKENS: Omit<TokenUsage, "model" | "context"> = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** Every token the conversation had processed: the four kinds together. */
export function totalTokens(usage: Pick<TokenUsage, "input" | "output" | "cacheRead" | "cacheWrite">): number {
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** `950`, `48k`, `1.2M`: a token count in at most five characters. */
export function shortCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 999_500) return `${Math.round(n / 1000)}k`;
  const m = n / 1_000_000;
  return m < 9.95 ? `${m.toFixed(1)}M` : `${Math.round(m)}M`;
}

/** The `ls` cell: `48k tok` for a conversation with usage, `—` for an agent whose store has none, nothing for other tasks. */
export function usageCell(task: { agent: string | null; usage: TokenUsage | null }): string {
  if (task.usage) return `${shortCount(totalTokens(task.usage))} tok`;
  return task.agent === null ? "" : "—";
}

/** The cost of a conversation's tokens at the model's price, in the price's currency. */
export function costOf(usage: Pick<TokenUsage, "input" | "output" | "cacheRead" | "cacheWrite">, price: ModelPrice): number {
  const per = (tokens: number, perMillion: number | undefined) => (tokens * (perMillion ?? 0)) / 1_000_000;
  return per(usage.input, price.input) + per(usage.output, price.output) + per(usage.cacheRead, price.cacheRead) + per(usage.cacheWrite, price.cacheWrite);
}

/** A conversation as `fleetcom usage` totals it: an agent task's, or (`saved`) one only a saved session or snapshot resumes. */
export interface UsageRow {
  agent: string;
  model: string | null;
  host: string | null;
  usage: TokenUsage;
  saved?: boolean;
}

/**
 * One line of the totals: an agent, a model and a host, how many tasks and saved conversations no
 * task runs, their tokens, and their cost when the model has a price.
 */
export interface UsageTotal {
  agent: string;
  model: string | null;
  host: string | null;
  tasks: number;
  saved: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
  cost: number | null;
}

/** The rows summed by agent, model and host, in the order each first appears. */
export function usageTotals(rows: readonly UsageRow[], prices: Readonly<Record<string, ModelPrice>> = {}): UsageTotal[] {
  const totals = new Map<string, UsageTotal>();
  for (const { agent, model, host, usage, saved } of rows) {
    const key = JSON.stringify([agent, model, host]);
    const total = totals.get(key) ?? { agent, model, host, tasks: 0, saved: 0, ...NO_TOKENS, total: 0, cost: null };
    if (saved) total.saved += 1;
    else total.tasks += 1;
    total.input += usage.input;
    total.output += usage.output;
    total.cacheRead += usage.cacheRead;
    total.cacheWrite += usage.cacheWrite;
    total.total = totalTokens(total);
    totals.set(key, total);
  }
  for (const total of totals.values()) {
    const price = total.model === null ? undefined : prices[total.model];
    total.cost = price === undefined ? null : costOf(total, price);
  }
  return [...totals.values()];
}
