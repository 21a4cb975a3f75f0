// `fleetcom usage [--json] [--since 1d] [-g G]`: the tokens of every conversation fleetcom knows,
// totalled by agent, model and host: the agent tasks, and the conversations saved sessions and
// recovery snapshots resume that no task runs, each counted once (with hosts added, every host's, as
// `ls`), read by each host's daemon from each agent's own store (docs/usage.md). Money only where
// config.toml gives the model a price.
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { hostOf, hostsMayBeAdded, type Target, targetIn } from "./client-target.ts";
import { configPrices } from "./config-prices.ts";
import { usageError } from "./errors.ts";
import { configFile } from "./settings.ts";
import { normalizeGroup } from "./task-labels.ts";
import { shortCount, type UsageRow, type UsageTotal, usageTotals } from "./task-usage.ts";
import { printable } from "./text-printable.ts";
import { table, writeStdout } from "./ui-format.ts";
import type { ConversationUsage } from "./wire-protocol.ts";

type HostedConversation = ConversationUsage & { host: string | null };

export default defineCommand({
  facts: { remote: "transport" },
  meta: {
    name: "usage",
    description: "Tokens of the agent tasks and saved conversations by agent, model and host (and cost, where config.toml gives prices)",
  },
  args: {
    json: { type: "boolean", description: "Print a JSON array of totals" },
    since: { type: "string", valueHint: "AGE", description: "Only conversations whose store recorded tokens within AGE (30m, 12h, 1d, 2w)" },
    group: { type: "string", alias: "g", valueHint: "G", description: "Only the conversations of group G" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const since = args.since === undefined ? null : Date.now() - ageMs(args.since);
    const group = args.group === undefined ? undefined : normalizeGroup(args.group);
    if (group === null) throw usageError(`usage: -g needs a group name (got '${printable(args.group ?? "")}')`);
    const { prices, problems } = configPrices(configFile());
    for (const problem of problems) process.stderr.write(`fleetcom: ${printable(problem)}\n`);
    const conversations = (await everyConversation(target)).filter(
      (c) => (group === undefined || c.group === group) && (since === null || (c.at !== null && Date.parse(c.at) >= since)),
    );
    const rows: UsageRow[] = conversations.flatMap((c) =>
      c.usage ? [{ agent: c.agent, model: c.usage.model, host: c.host, usage: c.usage, saved: c.task === null }] : [],
    );
    const totals = usageTotals(rows, prices);
    if (args.json) return writeStdout(`${JSON.stringify(totals, null, 2)}\n`);
    const without = conversations.filter((c) => c.usage === null).map((c) => c.agent);
    writeStdout(usageText(totals, without));
  },
});

/** This machine's conversations, or those of `--host`, or with hosts added every host's: each with its host. */
async function everyConversation(target: Target): Promise<HostedConversation[]> {
  const local = () => withDaemon(target, (c) => c.request("usage", {}));
  const one = hostOf(target);
  if (one) return (await local()).map((c) => ({ ...c, host: one.name }));
  if (hostsMayBeAdded()) {
    const { fromEveryHost } = await import("./client-hosts.ts");
    const all = await fromEveryHost(local, (c) => c.request("usage", {}));
    if (all) return all;
  }
  return (await local()).map((c) => ({ ...c, host: null }));
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `12h`, `1d`, `2w` in milliseconds; anything else is a usage error naming the flag. */
export function ageMs(raw: string): number {
  const match = /^(\d+)([smhdw])$/.exec(raw.trim());
  if (!match) throw usageError(`usage: --since: expected an age such as 30m, 12h, 1d or 2w, got '${printable(raw)}'`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

function usageText(totals: readonly UsageTotal[], without: readonly string[]): string {
  const note = without.length === 0 ? "" : `${without.length} agent task(s) whose store records no tokens: ${[...new Set(without)].join(", ")}\n`;
  if (totals.length === 0) return `no agent task or saved conversation has token usage\n${note}`;
  const priced = totals.some((t) => t.cost !== null);
  const header = ["AGENT", "MODEL", "HOST", "TASKS", "SAVED", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "TOTAL", ...(priced ? ["COST"] : [])];
  const line = (t: UsageTotal) => [
    printable(t.agent),
    printable(t.model ?? "—"),
    printable(t.host ?? "-"),
    String(t.tasks),
    String(t.saved),
    ...[t.input, t.output, t.cacheRead, t.cacheWrite, t.total].map(shortCount),
    ...(priced ? [t.cost === null ? "—" : t.cost.toFixed(2)] : []),
  ];
  return `${table(header, totals.map(line))}${note}`;
}
