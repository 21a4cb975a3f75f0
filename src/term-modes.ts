// A terminal's modes, cursor and scroll region as bytes: what xterm keeps but exposes no API for,
// followed here through the parser hooks term-screen.ts registers, and the sequences that put an
// attaching terminal into a known state and then into the task's (docs/terminal-state.md).
import type { IBuffer, IModes } from "@xterm/headless";
import type { Region } from "./term-lines.ts";
import {
  ALT_SCREEN_MODES,
  CSI,
  ESC,
  HIDE_CURSOR,
  MOUSE_ENCODING_MODES,
  MOUSE_TRACKING_MODES,
  RESET_SCROLL_REGION,
  SGR_RESET,
  SHOW_CURSOR,
} from "./text-ansi.ts";

export type CsiParams = (number | number[])[];
type BufferType = IBuffer["type"];

const MOUSE_TRACKING: Record<IModes["mouseTrackingMode"], string> = {
  none: "",
  x10: `${CSI}?9h`,
  vt200: `${CSI}?1000h`,
  drag: `${CSI}?1002h`,
  any: `${CSI}?1003h`,
};

/**
 * Puts an attaching terminal into a known state before the screen is drawn: whatever a previous
 * program left in it (scroll region, origin mode, pen, modes, line-drawing charset) would otherwise
 * distort the drawing or the input the task receives. The cursor stays hidden while drawing; the
 * suffix shows it again unless the task hid it. Which screen the terminal is on, and its
 * scrollback, are left as they are.
 */
export const RESET_ATTACHING_TERMINAL = [
  HIDE_CURSOR,
  SGR_RESET,
  RESET_SCROLL_REGION, // scroll region: whole screen
  `${CSI}?${[6, 1, 45, 1004, 2004, ...MOUSE_TRACKING_MODES, ...MOUSE_ENCODING_MODES].join(";")}l`,
  `${CSI}4l`, // replace, not insert
  `${CSI}?7h`, // autowrap: the serialized rows rely on it
  `${ESC}>`, // numeric keypad
  `${CSI}0 q`, // the user's cursor style
  `${ESC}(B\x0f`, // G0 = ASCII, selected
  `${CSI}H${CSI}2J`,
].join("");

/** Modes xterm reports in `term.modes`, each with the sequence that sets it. */
const MODE_RESTORES: [(m: IModes) => boolean, string][] = [
  [(m) => m.applicationCursorKeysMode, `${CSI}?1h`],
  [(m) => m.applicationKeypadMode, `${ESC}=`],
  [(m) => m.bracketedPasteMode, `${CSI}?2004h`],
  [(m) => m.sendFocusMode, `${CSI}?1004h`],
  [(m) => m.insertMode, `${CSI}4h`],
  [(m) => !m.wraparoundMode, `${CSI}?7l`],
  [(m) => m.reverseWraparoundMode, `${CSI}?45h`],
];

/**
 * What xterm keeps but exposes no API for. It mirrors xterm's own rules: the scroll region belongs
 * to a buffer, leaving the alternate screen clears its region, resizing resets both, DECSTR resets
 * the active one.
 */
export class HiddenState {
  cursorHidden = false;
  /** The last mouse encoding the task enabled (1005, 1006, 1015 or 1016). */
  mouseEncoding: number | undefined;
  /** DECSCUSR style (1–6); absent means the user's default. */
  cursorStyle: number | undefined;
  regions: Record<BufferType, Region | undefined> = { normal: undefined, alternate: undefined };

  setPrivateModes(params: CsiParams, on: boolean): void {
    for (const mode of mainParams(params)) {
      if (mode === 25) this.cursorHidden = !on;
      else if (MOUSE_ENCODING_MODES.includes(mode)) this.setMouseEncoding(mode, on);
      else if (!on && ALT_SCREEN_MODES.includes(mode)) this.regions.alternate = undefined;
    }
  }

  private setMouseEncoding(mode: number, on: boolean): void {
    if (on) this.mouseEncoding = mode;
    else if (this.mouseEncoding === mode) this.mouseEncoding = undefined;
  }

  /** DECSTBM with xterm's defaults; a region of fewer than two rows is ignored, as xterm does. */
  setScrollRegion(params: CsiParams, rows: number, active: BufferType): void {
    const [first, second] = mainParams(params);
    const top = first || 1;
    const bottom = second === undefined || second === 0 || second > rows ? rows : second;
    if (bottom <= top) return;
    this.regions[active] = top === 1 && bottom === rows ? undefined : { top: top - 1, bottom: bottom - 1 };
  }

  softReset(active: BufferType): void {
    this.cursorHidden = false;
    this.cursorStyle = undefined;
    this.regions[active] = undefined;
  }

  /** RIS. xterm itself keeps the cursor hidden across RIS; real terminals show it, and so do we. */
  fullReset(): void {
    this.cursorHidden = false;
    this.mouseEncoding = undefined;
    this.cursorStyle = undefined;
    this.resetRegions();
  }

  resetRegions(): void {
    this.regions = { normal: undefined, alternate: undefined };
  }

  /** The sequences that set the task's modes: those xterm reports, then those only followed here. */
  modesSequence(modes: IModes): string {
    let out = "";
    for (const [isSet, sequence] of MODE_RESTORES) if (isSet(modes)) out += sequence;
    out += MOUSE_TRACKING[modes.mouseTrackingMode];
    if (this.mouseEncoding !== undefined) out += `${CSI}?${this.mouseEncoding}h`;
    if (this.cursorStyle !== undefined) out += `${CSI}${this.cursorStyle} q`;
    return out;
  }

  /** DECSTBM and DECOM both home the cursor, so the cursor goes last, relative to the origin. */
  regionAndCursorSequence(buffer: IBuffer, originMode: boolean): string {
    const region = this.regions[buffer.type];
    let out = region ? `${CSI}${region.top + 1};${region.bottom + 1}r` : "";
    if (originMode) out += `${CSI}?6h`;
    const originRow = originMode && region ? region.top : 0;
    out += cursorTo(buffer.cursorY - originRow + 1, buffer.cursorX + 1);
    return out + (this.cursorHidden ? "" : SHOW_CURSOR);
  }
}

/** A parameter with sub-parameters (`1:2`) arrives as a number followed by an array; keep the numbers. */
export function mainParams(params: CsiParams): number[] {
  return params.filter((p): p is number => typeof p === "number");
}

export function cursorTo(row: number, col: number): string {
  return `${CSI}${row};${col}H`;
}
