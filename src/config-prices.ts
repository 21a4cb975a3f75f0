// What the user says a model's tokens cost: `[prices."MODEL"]` tables in config.toml, each a price
// per million tokens of `input`, `output`, `cache_read` and `cache_write` (docs/usage.md). No price
// is compiled in, since prices change: a model the file names no price for has no cost. A bad entry
// is one line naming the file, the line and the model, and only that entry is left out.
import { schema } from "./validator.ts";
import { readConfigFile } from "./settings.ts";

/** What a million tokens of each kind cost, as the user wrote it in `[prices."MODEL"]`; a kind given no price costs nothing. */
export interface ModelPrice {
  input?: number | undefined;
  output?: number | undefined;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
}

const FIELDS = ["input", "output", "cache_read", "cache_write"];

const price = schema("price", (type) =>
  type({
    "input?": "number >= 0",
    "output?": "number >= 0",
    "cache_read?": "number >= 0",
    "cache_write?": "number >= 0",
  }),
);

/** The prices the config file gives, by model, and one line per entry left out. */
export function configPrices(file: string): { prices: Record<string, ModelPrice>; problems: string[] } {
  const values = readConfigFile(file);
  const entry = values.values.get("prices");
  const prices: Record<string, ModelPrice> = {};
  const problems: string[] = [];
  if (entry === undefined) return { prices, problems };
  if (!isTable(entry.value)) {
    problems.push(`${file}:${entry.line}: prices: expected tables such as [prices."claude-sonnet-4-5"]; ignored`);
    return { prices, problems };
  }
  for (const [model, given] of Object.entries(entry.value)) {
    const known = isTable(given) && Object.keys(given).every((key) => FIELDS.includes(key));
    if (known && price.allows(given)) prices[model] = { input: given.input, output: given.output, cacheRead: given.cache_read, cacheWrite: given.cache_write };
    else
      problems.push(
        `${file}:${headerLine(values.lines, model)}: prices."${model}": expected input, output, cache_read, cache_write as numbers (per million tokens); ignored`,
      );
  }
  return { prices, problems };
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The line of the model's `[prices."MODEL"]` header; 0 when none is found. */
function headerLine(lines: readonly string[], model: string): number {
  return lines.findIndex((l) => l.replace(/\s/g, "").startsWith(`[prices."${model}"]`) || l.replace(/\s/g, "").startsWith(`[prices.${model}]`)) + 1;
}
