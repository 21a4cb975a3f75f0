// Group and display names, normalised one way for live tasks (daemon) and loaded recipes (sessions.md):
// control characters removed, whitespace trimmed, at most 64 characters. Pure and dependency-free
// because the daemon calls it on its hot path.

export const LABEL_MAX_CHARS = 64;
export const NO_GROUP = "Unassigned";

const CONTROL = /\p{Cc}/gu;

/** Why a name or group given by a user is refused, or null: longer than a label may be is refused, not cut. */
export function labelTooLong(raw: string, kind: "name" | "group"): string | null {
  const length = Array.from(raw.replace(CONTROL, "").trim()).length;
  return length > LABEL_MAX_CHARS ? `a ${kind} is at most ${LABEL_MAX_CHARS} characters (this one has ${length})` : null;
}

function normaliseLabel(raw: string): string | null {
  const cleaned = raw.replace(CONTROL, "").trim();
  // Count code points, not UTF-16 units, so an emoji is one character and never cut in half; trim
  // again so the cut cannot leave trailing whitespace.
  const label = Array.from(cleaned).slice(0, LABEL_MAX_CHARS).join("").trim();
  return label === "" ? null : label;
}

export function normalizeName(raw: string): string | null {
  return normaliseLabel(raw);
}

// `Unassigned` is how the dashboard shows "no group", so a group called that is no group; the
// comparison is case-sensitive, as the spec writes it.
export function normalizeGroup(raw: string): string | null {
  const group = normaliseLabel(raw);
  return group === NO_GROUP ? null : group;
}

/**
 * What a task is called where one word must do: its display name, else its command as typed, so an
 * agent brought back in its resume form is still `claude` (the resume form shows in `ls --json` and `--verbose`).
 */
export function label(task: { name: string | null; typed: string }): string {
  return task.name ?? task.typed;
}
