// How many terminal columns text takes: the count the daemon's terminal makes (term-screen.ts, with
// term-widths.ts), so `ls`, `sessions`, the dashboard and the picker line up with what a task
// draws. Text is taken as the clusters a terminal draws in one cell: a character with its combining
// marks, an emoji with its variation selector or skin tone, a ZWJ sequence, a flag (a pair of
// regional indicators). A cluster is two columns when one of its code points is wide (East Asian
// Wide or Fullwidth, emoji presentation, VS16) or it is a flag, else one; control characters none.
//
// INVARIANT: a code point is wide here exactly when it is in the daemon's terminal. WIDE is generated
// from @xterm/addon-unicode-graphemes 0.4.0, LATER_WIDE adds what its tables predate, and
// test/text-width.test.ts checks every code point. No xterm import: ls and the dashboard load this
// at start-up, and the addon alone would be a large share of their start (docs/benchmarks.md).

type Ranges = readonly (readonly [number, number])[];

// Inclusive code point ranges drawn two columns wide by @xterm/addon-unicode-graphemes 0.4.0.
const WIDE: Ranges = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x2e99],
  [0x2e9b, 0x2ef3],
  [0x2f00, 0x2fd5],
  [0x2ff0, 0x2ffb],
  [0x3000, 0x303e],
  [0x3041, 0x3096],
  [0x3099, 0x30ff],
  [0x3105, 0x312f],
  [0x3131, 0x318e],
  [0x3190, 0x31e3],
  [0x31f0, 0x321e],
  [0x3220, 0x3247],
  [0x3250, 0x4dbf],
  [0x4e00, 0xa48c],
  [0xa490, 0xa4c6],
  [0xa960, 0xa97c],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe0f, 0xfe19],
  [0xfe30, 0xfe52],
  [0xfe54, 0xfe66],
  [0xfe68, 0xfe6b],
  [0xff01, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x16ff0, 0x16ff1],
  [0x17000, 0x187f7],
  [0x18800, 0x18cd5],
  [0x18d00, 0x18d08],
  [0x1b000, 0x1b11e],
  [0x1b150, 0x1b152],
  [0x1b164, 0x1b167],
  [0x1b170, 0x1b2fb],
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f202],
  [0x1f210, 0x1f23b],
  [0x1f240, 0x1f248],
  [0x1f250, 0x1f251],
  [0x1f260, 0x1f265],
  [0x1f300, 0x1f320],
  [0x1f32d, 0x1f335],
  [0x1f337, 0x1f37c],
  [0x1f37e, 0x1f393],
  [0x1f3a0, 0x1f3ca],
  [0x1f3cf, 0x1f3d3],
  [0x1f3e0, 0x1f3f0],
  [0x1f3f4, 0x1f3f4],
  [0x1f3f8, 0x1f43e],
  [0x1f440, 0x1f440],
  [0x1f442, 0x1f4fc],
  [0x1f4ff, 0x1f53d],
  [0x1f54b, 0x1f54e],
  [0x1f550, 0x1f567],
  [0x1f57a, 0x1f57a],
  [0x1f595, 0x1f596],
  [0x1f5a4, 0x1f5a4],
  [0x1f5fb, 0x1f64f],
  [0x1f680, 0x1f6c5],
  [0x1f6cc, 0x1f6cc],
  [0x1f6d0, 0x1f6d2],
  [0x1f6d5, 0x1f6d7],
  [0x1f6eb, 0x1f6ec],
  [0x1f6f4, 0x1f6fc],
  [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f93a],
  [0x1f93c, 0x1f945],
  [0x1f947, 0x1f978],
  [0x1f97a, 0x1f9cb],
  [0x1f9cd, 0x1f9ff],
  [0x1fa70, 0x1fa74],
  [0x1fa78, 0x1fa7a],
  [0x1fa80, 0x1fa86],
  [0x1fa90, 0x1faa8],
  [0x1fab0, 0x1fab6],
  [0x1fac0, 0x1fac2],
  [0x1fad0, 0x1fad6],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

/**
 * Wide in Unicode 14 (as glibc 2.36 has it, and so tmux on Debian 12): emoji like 🥹 and 🫠, Kana
 * Extended-B, Yijing hexagrams. The addon's tables predate them; term-widths.ts widens them there.
 */
export const LATER_WIDE: Ranges = [
  [0x4dc0, 0x4dff],
  [0x1aff0, 0x1aff3],
  [0x1aff5, 0x1affb],
  [0x1affd, 0x1affe],
  [0x1b11f, 0x1b122],
  [0x1f6dd, 0x1f6df],
  [0x1f7f0, 0x1f7f0],
  [0x1f979, 0x1f979],
  [0x1f9cc, 0x1f9cc],
  [0x1fa7b, 0x1fa7c],
  [0x1faa9, 0x1faac],
  [0x1fab7, 0x1faba],
  [0x1fac3, 0x1fac5],
  [0x1fad7, 0x1fad9],
  [0x1fae0, 0x1fae7],
  [0x1faf0, 0x1faf6],
];

