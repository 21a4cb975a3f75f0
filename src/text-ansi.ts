// The few escape sequences fleetcom writes itself, named once for every layer that writes them.
export const ESC = "\x1b";
export const CSI = `${ESC}[`;
export const SGR_RESET = `${CSI}0m`;
export const HIDE_CURSOR = `${CSI}?25l`;
export const SHOW_CURSOR = `${CSI}?25h`;
export const BEL = "\x07";
/** XTWINOPS: keep the terminal's title on its stack, and give it back (a terminal without the stack ignores both). */
export const PUSH_TITLE = `${CSI}22;0t`;
export const POP_TITLE = `${CSI}23;0t`;

/** OSC 2: the window title, its control characters blanked so no text can end the sequence early. */
export function windowTitle(text: string): string {
  return `${ESC}]2;${text.replace(/[\x00-\x1f\x7f-\x9f]/g, " ")}${BEL}`;
}

/** DECSC/DECRC: keep the cursor, pen and charset, and give them back. */
export const SAVE_CURSOR = `${ESC}7`;
export const RESTORE_CURSOR = `${ESC}8`;
export const ERASE_LINE = `${CSI}2K`;
export const CLEAR_SCREEN = `${CSI}H${CSI}2J`;
/** The pen reset to reverse video, as the status line and notices draw. */
export const REVERSE_VIDEO = `${CSI}0;7m`;
/** DECOM off: cursor positions count from the screen's top, not the scroll region's. */
export const ORIGIN_MODE_OFF = `${CSI}?6l`;
export const RESET_SCROLL_REGION = `${CSI}r`;

/** The private modes that switch to the alternate screen (47, 1047, 1049). */
export const ALT_SCREEN_MODES: readonly number[] = [47, 1047, 1049];
export const ENTER_ALT_SCREEN = `${CSI}?1049h`;
export const LEAVE_ALT_SCREEN = `${CSI}?1049l`;
/** The private modes of mouse tracking (X10, normal, button, any) and of its encodings (UTF-8, SGR, urxvt, SGR pixels). */
export const MOUSE_TRACKING_MODES: readonly number[] = [9, 1000, 1002, 1003];
export const MOUSE_ENCODING_MODES: readonly number[] = [1005, 1006, 1015, 1016];

/** CUP: the cursor to `row`, `col` (1-based). */
export function cursorTo(row: number, col = 1): string {
  return `${CSI}${row};${col}H`;
}

/** DECSTBM: the scroll region from row `top` to row `bottom` (1-based). */
export function scrollRegion(top: number | string, bottom: number): string {
  return `${CSI}${top};${bottom}r`;
}

/** Each private mode switched off, one sequence per mode. */
export function modesOff(modes: readonly number[]): string {
  return modes.map((mode) => `${CSI}?${mode}l`).join("");
}
