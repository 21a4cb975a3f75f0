// Named keys for `fleetcom send --keys` (tmux's names): what each sends to a program, the way an
// xterm-compatible terminal sends it. Arrows, Home and End depend on the task's cursor-key mode
// (DECCKM), so the daemon turns names into bytes with the task's modes. Also the bound on the text one
// `send` types, which the client checks too. Pure; no arktype (send's start-up path).
import { CSI } from "./text-ansi.ts";

const SS3 = "\x1bO";

/** Text one `send` may type, in UTF-8 bytes: refused whole past it, never cut. */
export const MAX_SEND_BYTES = 1024 * 1024;

export function sendTooLong(bytes: number): string {
  return `send: text too long (${bytes} bytes; at most 1 MiB at a time)`;
}

/** Keys whose bytes do not depend on modes; names are matched ignoring case. */
const FIXED: Record<string, string> = {
  enter: "\r",
  tab: "\t",
  btab: `${CSI}Z`,
  esc: "\x1b",
  escape: "\x1b",
  space: " ",
  bspace: "\x7f",
  dc: `${CSI}3~`,
  delete: `${CSI}3~`,
  ic: `${CSI}2~`,
  insert: `${CSI}2~`,
  pgup: `${CSI}5~`,
  ppage: `${CSI}5~`,
  pageup: `${CSI}5~`,
  pgdn: `${CSI}6~`,
  npage: `${CSI}6~`,
  pagedown: `${CSI}6~`,
  f1: `${SS3}P`,
  f2: `${SS3}Q`,
  f3: `${SS3}R`,
  f4: `${SS3}S`,
  f5: `${CSI}15~`,
  f6: `${CSI}17~`,
  f7: `${CSI}18~`,
  f8: `${CSI}19~`,
  f9: `${CSI}20~`,
  f10: `${CSI}21~`,
  f11: `${CSI}23~`,
  f12: `${CSI}24~`,
};

/** Cursor keys: the final byte after CSI (normal mode) or SS3 (application cursor keys). */
const CURSOR: Record<string, string> = { up: "A", down: "B", right: "C", left: "D", home: "H", end: "F" };

export const KEY_NAMES_HELP = "Enter Tab BTab Esc Space BSpace Up Down Left Right Home End PgUp PgDn IC DC F1-F12 C-<letter> M-<key>";

export interface KeyModes {
  applicationCursorKeys: boolean;
}

/**
 * The bytes one named key sends, or null for a name that is no key. `C-a`…`C-z` (and `C-@ C-[ C-\
 * C-] C-^ C-_`, `C-Space`) are control characters; `M-<key>` is ESC followed by the key (a named
 * key or one character).
 */
export function keyBytes(name: string, modes: KeyModes = { applicationCursorKeys: false }): string | null {
  if (/^M-./s.test(name)) {
    const inner = name.slice(2);
    const bytes = [...inner].length === 1 ? inner : keyBytes(inner, modes);
    return bytes === null ? null : `\x1b${bytes}`;
  }
  if (/^C-./s.test(name)) return controlKey(name.slice(2));
  const lower = name.toLowerCase();
  if (FIXED[lower] !== undefined) return FIXED[lower]!;
  const final = CURSOR[lower];
  if (final !== undefined) return `${modes.applicationCursorKeys ? SS3 : CSI}${final}`;
  return null;
}

function controlKey(key: string): string | null {
  if (key.toLowerCase() === "space") return "\x00";
  if ([...key].length !== 1) return null;
  const code = key.toUpperCase().charCodeAt(0);
  // @ A…Z [ \ ] ^ _ → 0x00…0x1f; `?` is DEL, as terminals send it.
  if (code >= 0x40 && code <= 0x5f) return String.fromCharCode(code - 0x40);
  if (key === "?") return "\x7f";
  return null;
}

/** The first name that is no key, or null when all are. */
export function unknownKey(names: readonly string[]): string | null {
  return names.find((name) => keyBytes(name) === null) ?? null;
}
