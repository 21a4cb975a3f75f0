// Which tasks a command over several means (`kill`, `rm`, `logs`): the TASKs named, the tasks of one
// group (`-g G`), or every task (`--all`), exactly one of the three. Named TASKs go to the daemon as
// typed, which resolves them; a group or the whole fleet is read from `ls` here, to be shown in a
// question and a summary before anything happens.
import { usageError, UserError } from "./errors.ts";
import { label, normalizeGroup } from "./task-labels.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";

export type Selection = { named: string[] } | { group: string } | { all: true };

/** The selection the arguments make; none, or more than one kind, is a usage error. */
export function selection(command: string, args: { _: string[]; group?: string | undefined; all?: boolean | undefined }): Selection {
  const kinds = [args._.length > 0, args.group !== undefined, Boolean(args.all)].filter(Boolean).length;
  if (kinds !== 1) throw usageError(`${command}: name TASKs, or give -g GROUP or --all (one of the three)`);
  if (args.group !== undefined) {
    const group = normalizeGroup(args.group);
    if (group === null) throw usageError(`${command}: -g needs a group name (got '${printable(args.group)}')`);
    return { group };
  }
  return args.all ? { all: true } : { named: args._ };
}

/** The tasks of a group or of the whole fleet, in id order; a group no task is in is an error naming those that exist. */
export function tasksOf(fleet: readonly TaskInfo[], chosen: { group: string } | { all: true }): TaskInfo[] {
  if ("all" in chosen) return [...fleet];
  const members = fleet.filter((t) => t.group === chosen.group);
  if (members.length > 0) return members;
  const groups = [...new Set(fleet.flatMap((t) => (t.group === null ? [] : [t.group])))];
  throw new UserError(`no task in group '${chosen.group}' (${groups.length ? `groups: ${groups.join(", ")}` : "no task has a group"})`);
}

/** ` of group 'backend'`, or nothing for the whole fleet: what a question and a summary add. */
export function whereFrom(chosen: { group: string } | { all: true }): string {
  return "group" in chosen ? ` of group '${chosen.group}'` : "";
}

/** How many tasks a question names before `…`: enough to recognise the set, never a screenful. */
const NAMED_IN_QUESTION = 5;

/** `api, worker-1, …` for a question: the labels of the first few tasks. */
export function someLabels(tasks: readonly TaskInfo[]): string {
  const shown = tasks.slice(0, NAMED_IN_QUESTION).map((t) => printable(label(t)));
  return tasks.length > NAMED_IN_QUESTION ? `${shown.join(", ")}, …` : shown.join(", ");
}
