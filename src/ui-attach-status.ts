// The attached terminal's optional status line (off by default): which task this is, its state, how
// many other tasks wait, and the detach key, on the terminal's last row. When it is on, the task's
// PTY is one row shorter and this row is kept out of the task's reach; when it is off, nothing here
// runs and the task has the whole screen.
//
// fleetcom passes the task's output through rather than drawing the task itself (as tmux does), so
// the row is kept in three ways, each cheap enough for every chunk:
// - the terminal's scroll region stops above it: the task's own region changes are rewritten so
//   their bottom never passes the task's last row (`CSI r`, which means "the whole screen" to the
//   task, becomes `CSI 1;N r`), and a full reset (`ESC c`) is followed by the region again;
// - output that can erase it (erase in display, a full reset) has it drawn again afterwards;
// - it is drawn between sequences only (TerminalScan), inside a cursor save and restore (DECSC/
//   DECRC) that puts back the task's cursor, pen and origin mode. The task may use that one save
//   slot itself: while the task has saved a cursor it has not restored yet, drawing waits.
// What it cannot keep: a task that addresses a row below its own screen (none does: it knows its
// size) and a soft reset (`CSI ! p`) that clears the region until the next redraw.
import { label } from "./task-labels.ts";
import { printable } from "./text-printable.ts";
import { cut, textWidth } from "./text-width.ts";
import { stateText } from "./view-task.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import { concatBytes } from "./bytes.ts";
import { armedText, chordWords } from "./ui-attach-chords.ts";
import { cursorTo, ESC, ORIGIN_MODE_OFF, RESTORE_CURSOR, REVERSE_VIDEO, SAVE_CURSOR, scrollRegion, SGR_RESET } from "./text-ansi.ts";

const ESC_BYTE = 0x1b;
const EMPTY = new Uint8Array(0);

/**
 * `task 3 api · active · ! 2 others waiting · Ctrl-\ then d detach · n next · …`, as wide as `cols`
 * allows: `waiting` counts the other tasks, and is left out when none does (beside this task's own
 * state, "none waiting" would read as a contradiction). While the detach key waits for its chord key
 * (`armed`), the armed marker instead.
 */
export function statusText(task: TaskInfo, waiting: number, detach: string, message: string | null = null, armed = false): string {
  if (armed) return armedText(detach);
  const parts = [`task ${task.id} ${printable(label(task))}`, stateText(task)];
  if (waiting > 0) parts.push(`! ${waiting} other${waiting === 1 ? "" : "s"} waiting`);
  if (message) parts.push(message);
  parts.push(`${detach} then ${chordWords()}`);
  return parts.join(" · ");
}

/** `text` as one reverse-video row `cols` wide, a space either side. */
function reverseRow(text: string, cols: number): string {
  const shown = cut(text, Math.max(1, cols - 1));
  const padded = ` ${shown}${" ".repeat(Math.max(0, cols - 2 - textWidth(shown)))}`;
  return `${REVERSE_VIDEO}${cut(padded, cols)}${SGR_RESET}`;
}

/** The bytes that draw `text` on row `row` in reverse video, leaving the cursor, pen and modes as they were. */
export function statusRowBytes(text: string, row: number, cols: number): string {
  return `${SAVE_CURSOR}${ORIGIN_MODE_OFF}${cursorTo(row)}${reverseRow(text, cols)}${RESTORE_CURSOR}`;
}

/**
 * `lines` drawn over the last rows of a `rows`-row terminal, the last line on the last row: what
 * covers the task's screen until a redraw (the armed marker, the chord list). No cursor save: the
 * task may hold that slot, and the redraw that follows puts back its cursor, pen, modes and charset.
 * `midSequence`: the task's output stopped inside a sequence, which CAN (0x18) ends first.
 */
