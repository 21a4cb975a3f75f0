// Resolving what a user typed as TASK: an id, an exact display name, or a case-insensitive prefix of
// a name or command that matches exactly one task. Pure, so every rule is a unit test.
import { UserError } from "./errors.ts";
import { printable } from "./text-printable.ts";

// An error lists at most this many candidates: with hundreds of tasks the whole fleet on one line
// would bury the message itself.
export const CANDIDATES_SHOWN = 10;

export interface TaskRefCandidate {
  id: number;
  name: string | null;
  command: string;
}

export function resolveTaskRef<T extends TaskRefCandidate>(ref: string, tasks: readonly T[]): T {
  const trimmed = ref.trim();
  if (/^\d+$/.test(trimmed)) {
    const byId = tasks.find((t) => t.id === Number(trimmed));
    if (byId) return byId;
  }
  const exact = tasks.filter((t) => t.name === trimmed);
  if (exact.length === 1) return exact[0]!;
  if (exact.length > 1) throw ambiguous(ref, exact);
  const prefix = trimmed.toLowerCase();
  const matches = tasks.filter(
    (t) => (t.name?.toLowerCase().startsWith(prefix) ?? false) || t.command.toLowerCase().startsWith(prefix),
  );
  if (matches.length === 1 && prefix.length > 0) return matches[0]!;
  if (matches.length > 1 && prefix.length > 0) throw ambiguous(ref, matches);
  throw new UserError(`no task matches '${printable(ref)}'${tasks.length ? ` (tasks: ${describeSome(tasks)})` : " (no tasks)"}`);
}

function ambiguous(ref: string, matches: readonly TaskRefCandidate[]): UserError {
  return new UserError(`'${printable(ref)}' matches ${matches.length} tasks: ${describeSome(matches)}`);
}

function describeSome(tasks: readonly TaskRefCandidate[]): string {
  const shown = tasks.slice(0, CANDIDATES_SHOWN).map((t) => `${t.id} ${printable(t.name ?? t.command)}`);
  const more = tasks.length - shown.length;
  return more > 0 ? `${shown.join(", ")} … and ${more} more` : shown.join(", ");
}
