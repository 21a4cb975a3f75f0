// What a task changed in its repository since its baseline (docs/review.md), as both processes see
// it: the shape the daemon sends in TaskInfo `changes`, the `+120 −14` figure `ls` shows, and the
// reading of `git diff --numstat -z` it is counted from. Pure.

/** Files changed, lines added and lines removed since the task's baseline; a binary file counts as a file with no lines. */
export interface ChangeStats {
  files: number;
  insertions: number;
  deletions: number;
}

/**
 * `git diff --numstat -z` read: each record is `ADDED\tDELETED\tPATH\0` (`-\t-` for a binary file;
 * with renames on, an empty path followed by the two paths, each ended by a NUL). A record that is
 * none of these is skipped: the figure is a summary, never a reason to fail.
 */
export function parseNumstat(output: string): ChangeStats {
  const stats: ChangeStats = { files: 0, insertions: 0, deletions: 0 };
  const fields = output.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(fields[i]!.replace(/^\n/, ""));
    if (!match) continue;
    // A rename's two paths follow as fields of their own.
    if (match[3] === "") i += 2;
    stats.files += 1;
    if (match[1] !== "-") stats.insertions += Number(match[1]);
    if (match[2] !== "-") stats.deletions += Number(match[2]);
  }
  return stats;
}

/**
 * `+120 −14` for a task with changes; empty when it has none or none is known (outside a repository,
 * or a row from a fleetcom that does not count them).
 */
export function changesCell(changes: ChangeStats | null | undefined): string {
  if (!changes || changes.files === 0) return "";
  return `+${changes.insertions} −${changes.deletions}`;
}
