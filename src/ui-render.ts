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
