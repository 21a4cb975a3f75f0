// Drawing a block of lines in place, below whatever the shell printed before: the block is redrawn
// by moving the cursor up to its top, rewriting each line and clearing what a longer previous frame
// left, in one write wrapped in synchronized output, so nothing flickers. Relative movement instead
// of the alternate screen keeps the user's scrollback and leaves nothing behind when cleared.
import { CSI, HIDE_CURSOR, SHOW_CURSOR } from "./text-ansi.ts";
import { createColors } from "picocolors";
import { cut } from "./text-width.ts";

const SYNC_BEGIN = `${CSI}?2026h`;
const SYNC_END = `${CSI}?2026l`;
// Autowrap off while drawing: a line that is one column too wide is clipped instead of wrapped,
// which would shift every later redraw by a row.
const NO_WRAP = `${CSI}?7l`;
const WRAP = `${CSI}?7h`;

interface Output {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

/** Colours only on a terminal and never when NO_COLOR is set (to anything but the empty string). */
export function colorsWanted(env: Record<string, string | undefined> = process.env, isTTY = !!process.stdout.isTTY): boolean {
  return isTTY && !env.NO_COLOR;
}

export const paint = createColors(colorsWanted());

/** A line cut to the width of the terminal, one column short so the cursor never waits to wrap. */
export function fit(line: string, columns: number): string {
  return cut(line, Math.max(1, columns - 1));
}

export class Region {
  private rows = 0;
  /** The cursor's row, counted from the block's top. */
  private cursorRow = 0;
  private lastFrame: string | null = null;

  constructor(private readonly out: Output = process.stdout) {}

  get columns(): number {
    return this.out.columns || 80;
  }

  get height(): number {
    return this.out.rows || 24;
  }

  /** Replaces the block; `cursor` places a visible cursor (a prompt or a filter), else it is hidden. */
  draw(lines: string[], cursor?: { row: number; col: number }): void {
    const frame = `${lines.join("\n")}\0${cursor ? `${cursor.row},${cursor.col}` : ""}`;
    if (frame === this.lastFrame) return;
    this.lastFrame = frame;
    let bytes = SYNC_BEGIN + HIDE_CURSOR + this.toTop() + NO_WRAP;
    bytes += lines.map((line) => `${line}${CSI}K`).join("\r\n");
    bytes += `${CSI}J${WRAP}`;
    this.rows = lines.length;
    this.cursorRow = Math.max(0, lines.length - 1);
    if (cursor) {
      bytes += `\r${up(this.cursorRow - cursor.row)}${cursor.col > 0 ? `${CSI}${cursor.col}C` : ""}${SHOW_CURSOR}`;
      this.cursorRow = cursor.row;
    }
    this.out.write(bytes + SYNC_END);
  }

  /** Erases the block and leaves the cursor where it began, visible. */
  clear(): void {
    this.out.write(`${this.toTop()}${CSI}J${SHOW_CURSOR}`);
    this.forget();
  }

  /** Moves to a fresh line below the block, for something else (a prompt) to draw there. */
  openBelow(): void {
    this.out.write(`\r${down(this.rows - 1 - this.cursorRow)}\r\n${SHOW_CURSOR}`);
    this.cursorRow = this.rows;
    this.lastFrame = null;
  }

  /** What was drawn below moved the cursor this many rows further down. */
  movedDown(rows: number): void {
    this.cursorRow += rows;
    this.lastFrame = null;
  }

  /** The screen was cleared and the cursor sent home: draw the next frame from there. */
  forget(): void {
    this.rows = 0;
    this.cursorRow = 0;
    this.lastFrame = null;
  }

  private toTop(): string {
    return `\r${up(this.cursorRow)}`;
  }
}

function up(rows: number): string {
  return rows > 0 ? `${CSI}${rows}A` : "";
}

function down(rows: number): string {
  return rows > 0 ? `${CSI}${rows}B` : "";
}

/**
 * A line of a list that may not fit: whether the cursor is on it, and whether `⋮ N more` counts it
 * (a task, not a section's title). Its text may be made on demand: a long list makes only the lines
 * that fit.
 */
export interface ListLine {
  text: string | (() => string);
  cursor: boolean;
  counted: boolean;
}

const textOf = (line: ListLine): string => (typeof line.text === "string" ? line.text : line.text());

/**
 * The lines that fit in `rows`, keeping the cursor's in view (near the middle while the list
 * scrolls); `⋮ N more` stands for the counted lines cut off above and below. The dashboard's list
 * and the picker both show their rows through here.
 */
export function windowAround(lines: ListLine[], rows: number, columns: number): string[] {
  if (lines.length <= rows) return lines.map(textOf);
  const at = Math.max(
    0,
    lines.findIndex((l) => l.cursor),
  );
  if (rows < 3) return [textOf(lines[at]!)];
  let from: number;
  let count: number;
  if (at < rows - 1) [from, count] = [0, rows - 1];
  else if (at >= lines.length - (rows - 1)) [from, count] = [lines.length - (rows - 1), rows - 1];
  else {
    count = rows - 2;
    from = Math.min(Math.max(1, at - Math.floor(count / 2)), lines.length - 1 - count);
  }
  const hidden = (part: ListLine[]) => part.filter((l) => l.counted).length;
  const more = (n: number) => paint.dim(fit(n > 0 ? `  ⋮ ${n} more` : "  ⋮", columns));
  const shown = lines.slice(from, from + count).map(textOf);
  return [
    ...(from > 0 ? [more(hidden(lines.slice(0, from)))] : []),
    ...shown,
    ...(from + count < lines.length ? [more(hidden(lines.slice(from + count)))] : []),
  ];
}
