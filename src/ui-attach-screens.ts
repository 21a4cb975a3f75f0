// While attached, the client's terminal stays on its alternate screen, so the user's own scrollback
// is never touched (ui-attach.ts). A task that switches screens itself (vim, less, htop: `CSI ? 1049 h`,
// `1047`, `47`) would take that terminal back to its normal screen, and the task's later output
// would scroll into the user's scrollback. So the switches are taken out of the stream as it goes to
// the terminal, and reported: the client then asks the daemon to redraw the task's screen as it now
// is, which is exactly what the switch would have shown. Other modes in the same sequence stay.
// Sequences split across chunks are followed: an unfinished one is held until its end arrives.
// On detach, RESTORE_TERMINAL leaves the alternate screen with the task's modes undone.
import { concatBytes } from "./bytes.ts";
import {
  ALT_SCREEN_MODES,
  CSI,
  ESC as ESC_TEXT,
  LEAVE_ALT_SCREEN,
  modesOff,
  MOUSE_ENCODING_MODES,
  MOUSE_TRACKING_MODES,
  RESET_SCROLL_REGION,
  SGR_RESET,
  SHOW_CURSOR,
} from "./text-ansi.ts";

/**
 * Undo what the task may have left switched on, then leave the alternate screen: the user's screen
 * comes back with the cursor where it was. The scroll region goes first: setting it homes the cursor.
 */
export const RESTORE_TERMINAL =
  RESET_SCROLL_REGION +
  SGR_RESET +
  SHOW_CURSOR +
  `${CSI}?1l${ESC_TEXT}>` + // cursor keys and keypad back to normal
  modesOff([2004, 1004, ...MOUSE_TRACKING_MODES, ...MOUSE_ENCODING_MODES]) + // bracketed paste, focus, the mouse
  LEAVE_ALT_SCREEN;

const ESC = 0x1b;
const LEFT_BRACKET = 0x5b;
const QUESTION = 0x3f;
const H = 0x68;
const L = 0x6c;
const SWITCHES = new Set(ALT_SCREEN_MODES.map(String));
const EMPTY = new Uint8Array(0);

function isParamByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || byte === 0x3b || byte === 0x3a; // digits, ';', ':'
}

export class AltScreenFilter {
  private held: Uint8Array = EMPTY;

  /** The chunk as it may go to the terminal, and whether the task switched screens in it. */
  push(chunk: Uint8Array): { bytes: Uint8Array; switched: boolean } {
    const data = this.held.length ? concatBytes([this.held, chunk]) : chunk;
    this.held = EMPTY;
    if (data.indexOf(ESC) === -1) return { bytes: data, switched: false };
    const kept: Uint8Array[] = [];
    let switched = false;
    let from = 0; // start of the bytes not yet kept
    for (let at = data.indexOf(ESC); at !== -1; at = data.indexOf(ESC, at + 1)) {
      // ESC [ ? params h|l; anything else passes as it is.
      let end = at + 1;
      if (end < data.length && data[end] !== LEFT_BRACKET) continue;
      if (end + 1 < data.length && data[end + 1] !== QUESTION) continue;
      end += 2;
      while (end < data.length && isParamByte(data[end]!)) end++;
      if (end >= data.length) {
        // Unfinished at the end of the chunk: wait for the rest.
        kept.push(data.subarray(from, at));
        this.held = data.slice(at);
        return { bytes: concatBytes(kept), switched };
      }
      const final = data[end]!;
      if (final !== H && final !== L) continue;
      const params = new TextDecoder().decode(data.subarray(at + 3, end)).split(";");
      const others = params.filter((p) => !SWITCHES.has(p));
      if (others.length === params.length) continue;
      switched = true;
      kept.push(data.subarray(from, at));
      if (others.length) kept.push(new TextEncoder().encode(`${CSI}?${others.join(";")}${String.fromCharCode(final)}`));
      from = end + 1;
      at = end;
    }
    if (from === 0) return { bytes: data, switched };
    kept.push(data.subarray(from));
    return { bytes: concatBytes(kept), switched };
  }
}
