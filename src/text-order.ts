// Orders of strings for lists: by UTF-16 code units, never a locale's collation. A collation would
// load ICU's collator into a client on its first sort (~2 MB of memory and a few ms), and the text
// sorted here (ISO times, names, hosts) has no order a locale would improve.

/** Strings in the order of their code units. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Names in the order of their code units with case ignored, then as written: `api`, `Build`, `build`. */
export function byNameIgnoringCase(a: string, b: string): number {
  return byCodeUnits(a.toLowerCase(), b.toLowerCase()) || byCodeUnits(a, b);
}
