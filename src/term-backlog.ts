// PTY output a task's screen has not parsed yet. Plain text (see isPlain) needs no answer and sets no
// mode, so the screen keeps it back until someone reads the screen; of a long run of it only the tail
// can still be on screen or in the scrollback, so the rest is forgotten unparsed (forgetBefore).
// term-screen.ts decides when that is allowed; this file only knows bytes.
//
// Once a head has been forgotten, the backlog alone decides every row of the buffer, so the history
// of text simple enough (lastLines) is read from its bytes without parsing them into the emulator.
//
// Why forgetting is exact: take a run of plain text fed to a terminal whose parser stands in its
// ground state, whose scroll region is the whole screen. Its bytes only print characters with the
// pen, charset and modes already set, and move the cursor. From a carriage return on, the column is
// 0 whatever came before; after rows - 1 further line feeds the cursor is on the bottom row whatever
// row it was on, and every further line feed scrolls one line off the top. Once rows + scrollback
// lines have scrolled off, nothing that was in the buffer before is left, the buffer is full, and
// each line in it was drawn by the text after that carriage return alone. So feeding only the text
// from a carriage return followed by 2 × rows + scrollback line feeds leaves the same screen,
// scrollback, cursor and modes as feeding all of it.
import { concatBytes } from "./bytes.ts";

const ESC = 0x1b;
const SO = 0x0e;
const SI = 0x0f;
const CR = 0x0d;
const LF = 0x0a;
/** UTF-8 lead byte of U+0080–U+00BF, which include the C1 controls U+0080–U+009F. */
const C1_LEAD = 0xc2;

/**
 * Output with no escape sequence, no charset shift (SO, SI) and no C1 control: whatever the parser
 * does with it, it answers nothing and changes no mode. A chunk ending in the lead byte of a C1
 * control is not plain: the control would be completed by the next chunk.
 */
export function isPlain(chunk: Uint8Array): boolean {
  if (chunk.indexOf(ESC) !== -1 || chunk.indexOf(SO) !== -1 || chunk.indexOf(SI) !== -1) return false;
  for (let at = chunk.indexOf(C1_LEAD); at !== -1; at = chunk.indexOf(C1_LEAD, at + 1)) {
    const next = chunk[at + 1];
    if (next === undefined || (next >= 0x80 && next <= 0x9f)) return false;
  }
  return true;
}

/**
 * Backlog size at which forgetting is first tried; past 16 times that the backlog is parsed whatever
 * it holds (text with no line feed or no carriage return cannot be forgotten).
 */
const FORGET_AT_BYTES = 256 * 1024;
/**
 * After a try, the next waits until the backlog is this many times what was kept (growing by 16 ×
 * the first try's size at most). Each try walks back over every line it keeps, one lastIndexOf a line
 * feed, so the walk costs 1 / (this - 1) calls per line printed: at 2 a flood's every line (23 ms of
 * the daemon's thread in a 100 MB flood), at 3 half of them. Each step up holds one more kept tail
 * while a task floods: at 4, 20 tasks printing 3 MB at once peaked ~10 MB higher (rss-flood).
 */
const FORGET_GROWTH = 3;

export class Backlog {
  private chunks: Uint8Array[] = [];
  private size = 0;
  private forgot = false;
  /** The size at which forgetting is next tried. */
  private nextTry: number;

  /** `firstTry`: the size at which forgetting is first tried (small in tests). */
  constructor(private readonly firstTry = FORGET_AT_BYTES) {
    this.nextTry = firstTry;
  }

  get bytes(): number {
    return this.size;
  }

  /** Whether the backlog has grown to where forgetting its head is tried (forgetBefore, then tried). */
  get due(): boolean {
    return this.size >= this.nextTry;
  }

  /** Whether it is past the size at which forgetting is first tried. */
  get large(): boolean {
    return this.size > this.firstTry;
  }

  /** After a try to forget: "parse" when the backlog is too large to wait any longer, else when the next try comes is set. */
  tried(): "parse" | "wait" {
    if (this.size > 16 * this.firstTry) return "parse";
    this.nextTry = Math.max(this.firstTry, this.size + Math.min((FORGET_GROWTH - 1) * this.size, 16 * this.firstTry));
    return "wait";
  }

  /**
   * Whether a head was forgotten since the backlog was last taken: it then starts after a carriage
   * return followed by enough line feeds that, fed to the terminal, it leaves nothing of what the
   * buffer held before (see the head of this file).
   */
  get covers(): boolean {
    return this.forgot;
  }

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /**
   * lastLines() of the last `keep` rows when what is kept alone decides them: all of it once a head
   * was forgotten; else its tail from the last carriage return followed by `keep + screenRows` line
   * feeds, nothing dropped (parsed from the ground state, that text alone decides those rows: see the
   * head of this file); else, when `blankBefore` (it is all a fresh terminal was ever given), all of
   * it from its start. Null otherwise.
   */
  lines(cols: number, keep: number, screenRows: number, blankBefore: boolean): string[] | null {
    if (this.forgot) return lastLines(this.chunks, cols, keep);
    const cut = this.findCut(keep + screenRows);
    if (!cut) return blankBefore ? lastLines(this.chunks, cols, keep, true) : null;
    const tail = this.chunks.slice(cut.index);
    tail[0] = tail[0]!.subarray(cut.from);
    return lastLines(tail, cols, keep);
  }

