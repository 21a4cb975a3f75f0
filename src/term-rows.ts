// A screen's rows as plain text (the preview, `peek`, logical lines), shared by the live emulator
// (term-screen.ts) and a finished screen's kept rows (term-screen-finished.ts). `row(y)` is a row
// right-trimmed; `baseY` is where the screen starts below the scrollback.
import type { IBuffer } from "@xterm/headless";

/** The last non-blank row of the screen; "" when the screen is blank. */
export function previewOfRows(baseY: number, screenRows: number, row: (y: number) => string): string {
  for (let y = baseY + screenRows - 1; y >= baseY; y--) {
    const line = row(y);
    if (line !== "") return line;
  }
  return "";
}

/**
 * previewOfRows() of a screen given as its rows' logical lines, right-trimmed, the first starting
 * on a row of its own (term-backlog.ts lastLines): a trimmed line ends in the last row it prints on.
 */
export function previewOfLines(lines: readonly string[], cols: number): string {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line !== "") return line.slice(Math.floor((line.length - 1) / cols) * cols);
  }
  return "";
}

/**
 * The screen's rows, trailing blank rows dropped. With `lines`, the last that many rows of
 * scrollback and screen together.
 */
export function textOfRows(length: number, baseY: number, row: (y: number) => string, lines?: number): string {
  const lowest = lines === undefined ? baseY : 0;
  let end = lowest;
  for (let y = length - 1; y >= lowest; y--) {
    if (row(y) !== "") {
      end = y + 1;
      break;
    }
  }
  const start = lines === undefined ? baseY : Math.max(0, end - lines);
  const rows: string[] = [];
  for (let y = start; y < end; y++) rows.push(row(y));
  return rows.join("\n");
}

/** Every line as the program wrote it: wrapped rows joined, right-trimmed. */
export function logicalLinesOfRows(length: number, row: (y: number) => string, isWrapped: (y: number) => boolean): string[] {
  const lines: string[] = [];
  for (let y = 0; y < length; y++) {
    const text = row(y);
    if (isWrapped(y) && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  return lines.map((l) => l.trimEnd());
}

/** How many of the screen's rows, from the top, reach down to the last one anything was written on. */
export function rowsInUse(buffer: IBuffer, rows: number): number {
  for (let n = rows; n > 0; n--) if (buffer.getLine(buffer.baseY + n - 1)?.translateToString(true)) return n;
  return 0;
}

export function rowText(buffer: IBuffer, y: number): string {
  // translateToString(true) trims unwritten cells only; written spaces are trimmed here.
  return buffer.getLine(y)?.translateToString(true).trimEnd() ?? "";
}
