// A task's output as lines: the logical lines of a buffer (rows the terminal wrapped joined into the
// line the program wrote), and, for `logs --follow`, each line the moment the program completes it.
//
// INVARIANT (LineWatch): every line is given once, in order, and a line is never given again
// because the program drew over it. A line is complete when a line feed leaves it in the normal
// buffer (the only moment a terminal knows a line ended); it is given as it stands then, so a
// progress bar redrawn with \r shows its last state. Rows the cursor revisits (a program that moves
// up to redraw, as agent interfaces and multi-line progress do) are not given again: a marker
// remembers the lowest row given, and only a line feed below it gives a line. A clear (ED 2, RIS)
// starts the screen afresh, and a scroll inside a scroll region moves lines up under the marker, so
// both give the next line whatever the marker says. Full-screen programs on the alternate screen
// draw no lines. Only the parser's own events are used: nothing runs per chunk of output.
import type { IBuffer, IBufferCell, IBufferLine, IDisposable, IMarker, Terminal } from "@xterm/headless";
import { styledLine } from "./term-serialize.ts";

const SGR = /\x1b\[[0-9;]*m/g;

/** Whether a line (plain or styled) shows nothing. */
export function isBlankLine(line: string): boolean {
  return line.replace(SGR, "").trim() === "";
}

/** Leaves out the blank lines at the end (the empty rows under the cursor). */
export function dropTrailingBlankLines(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && isBlankLine(lines[end - 1]!)) end--;
  lines.length = end;
  return lines;
}

/**
 * Rows [from, to) of `buffer` as the lines the program wrote: a wrapped row joins the one above
 * (the first row given starts a line even when wrapped: its start is gone). Plain lines are
 * right-trimmed; styled lines carry their colours (styledLine).
 */
export function bufferLines(buffer: IBuffer, from: number, to: number, cols: number, styled = false): string[] {
  const lines: string[] = [];
  const cell: IBufferCell = buffer.getNullCell();
  const pen: IBufferCell = buffer.getNullCell();
  let rows: IBufferLine[] = [];
  const flush = () => {
    if (rows.length === 0) return;
    if (styled) lines.push(styledLine(rows, cols, cell, pen));
    else
      lines.push(
        rows
          .map((row, i) => row.translateToString(i === rows.length - 1))
          .join("")
          .trimEnd(),
      );
    rows = [];
  };
  for (let y = from; y < to; y++) {
    const line = buffer.getLine(y);
    if (!line) break;
    if (!line.isWrapped) flush();
    rows.push(line);
  }
  flush();
  return lines;
}

/** A scroll region, rows 0-based and inclusive (term-modes.ts tracks it). */
export interface Region {
  top: number;
  bottom: number;
}

/** What a follower gets: the complete lines so far, and then each line as it completes. */
export class LineWatch {
  /** The lowest row given (xterm moves it as the buffer scrolls and trims), or null: none on the buffer. */
  private given: IMarker | null = null;
  /** That row while the alternate screen showed when the watch began (the normal buffer holds still meanwhile). */
  private givenRow: number | null = null;
  private readonly hooks: IDisposable[];
  private stopped = false;
  /** The complete lines when the watch began, oldest first. */
  readonly history: string[];

  /**
   * Call between two writes with everything written parsed (term-screen.ts parses synchronously), so
   * the history and the first line given meet exactly. `onStop` runs once, when the watch stops.
   */
  constructor(
    private readonly term: Terminal,
    private readonly normalRegion: () => Region | undefined,
    private readonly onLine: (line: string) => void,
    private readonly onStop: () => void = () => {},
  ) {
    const buffer = term.buffer.normal;
    const start = this.lineStart(buffer, buffer.baseY + buffer.cursorY, -1);
    this.history = bufferLines(buffer, 0, start, term.cols);
    this.setGiven(start - 1);
    this.hooks = [
      term.onLineFeed(() => this.lineFeed()),
      term.parser.registerCsiHandler({ final: "J" }, (params) => {
        if (params[0] === 2 && this.onNormal()) this.forget();
        return false;
      }),
      term.parser.registerEscHandler({ final: "c" }, () => {
        this.forget();
        return false;
      }),
    ];
  }

  /** The line the cursor is on, when the program ends without finishing it (`printf done`); null when blank or given. */
  unfinished(): string | null {
    const buffer = this.term.buffer.normal;
    const row = buffer.baseY + buffer.cursorY;
    const given = this.givenLine();
    if (given !== null && row <= given) return null;
    const text = this.lineText(buffer, row, given);
    return isBlankLine(text) ? null : text;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const hook of this.hooks) hook.dispose();
    this.given?.dispose();
    this.given = null;
    this.onStop();
  }

  private onNormal(): boolean {
    return this.term.buffer.active.type === "normal";
  }

  private lineFeed(): void {
    if (!this.onNormal()) return;
    const buffer = this.term.buffer.normal;
    const left = buffer.baseY + buffer.cursorY - 1;
    if (left < 0) return;
    const region = this.normalRegion();
    // A scroll inside a region moved the rows up without the buffer growing: the row left is new.
    const regionScrolled = region !== undefined && buffer.cursorY === region.bottom;
    const given = this.givenLine();
    if (!regionScrolled && given !== null && left <= given) return;
    this.onLine(this.lineText(buffer, left, regionScrolled ? null : given));
    this.setGiven(left);
  }

  /** The logical line ending at row `end`, not reaching back into rows already given. */
  private lineText(buffer: IBuffer, end: number, given: number | null): string {
    const start = this.lineStart(buffer, end, given ?? -1);
    return bufferLines(buffer, start, end + 1, this.term.cols).join("");
  }

  /** The first row of the logical line holding row `y`, but below row `floor`. */
  private lineStart(buffer: IBuffer, y: number, floor: number): number {
    let start = y;
    while (start - 1 > floor && buffer.getLine(start)?.isWrapped) start--;
    return start;
  }

  private givenLine(): number | null {
    if (this.givenRow !== null && this.onNormal()) this.setGiven(this.givenRow);
    if (this.givenRow !== null) return this.givenRow;
    if (!this.given || this.given.isDisposed) return null;
    return this.given.line;
  }

  private setGiven(row: number): void {
    this.given?.dispose();
    this.given = null;
    this.givenRow = null;
    if (row < 0) return;
    if (!this.onNormal()) {
      this.givenRow = row;
      return;
    }
    const buffer = this.term.buffer.normal;
    this.given = this.term.registerMarker(row - (buffer.baseY + buffer.cursorY)) ?? null;
  }

  /** A cleared screen is a new page: whatever comes next is new lines. */
  private forget(): void {
    this.given?.dispose();
    this.given = null;
    this.givenRow = null;
  }
}
