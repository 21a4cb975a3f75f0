// A review comment made into one prompt for the agent (`fleetcom review`, docs/review.md): where
// (the file and lines), that part of the task's diff as a fenced block, then the comment. Pure.

/** `src/a.ts:12` or `src/a.ts:12-20` read; null when it is neither (a line is counted from 1). */
export function parseFileLines(spec: string): { file: string; from: number; to: number } | null {
  const match = /^(.+):(\d+)(?:-(\d+))?$/.exec(spec);
  if (!match) return null;
  const from = Number(match[2]);
  const to = match[3] === undefined ? from : Number(match[3]);
  if (from < 1 || to < from) return null;
  return { file: match[1]!, from, to };
}

/**
 * The lines of a unified diff of one file that touch new lines `from`..`to`: added and context lines
 * at those lines, and the removed lines just before them. Hunk headers are kept, so the agent sees
 * where it is; empty when the diff does not reach those lines (they are unchanged).
 */
export function diffExcerpt(patch: string, from: number, to: number): string {
  const out: string[] = [];
  let line = 0;
  let inHunk = false;
  let header: string | null = null;
  const keep = (text: string) => {
    if (header !== null) out.push(header);
    header = null;
    out.push(text);
  };
  for (const text of patch.split("\n")) {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      line = Number(hunk[1]);
      inHunk = true;
      header = text;
      continue;
    }
    if (!inHunk || text === "" || text.startsWith("\\")) continue;
    const within = line >= from && line <= to;
    if (text.startsWith("-")) {
      if (within) keep(text);
      continue;
    }
    if (within) keep(text);
    line += 1;
  }
  return out.join("\n");
}

/** The prompt: where, the excerpt fenced (a fence longer than any run of backticks in it), the comment. */
export function reviewPrompt(file: string, from: number, to: number, excerpt: string, comment: string, fenceKind: "diff" | "text"): string {
  const where = from === to ? `${file} line ${from}` : `${file} lines ${from}-${to}`;
  const longest = Math.max(2, ...[...excerpt.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `Review comment on ${where}:\n${fence}${fenceKind}\n${excerpt}\n${fence}\n${comment}`;
}
