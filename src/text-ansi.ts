// The few escape sequences fleetcom writes itself, named once for every layer that writes them.
export const ESC = "\x1b";
export const CSI = `${ESC}[`;
export const SGR_RESET = `${CSI}0m`;
export const HIDE_CURSOR = `${CSI}?25l`;
export const SHOW_CURSOR = `${CSI}?25h`;
