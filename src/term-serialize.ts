// Draws buffer rows as the bytes that make a cleared terminal of the same width hold the same cells,
// wrapped-line flags included. Written instead of using @xterm/addon-serialize 0.14, which drops
// bold next to dim (its SGR 22 for "not dim" also clears bold), turns `38;5;N` (N < 16) into 3x/9x
// and carries the pen across rows and buffers. Here every style change is a complete SGR from
// reset, and the pen is back to default at the end of every row, so no row depends on another.
import { CSI, SGR_RESET } from "./text-ansi.ts";
import type { IBuffer, IBufferCell, IBufferLine } from "@xterm/headless";

/** The style getters that buffer cells and xterm's current pen both have. */
export type Style = Pick<
  IBufferCell,
  | "getFgColorMode"
  | "getFgColor"
  | "getBgColorMode"
  | "getBgColor"
  | "isBold"
  | "isDim"
  | "isItalic"
  | "isUnderline"
  | "isBlink"
  | "isInverse"
  | "isInvisible"
  | "isStrikethrough"
  | "isOverline"
  | "isAttributeDefault"
>;

// xterm's colour-mode bits (common/buffer/Constants.ts), as getFgColorMode() returns them.
const PALETTE_16 = 0x1000000;
const PALETTE_256 = 0x2000000;
const RGB = 0x3000000;

/** Each attribute's getter (a bit of xterm's attribute word, 0 when unset) and its SGR code. */
const FLAGS: [(s: Style) => number, number][] = [
  [(s) => s.isBold(), 1],
  [(s) => s.isDim(), 2],
  [(s) => s.isItalic(), 3],
  [(s) => s.isUnderline(), 4],
  [(s) => s.isBlink(), 5],
  [(s) => s.isInverse(), 7],
  [(s) => s.isInvisible(), 8],
  [(s) => s.isStrikethrough(), 9],
  [(s) => s.isOverline(), 53],
];

export function sgr(style: Style): string {
  let params = "0";
  for (const [isSet, code] of FLAGS) if (isSet(style)) params += `;${code}`;
  params += colour(style.getFgColorMode(), style.getFgColor(), 30, 90, 38);
  params += colour(style.getBgColorMode(), style.getBgColor(), 40, 100, 48);
  return `${CSI}${params}m`;
}

function colour(mode: number, value: number, base: number, brightBase: number, extended: number): string {
  if (mode === PALETTE_16) return `;${value < 8 ? base + value : brightBase + value - 8}`;
  if (mode === PALETTE_256) return `;${extended};5;${value}`;
  if (mode === RGB) return `;${extended};2;${(value >>> 16) & 255};${(value >>> 8) & 255};${value & 255}`;
  return "";
}

function sameStyle(a: Style, b: Style): boolean {
  return (
    a.getFgColorMode() === b.getFgColorMode() &&
    a.getFgColor() === b.getFgColor() &&
    a.getBgColorMode() === b.getBgColorMode() &&
    a.getBgColor() === b.getBgColor() &&
    FLAGS.every(([isSet]) => !isSet(a) === !isSet(b))
  );
}

function move(count: number, final: string): string {
  return count > 0 ? `${CSI}${count}${final}` : "";
}

/**
 * Rows [from, to) of `buffer`, drawn from the cursor's row downwards starting at column 0. Each row
 * is built on its own and the rows joined once: one string built cell by cell over a whole
 * scrollback is a rope of a fibre per cell, megabytes until something flattens it.
 */
