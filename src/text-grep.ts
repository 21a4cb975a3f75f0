// What `fleetcom grep` finds in one task's history, as grep -n -C does: the matching lines and the
// lines of context around them, in groups that do not overlap. Pure: the command prints them.

export interface GrepLine {
  /** 1-based, as `peek --history` numbers the lines. */
  number: number;
  text: string;
  match: boolean;
}

/** Runs of lines to print: overlapping or touching context merges into one group, as grep prints it. */
export function grepLines(lines: readonly string[], matches: (line: string) => boolean, context = 0): GrepLine[][] {
  const groups: GrepLine[][] = [];
  let group: GrepLine[] = [];
  let shownUpTo = -1; // the last index already in a group
  for (let i = 0; i < lines.length; i++) {
    if (!matches(lines[i]!)) continue;
    const from = Math.max(i - context, shownUpTo + 1);
    if (group.length > 0 && from > shownUpTo + 1) {
      groups.push(group);
      group = [];
    }
    const to = Math.min(i + context, lines.length - 1);
    // A line after i that matches is marked here, and its own turn adds only the context past it.
    for (let j = from; j <= to; j++) group.push({ number: j + 1, text: lines[j]!, match: j === i || (j > i && matches(lines[j]!)) });
    shownUpTo = to;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
