// "Did you mean …?": the known word nearest to a mistyped one, by edit distance with a swap of two
// neighbours counting as one edit (`--nmae` is one slip from `--name`, as `atach` is from `attach`).
// Pure.

/** The candidate nearest to `word`, or null when none is near enough to be what was meant. */
export function nearest(word: string, candidates: readonly string[]): string | null {
  const typed = word.toLowerCase();
  // A slip per three characters, at least one; a word that is the start of exactly one candidate is
  // that candidate cut short (`--dry` for `--dry-run`).
  const allowed = Math.max(1, Math.floor(typed.length / 3));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== null && bestDistance <= allowed) return best;
  const started = typed.length >= 2 ? candidates.filter((c) => c.toLowerCase().startsWith(typed)) : [];
  return started.length === 1 ? started[0]! : null;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}