export function serializeRows(buffer: IBuffer, from: number, to: number, cols: number): string {
  const cell = buffer.getNullCell();
  const pen = buffer.getNullCell();
  const drawn: string[] = [];
  for (let y = from; y < to; y++) {
    let out = "";
    const line = buffer.getLine(y);
    if (!line) break;
    let x = 0; // where the client's cursor is
    let skipped = 0; // default blank cells passed over, not yet moved across
    let erased = 0; // blank cells with a background, not yet erased
    let penIsDefault = true;
    const flushErased = () => {
      out += move(erased, "X") + move(erased, "C");
      x += erased;
      erased = 0;
    };
    for (let col = 0; col < cols; col++) {
      line.getCell(col, cell);
      const width = cell.getWidth();
      if (width === 0) continue; // the right half of a wide character
      const chars = cell.getChars();
      if (chars === "" && cell.isAttributeDefault()) {
        skipped += 1;
        continue;
      }
      const styleChanges = penIsDefault ? !cell.isAttributeDefault() : !sameStyle(cell, pen);
      if (erased > 0 && (chars !== "" || styleChanges)) flushErased();
      out += move(skipped, "C");
      x += skipped;
      skipped = 0;
      if (styleChanges) {
        out += sgr(cell);
        line.getCell(col, pen);
        penIsDefault = cell.isAttributeDefault();
      }
      if (chars === "") {
        erased += 1;
      } else {
        out += chars;
        x += width;
      }
    }
    const wraps = y + 1 < to && buffer.getLine(y + 1)?.isWrapped === true;
    // Erasing up to the last column would leave the cursor short of the wrap: a wrapping row
    // repaints its trailing blanks after the wrap instead.
    const repaint = wraps && erased > 0 ? `${sgr(pen)}${CSI}${erased}X${SGR_RESET}` : "";
    if (erased > 0 && !wraps) flushErased();
    // A default pen before moving on: a scroll fills the new row with the pen's background.
    if (!penIsDefault) out += SGR_RESET;
    if (wraps) out += wrapInto(x, cols, repaint);
    else if (y + 1 < to) out += "\r\n";
    drawn.push(out);
  }
  return drawn.join("");
}

/**
 * Reaches the next row by autowrap, the only way a terminal marks a row as continuing the one
 * above. Dashes fill this row's untouched tail and spill one into the next row; then all of them
 * are erased, leaving the cursor at the start of the next row. Only relative moves, so it works
 * at the bottom of the screen too. `repaintTail` redraws blanks with a background from column x.
 */
function wrapInto(x: number, cols: number, repaintTail: string): string {
  const tail = cols - x;
  let out = `${"-".repeat(tail + 1)}${CSI}D${CSI}X`;
  if (tail > 0) out += `${CSI}A${move(x, "C")}${CSI}${tail}X${repaintTail}${move(x, "D")}${CSI}B`;
  return out;
}

/**
 * One logical line (the rows of it the terminal wrapped, in order) as text with its colours, for
 * history (`peek --history --ansi`, the pager): every style change a complete SGR from reset, the
 * pen reset at the end, no cursor movement. Unwritten cells are spaces; default-styled blanks at the
 * end of the last row are left out. `cell` and `pen` are scratch cells.
 */
export function styledLine(rows: IBufferLine[], cols: number, cell: IBufferCell, pen: IBufferCell): string {
  const last = rows.length - 1;
  let end = cols;
  while (end > 0) {
    rows[last]!.getCell(end - 1, cell);
    const chars = cell.getChars();
    if ((chars !== "" && chars !== " ") || !cell.isAttributeDefault()) break;
    end -= 1;
  }
  let out = "";
  let penIsDefault = true;
  rows.forEach((line, r) => {
    const stop = r === last ? end : cols;
    for (let col = 0; col < stop; col++) {
      line.getCell(col, cell);
      if (cell.getWidth() === 0) continue; // the right half of a wide character
      const styleChanges = penIsDefault ? !cell.isAttributeDefault() : !sameStyle(cell, pen);
      if (styleChanges) {
        out += cell.isAttributeDefault() ? SGR_RESET : sgr(cell);
        line.getCell(col, pen);
        penIsDefault = cell.isAttributeDefault();
      }
      out += cell.getChars() || " ";
    }
  });
  return penIsDefault ? out : out + SGR_RESET;
}
