// PTY output a task's screen has not parsed yet. Plain text (see isPlain) needs no answer and sets no
// mode, so the screen keeps it back until someone reads the screen; of a long run of it only the tail
// can still be on screen or in the scrollback, so the rest is forgotten unparsed (forgetBefore).
// term-screen.ts decides when that is allowed; this file only knows bytes.
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

export class Backlog {
  private chunks: Uint8Array[] = [];
  private size = 0;

  get bytes(): number {
    return this.size;
  }

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** Everything kept, in order; the backlog is empty after. */
  take(): Uint8Array[] {
    const chunks = this.chunks;
    this.chunks = [];
    this.size = 0;
    return chunks;
  }

  /**
   * Drops everything before the last carriage return that is followed by at least `lineFeeds` line
   * feeds. False (nothing dropped) when there is no such carriage return.
   */
  forgetBefore(lineFeeds: number): boolean {
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
    if (found < lineFeeds) return false;
    // …then back from it to a carriage return.
    for (; i >= 0; i--, at = chunks[i]?.length ?? 0) {
      const cr = at > 0 ? chunks[i]!.lastIndexOf(CR, at - 1) : -1;
      if (cr === -1) continue;
      const kept = chunks.slice(i);
      kept[0] = kept[0]!.subarray(cr + 1);
      this.chunks = kept;
      this.size = kept.reduce((sum, c) => sum + c.length, 0);
      return true;
    }
    return false;
  }
}