export function coverBytes(lines: readonly string[], rows: number, cols: number, midSequence: boolean): string {
  const shown = lines.slice(-rows);
  const top = rows - shown.length + 1;
  const drawn = shown.map((line, i) => `${cursorTo(top + i)}${reverseRow(line, cols)}`).join("");
  return `${midSequence ? "\x18" : ""}${ORIGIN_MODE_OFF}${ESC}(B${drawn}`;
}

/** The scroll region that keeps the last row of a `rows`-row terminal out of the task's reach. */
export function taskRegion(rows: number): string {
  return scrollRegion(1, Math.max(1, rows - 1));
}

/**
 * Follows the task's output while the status line shows: rewrites scroll regions, notes what may
 * have erased the status row, and whether the task holds a saved cursor. Sequences split across
 * chunks are held until their end arrives.
 */
export class StatusRowGuard {
  private held: Uint8Array = EMPTY;
  /** The task saved its cursor (DECSC, SCOSC, mode 1048) and has not restored it yet. */
  savedCursor = false;

  /** `keepRow` false: only watch (the saved cursor, what erases), rewriting nothing, for a marker drawn over the task's own rows (ui-attach-size.ts). */
  constructor(private readonly keepRow = true) {}

  /** A sequence split across chunks is held until its end arrives. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** `taskRows`: the task's height, one less than the terminal's. */
  push(chunk: Uint8Array, taskRows: number): { bytes: Uint8Array; erased: boolean } {
    const data = this.held.length ? concatBytes([this.held, chunk]) : chunk;
    this.held = EMPTY;
    if (data.indexOf(ESC_BYTE) === -1) return { bytes: data, erased: false };
    const out: Uint8Array[] = [];
    let erased = false;
    let from = 0;
    const replace = (start: number, end: number, text: string) => {
      out.push(data.subarray(from, start), new TextEncoder().encode(text));
      from = end;
    };
    for (let at = data.indexOf(ESC_BYTE); at !== -1; at = data.indexOf(ESC_BYTE, at + 1)) {
      const next = data[at + 1];
      if (next === undefined) {
        this.held = data.slice(at);
        out.push(data.subarray(from, at));
        return { bytes: concatBytes(out), erased };
      }
      if (next === 0x37)
        this.savedCursor = true; // ESC 7
      else if (next === 0x38)
        this.savedCursor = false; // ESC 8
      else if (next === 0x63) {
        // ESC c: a full reset, the region included
        erased = true;
        this.savedCursor = false;
        if (this.keepRow) replace(at, at + 2, `${ESC}c${taskRegion(taskRows + 1)}`);
      }
      if (next !== 0x5b) continue;
      let end = at + 2;
      while (end < data.length && !(data[end]! >= 0x40 && data[end]! <= 0x7e)) end++;
      if (end >= data.length) {
        this.held = data.slice(at);
        out.push(data.subarray(from, at));
        return { bytes: concatBytes(out), erased };
      }
      const body = new TextDecoder().decode(data.subarray(at + 2, end));
      const final = String.fromCharCode(data[end]!);
      if (final === "J" && /^[012]?$/.test(body)) erased = true;
      else if (final === "s" && body === "") this.savedCursor = true;
      else if (final === "u" && body === "") this.savedCursor = false;
      else if ((final === "h" || final === "l") && /^\?(.*;)?1048(;.*)?$/.test(body)) this.savedCursor = final === "h";
      else if (this.keepRow && final === "r" && /^[\d;]*$/.test(body)) replace(at, end + 1, region(body, taskRows));
      at = end;
    }
    out.push(data.subarray(from));
    return { bytes: concatBytes(out), erased };
  }
}

/** A region the task set, its bottom kept at most `taskRows`; the default bottom is the task's last row. */
function region(body: string, taskRows: number): string {
  const [top = "", bottom = ""] = body.split(";");
  const bottomRow = bottom === "" || Number(bottom) === 0 || Number(bottom) > taskRows ? taskRows : Number(bottom);
  return scrollRegion(top === "" ? 1 : top, bottomRow);
}
