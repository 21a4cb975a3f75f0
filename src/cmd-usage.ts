// `fleetcom usage [--json] [--since 1d] [-g G]`: the tokens of the live agent tasks, totalled by
// agent, model and host (with hosts added, every host's fleet, as `ls`), read by the daemon from
// each agent's own store (docs/usage.md). Money only where config.toml gives the model a price.
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { hostOf, hostsMayBeAdded, type Target, targetIn } from "./client-target.ts";
import type { HostedTask } from "./client-hosts.ts";
import { configPrices } from "./config-prices.ts";
import { usageError } from "./errors.ts";
import { configFile } from "./settings.ts";
import { normalizeGroup } from "./task-labels.ts";
import { shortCount, type UsageRow, type UsageTotal, usageTotals } from "./task-usage.ts";
import { printable } from "./text-printable.ts";
import { table, writeStdout } from "./ui-format.ts";

export default defineCommand({
  meta: { name: "usage", description: "Tokens of the live agent tasks by agent, model and host (and cost, where config.toml gives prices)" },
  args: {
    json: { type: "boolean", description: "Print a JSON array of totals" },
    since: { type: "string", valueHint: "AGE", description: "Only tasks active within AGE (30m, 12h, 1d, 2w)" },
    group: { type: "string", alias: "g", valueHint: "G", description: "Only the tasks of group G" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const since = args.since === undefined ? null : Date.now() - ageMs(args.since);
    const group = args.group === undefined ? undefined : normalizeGroup(args.group);
    if (group === null) throw usageError(`usage: -g needs a group name (got '${printable(args.group ?? "")}')`);
    const { prices, problems } = configPrices(configFile());
    for (const problem of problems) process.stderr.write(`fleetcom: ${printable(problem)}\n`);
    const tasks = (await fleets(target)).filter(
      (t) => t.agent !== null && (group === undefined || t.group === group) && (since === null || activeAt(t) >= since),
    );
    const rows: UsageRow[] = tasks.flatMap((t) => (t.usage ? [{ agent: t.agent!, model: t.usage.model, host: t.host, usage: t.usage }] : []));
    const totals = usageTotals(rows, prices);
    if (args.json) return writeStdout(`${JSON.stringify(totals, null, 2)}\n`);
    const without = tasks.filter((t) => t.usage === null).map((t) => t.agent!);
    writeStdout(usageText(totals, without));
  },
});

/** This machine's fleet, or the one of `--host`, or with hosts added every host's: each task with its host. */
async function fleets(target: Target): Promise<HostedTask[]> {
  const local = () => withDaemon(target, (c) => c.request("ls"));
  const one = hostOf(target);
  if (one) return (await local()).map((t) => ({ ...t, host: one.name }));
  if (hostsMayBeAdded()) {
    const { everyFleet } = await import("./client-hosts.ts");
    const all = await everyFleet(local);
    if (all) return all;
  }
  return (await local()).map((t) => ({ ...t, host: null }));
}

/** When a task was last heard from: its last output, its end, or its start. */
function activeAt(task: HostedTask): number {
  return Math.max(...[task.lastOutputAt, task.endedAt, task.startedAt].map((at) => (at === null ? 0 : Date.parse(at))));
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
  if (totals.length === 0) return `no agent task has token usage\n${note}`;
  const priced = totals.some((t) => t.cost !== null);
  const header = ["AGENT", "MODEL", "HOST", "TASKS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "TOTAL", ...(priced ? ["COST"] : [])];
  const line = (t: UsageTotal) => [
    printable(t.agent),
    printable(t.model ?? "—"),
    printable(t.host ?? "-"),
    String(t.tasks),
    ...[t.input, t.output, t.cacheRead, t.cacheWrite, t.total].map(shortCount),
    ...(priced ? [t.cost === null ? "—" : t.cost.toFixed(2)] : []),
  ];
  return `${table(header, totals.map(line))}${note}`;
}
