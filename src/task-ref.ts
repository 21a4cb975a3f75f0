// Resolving a TASK reference. A client that holds a task's id sends the id, and it finds that task
// or none (`taskById`). What a user typed is an id, an exact display name, or a case-insensitive
// prefix of a name or command that matches exactly one task (`resolveTaskRef`). Pure, so every rule
// is a unit test.
//
// The rules for typed text are tried in order, and the first that matches anything decides: one task
// is the answer, several are an ambiguity error (which lists them), none passes to the next rule.
//   1. an id: text made only of digits is an id and nothing else, so a removed task's id is refused
//      rather than taken for the start of another task's name (`1` is never the task named `1-api`);
//   2. an exact display name;
//   3. an exact command, as typed or as it runs: `claude` is the task running `claude` (or brought
//      back in its resume form, and still called `claude`), not one named `claude-fake`;
//   4. whole words at the start of a name or command, ignoring case: `claude` is also the task
//      running `claude --resume …`, and `npm run` the one running `npm run dev`;
//   5. any prefix of a name or command, ignoring case: `cla`, `npm run d`.
// So what the user typed in full is never taken for a part of a longer word in another task.
import { UserError } from "./errors.ts";
import { printable } from "./text-printable.ts";

// An error lists at most this many candidates: with hundreds of tasks the whole fleet on one line
// would bury the message itself.
export const CANDIDATES_SHOWN = 10;

export interface TaskRefCandidate {
  id: number;
  name: string | null;
  command: string;
  /** The command as typed: what the task is called without a name (TaskInfo). */
  typed: string;
}

/** The task with this id; none is an error, whatever the other tasks are named. */
export function taskById<T extends TaskRefCandidate>(id: number, tasks: readonly T[]): T {
  const found = tasks.find((t) => t.id === id);
  if (!found) throw new UserError(`no task ${id}`);
  return found;
}

/** The task that what a user typed names, by the rules above. */
export function resolveTaskRef<T extends TaskRefCandidate>(ref: string, tasks: readonly T[]): T {
  const trimmed = ref.trim();
  if (/^\d+$/.test(trimmed)) {
    const byId = tasks.find((t) => t.id === Number(trimmed));
    if (byId) return byId;
    throw new UserError(`no task ${Number(trimmed)}${listed(tasks)}`);
  }
  if (trimmed !== "") {
    const lower = trimmed.toLowerCase();
    const startsWith = (text: string | null, wholeWords: boolean) => {
      const folded = text?.toLowerCase();
      if (folded === undefined || !folded.startsWith(lower)) return false;
      return !wholeWords || folded.length === lower.length || /\s/.test(folded[lower.length]!);
    };
    const rules: ((t: T) => boolean)[] = [
      (t) => t.name === trimmed,
      (t) => t.command.trim() === trimmed || t.typed.trim() === trimmed,
      (t) => startsWith(t.name, true) || startsWith(t.command.trimStart(), true),
      (t) => startsWith(t.name, false) || startsWith(t.command.trimStart(), false),
    ];
    for (const rule of rules) {
      const matches = tasks.filter(rule);
      if (matches.length === 1) return matches[0]!;
      if (matches.length > 1) throw ambiguous(ref, matches);
    }
  }
  throw new UserError(`no task matches '${printable(ref)}'${listed(tasks)}`);
}

/** What a "no task" error adds, so the user sees what they could have meant. */
function listed(tasks: readonly TaskRefCandidate[]): string {
  return tasks.length ? ` (tasks: ${describeSome(tasks)})` : " (no tasks)";
}

function ambiguous(ref: string, matches: readonly TaskRefCandidate[]): UserError {
  return new UserError(`'${printable(ref)}' matches ${matches.length} tasks: ${describeSome(matches)}`);
}

function describeSome(tasks: readonly TaskRefCandidate[]): string {
  const shown = tasks.slice(0, CANDIDATES_SHOWN).map((t) => `${t.id} ${printable(t.name ?? t.typed)}`);
  const more = tasks.length - shown.length;
  return more > 0 ? `${shown.join(", ")} … and ${more} more` : shown.join(", ");
}
