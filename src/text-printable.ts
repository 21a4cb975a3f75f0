// The one sanitiser for human-readable output. INVARIANT: a task's command, directory, name or
// group, a session name, a file path and any error text that can carry them reach a terminal only
// through printable(). Those strings come from recipe files, other programs and directory names, so
// they may hold escape sequences that rewrite the clipboard (OSC 52), the window title or the screen,
// or bidi controls that make a listing read differently from what it holds. `--json` output is the
// exact data and never passes through here.
//
// What is shown escaped instead of sent: C0 controls and DEL (ESC above all), C1 controls U+0080–U+009F
// (8-bit CSI, OSC, DCS, ST…: a terminal that reads UTF-8 acts on them too), the bidi embeddings,
// overrides and isolates (U+202A–U+202E, U+2066–U+2069), the marks U+200E, U+200F and U+061C, and
// the line and paragraph separators U+2028/U+2029, which some terminals and viewers break lines on.
// Pure and idempotent: its output holds none of these, so sanitising twice changes nothing, and a
// cut to a column width taken after it can never leave half an escape sequence behind.

import { redacted } from "./text-redact.ts";

const UNSAFE_CHAR = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const UNSAFE = new RegExp(UNSAFE_CHAR.source, "gu");

export function printable(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** True when printable() would change nothing: the text can be shown, and typed back, as it is. */
export function isPrintable(text: string): boolean {
  return !UNSAFE_CHAR.test(text);
}

// The same characters but the line feed and the tab, which a terminal only moves the cursor on.
const UNSAFE_IN_TEXT = String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]`;
const UNSAFE_LINES = new RegExp(UNSAFE_IN_TEXT, "gu");
// SGR alone (colours and attributes), which `peek --history --ansi` keeps; any other sequence is escaped.
const SGR_OR_UNSAFE = new RegExp(String.raw`(\x1b\[[0-9;:]*m)|${UNSAFE_IN_TEXT}`, "gu");

/**
 * A daemon's text of many lines (`peek`, `logs`) as printable() shows one: its lines kept, every
 * control escaped. A local daemon's screen text holds none, but another host's daemon may send
 * anything; only `attach` hands a daemon's bytes to the terminal, by design. `sgr`: colours pass.
 */
export function printableText(text: string, options: { sgr?: boolean } = {}): string {
  if (options.sgr) return text.replace(SGR_OR_UNSAFE, (match: string, sgr: string | undefined) => (sgr ? match : escaped(match)));
  return text.replace(UNSAFE_LINES, escaped);
}

function escaped(char: string): string {
  const code = char.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * One daemon.log entry. An entry can quote a command or a path: sanitised, `cat daemon.log` replays no
 * escape sequence, and the continuation lines of a stack trace are indented, so no text can pose as
 * another entry. It can quote a notify destination too: its credentials are hidden (text-redact.ts).
 */
export function logLine(message: string, now = new Date()): string {
  return `${now.toISOString()} ${redacted(message).split("\n").map(printable).join("\n  ")}\n`;
}
