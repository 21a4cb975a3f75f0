// How many terminal columns a string takes: wide East Asian characters and emoji take two, combining
// marks, variation selectors and other format characters none. A compact table, not full UAX #11:
// enough that a cut line never wraps on the terminals we target.

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const EMOJI = /^\p{Extended_Pictographic}$/u;

// Inclusive code point ranges that terminals draw two columns wide.
const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x2e80, 0x303e], [0x3041, 0x33ff],
  [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf], [0xa960, 0xa97f], [0xac00, 0xd7a3],
  [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x1fa70, 0x1faff], [0x20000, 0x3fffd],
];

export function charWidth(char: string): number {
  const code = char.codePointAt(0)!;
  if (code < 0x300) return code < 0x20 || (code >= 0x7f && code < 0xa0) ? 0 : 1;
  if (ZERO_WIDTH.test(char)) return 0;
  for (const [from, to] of WIDE) if (code >= from && code <= to) return 2;
  return code >= 0x1f000 && EMOJI.test(char) ? 2 : 1;
}

export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}