const ZWJ = 0x200d;
/** Joins the code point before it: marks, variation selectors, skin tones, tag characters, ZWJ. */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: one code point at a time is tested, so a class of joiners is what is meant
const JOINS = /^[\p{M}\u0e33\u0eb3\u200d\ufe00-\ufe0f\u{1f3fb}-\u{1f3ff}\u{e0020}-\u{e007f}]$/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
/** Prepended concatenation marks (Arabic number signs and the like): the next code point joins them. */
const PREPEND: Ranges = [
  [0x600, 0x605],
  [0x6dd, 0x6dd],
  [0x70f, 0x70f],
  [0x8e2, 0x8e2],
  [0xd4e, 0xd4e],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x111c2, 0x111c3],
  [0x1193f, 0x1193f],
  [0x11941, 0x11941],
  [0x11a3a, 0x11a3a],
  [0x11a84, 0x11a89],
  [0x11d46, 0x11d46],
];

export function inRanges(code: number, ranges: Ranges): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [from, to] = ranges[mid]!;
    if (code < from) high = mid - 1;
    else if (code > to) low = mid + 1;
    else return true;
  }
  return false;
}

/** Columns of one code point drawn alone: 0 for control characters, else 1 or 2. */
export function codePointWidth(code: number): number {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (code < 0x1100) return 1;
  return inRanges(code, WIDE) || inRanges(code, LATER_WIDE) ? 2 : 1;
}

const isRegionalIndicator = (code: number) => code >= 0x1f1e6 && code <= 0x1f1ff;

/** Old Hangul written as jamo: which jamo follow which in one syllable (UAX #29 GB6-GB8). */
function jamoJoin(previous: number, code: number): boolean {
  const before = jamo(previous);
  const after = jamo(code);
  if (before === "" || after === "") return false;
  if (before === "L") return after !== "T";
  if (before === "V" || before === "LV") return after === "V" || after === "T";
  return after === "T";
}

function jamo(code: number): "" | "L" | "V" | "T" | "LV" | "LVT" {
  if ((code >= 0x1100 && code <= 0x115f) || (code >= 0xa960 && code <= 0xa97c)) return "L";
  if ((code >= 0x1160 && code <= 0x11a7) || (code >= 0xd7b0 && code <= 0xd7c6)) return "V";
  if ((code >= 0x11a8 && code <= 0x11ff) || (code >= 0xd7cb && code <= 0xd7fb)) return "T";
  if (code >= 0xac00 && code <= 0xd7a3) return (code - 0xac00) % 28 === 0 ? "LV" : "LVT";
  return "";
}

/** The text as the clusters a terminal draws in one cell each, with their widths. */
export function* clusters(text: string): Generator<[cluster: string, width: number]> {
  let cluster = "";
  let width = 0;
  let previous = 0;
  let flagHalf = false; // the cluster is a lone regional indicator, waiting for its pair
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const own = codePointWidth(code);
    const flag = flagHalf && isRegionalIndicator(code);
    const joins =
      cluster !== "" &&
      own > 0 &&
      (flag || JOINS.test(char) || (previous === ZWJ && PICTOGRAPHIC.test(char)) || inRanges(previous, PREPEND) || jamoJoin(previous, code));
    if (joins) {
      cluster += char;
      width = flag ? 2 : Math.max(width, own);
      flagHalf = false;
    } else {
      if (cluster !== "") yield [cluster, width];
      cluster = char;
      width = own;
      flagHalf = isRegionalIndicator(code);
    }
    previous = code;
  }
  if (cluster !== "") yield [cluster, width];
}

/**
 * Text each code unit of which is a cluster of its own, one column wide: printable ASCII, Latin,
 * and the punctuation, arrows, technical signs, box drawing, blocks, shapes and dingbats the lists
 * draw with (`·`, `›`, `…`, `↑`, `⏎`, `␣`, `─`, `▃`, `◆`, `✻`). Its width is its length, with no
 * walk through its clusters: the dashboard measures every row again each second, and a walk per
 * character is what made its JIT compile within seconds of an idle fleet (docs/benchmarks.md).
 * text-width.test.ts checks that every code point in it stands alone and is one column wide.
 */
export const ONE_COLUMN_EACH = /^[\x20-\x7e\xa0-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u2319\u23ce\u2423\u2500-\u25fc\u2713-\u2717\u273b\u276f]*$/;

export function textWidth(text: string): number {
  return ONE_COLUMN_EACH.test(text) ? text.length : walkedWidth(text);
}

/** The width of text that may hold clusters wider or narrower than one column, walked cluster by cluster. */
function walkedWidth(text: string): number {
  let width = 0;
  for (const [, w] of clusters(text)) width += w;
  return width;
}

/** Cuts to `width` terminal columns with `…`, never wrapping, never inside a cluster. */
export function cut(text: string, width: number): string {
  const oneColumnEach = ONE_COLUMN_EACH.test(text);
  if ((oneColumnEach ? text.length : walkedWidth(text)) <= width) return text;
  if (width <= 0) return "";
  if (oneColumnEach) return `${text.slice(0, width - 1)}…`;
  let kept = "";
  let used = 0;
  for (const [cluster, w] of clusters(text)) {
    if (used + w > width - 1) break;
    kept += cluster;
    used += w;
  }
  return `${kept}…`;
}
