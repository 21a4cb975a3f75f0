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
