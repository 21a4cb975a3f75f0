// `fleetcom grep PATTERN [TASK…] [--group G] [-i] [-C N] [--json]`: search the history of every task
// (running and finished; `peek --history` shows the same lines, numbered alike) as grep -n would:
// `id:name:line: text` for a match, `id-name-line- text` for context, `--` between groups. Exit 0
// when something matched, 1 when nothing did, 2 on any error, as grep does. PATTERN is a JavaScript
// regular expression, run here, not in the daemon: a pattern that takes forever costs this process
// only. What a task printed reaches the terminal only through printableText(), which keeps its tabs.
import { type Target, targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { UserError, usageError } from "./errors.ts";
import { label } from "./task-labels.ts";
import { grepLines, type GrepLine } from "./text-grep.ts";
import { printable, printableText } from "./text-printable.ts";
import type { TaskHistory } from "./wire-protocol.ts";

export default defineCommand({
  facts: { tasks: "after-first", remote: "transport" },
  meta: { name: "grep", description: "Search every task's history; exit 1 when nothing matches" },
  args: {
    pattern: { type: "positional", description: "A regular expression, matched against each line of every task's history", required: true },
    tasks: { type: "positional", valueHint: "TASK…", description: "Only these tasks (default: all)", required: false },
    group: { type: "string", alias: "g", valueHint: "G", description: "Only the tasks in group G" },
    "ignore-case": { type: "boolean", alias: "i", description: "Match without regard to case" },
    context: { type: "string", alias: "C", valueHint: "N", description: "Print N lines of context around each match" },
    json: { type: "boolean", description: "Print JSON: {matches: [{task, name, command, line, text, before, after}]}" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    try {
      process.exitCode = await grep(target, args);
    } catch (error) {
      // grep's convention: 2 is trouble, whatever kind.
      if (error instanceof UserError) throw new UserError(error.message, 2);
      throw error;
    }
  },
});

interface GrepArgs {
  pattern: string;
  _: string[];
  group?: string | undefined;
  "ignore-case"?: boolean | undefined;
  context?: string | undefined;
  json?: boolean | undefined;
}

async function grep(target: Target, args: GrepArgs): Promise<number> {
  const context = args.context === undefined ? 0 : Number(args.context);
  if (!Number.isInteger(context) || context < 0) throw usageError(`--context: expected a whole number, got '${args.context}'`);
  let pattern: RegExp;
  try {
    pattern = new RegExp(args.pattern, args["ignore-case"] ? "i" : "");
  } catch (error) {
    throw usageError(`grep: invalid pattern ${printable(args.pattern)}: ${(error as Error).message}`);
  }
  const tasks = args._.slice(1).map((typed) => ({ typed }));
  const histories = await withDaemon(
    target,
    (c) => c.request("history", { ...(tasks.length && { tasks }), ...(args.group !== undefined && { group: args.group }) }),
    {
      autostart: false,
    },
  );
  const found = histories.map((h) => ({ h, groups: grepLines(h.lines, (line) => pattern.test(line), context) })).filter((f) => f.groups.length > 0);
  if (args.json) console.log(JSON.stringify({ matches: found.flatMap(({ h, groups }) => jsonMatches(h, groups, context)) }));
  else {
    const out = found.flatMap(({ h, groups }) => groups.map((group) => group.map((line) => textLine(h, line)).join("\n")));
    if (out.length) console.log(out.join(context > 0 ? "\n--\n" : "\n"));
  }
  return found.length > 0 ? 0 : 1;
}

function textLine({ task }: TaskHistory, line: GrepLine): string {
  const sep = line.match ? ":" : "-";
  return `${task.id}${sep}${printable(label(task))}${sep}${line.number}${sep} ${printableText(line.text)}`;
}

function jsonMatches({ task, lines }: TaskHistory, groups: GrepLine[][], context: number) {
  return groups.flatMap((group) =>
    group
      .filter((line) => line.match)
      .map((line) => ({
        task: task.id,
        name: task.name,
        command: task.command,
        line: line.number,
        text: line.text,
        ...(context > 0 && {
          before: lines.slice(Math.max(0, line.number - 1 - context), line.number - 1),
          after: lines.slice(line.number, line.number + context),
        }),
      })),
  );
}