  /** Everything kept, in order; the backlog is empty after. */
  take(): Uint8Array[] {
    const chunks = this.chunks;
    this.chunks = [];
    this.size = 0;
    this.forgot = false;
    this.nextTry = this.firstTry;
    return chunks;
  }

  /**
   * Drops everything before the last carriage return that is followed by at least `lineFeeds` line
   * feeds. False (nothing dropped) when there is no such carriage return.
   */
  forgetBefore(lineFeeds: number): boolean {
    const cut = this.findCut(lineFeeds);
    if (!cut) return false;
    const kept = this.chunks.slice(cut.index);
    kept[0] = kept[0]!.subarray(cut.from);
    this.chunks = kept;
    this.size = kept.reduce((sum, c) => sum + c.length, 0);
    this.forgot = true;
    return true;
  }

  /** Where the text after the last carriage return followed by `lineFeeds` line feeds begins: a chunk and an offset in it. */
  private findCut(lineFeeds: number): { index: number; from: number } | null {
    const chunks = this.chunks;
    // Back from the end to the lineFeeds-th line feed…
    let i = chunks.length - 1;
    let at = chunks[i]?.length ?? 0;
    let found = 0;
    for (; i >= 0; i--, at = chunks[i]?.length ?? 0) {
      const chunk = chunks[i]!;
      while (found < lineFeeds && at > 0 && (at = chunk.lastIndexOf(LF, at - 1)) !== -1) found++;
      if (found === lineFeeds) break;
    }
    if (found < lineFeeds) return null;
    // …then back from it to a carriage return.
    for (; i >= 0; i--, at = chunks[i]?.length ?? 0) {
      const cr = at > 0 ? chunks[i]!.lastIndexOf(CR, at - 1) : -1;
      if (cr !== -1) return { index: i, from: cr + 1 };
    }
    return null;
  }
}

const SPACE = 0x20;
const TILDE = 0x7e;
const latin1 = new TextDecoder("latin1");

/**
 * The lines the last `keep` rows hold once `text` has been fed to a terminal `cols` wide (autowrap
 * on, insert mode off, ASCII charset, the whole screen scrolling) that scrolled away everything
 * before the text's first line feed: rows the terminal wrapped joined into the line the program
 * wrote, right-trimmed, the first row kept starting a line of its own (Screen.historyLines reads
 * the same from the emulator). Null when the text holds more than printable ASCII and line ends
 * (\r before \n or at the end; any other \r, a bare \n, a tab, a backspace or UTF-8 would need
 * the emulator), or draws no more than `keep` rows (the rows from before would still show) unless
 * `fromStart`: the text is all a fresh terminal was ever given, and nothing came before it.
 *
 * Each line of n characters fills max(1, ceil(n / cols)) rows: autowrap moves to a new row only
 * when a character follows a full row, and the carriage return before a line feed ends a line at
 * column 0, so no row is left blank by a line that fills the last one.
 */
export function lastLines(chunks: Uint8Array[], cols: number, keep: number, fromStart = false): string[] | null {
  const text = concatBytes(chunks);
  // Line boundaries (the index of each \n), checked on the way.
  const feeds: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]!;
    if (byte >= SPACE && byte <= TILDE) continue;
    if (byte === LF) feeds.push(i);
    else if (byte !== CR || !endsLine(text, i)) return null;
  }
  // From the last line back, until `keep` rows are found.
  const lines: string[] = [];
  let rows = 0;
  for (let n = feeds.length; n >= 0 && rows < keep; n--) {
    const start = n === 0 ? 0 : feeds[n - 1]! + 1;
    let end = n === feeds.length ? text.length : feeds[n]!;
    while (end > start && text[end - 1] === CR) end--;
    const filled = Math.max(1, Math.ceil((end - start) / cols));
    if (n === 0 && !fromStart) return null; // the first line's row may hold what was on it before
    const taken = Math.min(filled, keep - rows);
    rows += taken;
    lines.push(latin1.decode(text.subarray(start + (filled - taken) * cols, end)).trimEnd());
  }
  return rows < keep && !fromStart ? null : lines.reverse();
}

/** A carriage return followed by nothing but carriage returns and then a line feed or the end. */
function endsLine(text: Uint8Array, at: number): boolean {
  let i = at + 1;
  while (i < text.length && text[i] === CR) i++;
  return i === text.length || text[i] === LF;
}
