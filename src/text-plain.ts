// What `peek --follow` prints: a task's output stream with every terminal control removed, so what a
// task prints can change nothing in the user's terminal (clipboard, title, colours, cursor). Escape
// sequences come in two spellings and both are removed: 7-bit (ESC [, ESC ], ESC P…) and 8-bit C1
// (U+009B CSI, U+009D OSC, U+0090 DCS…, which a UTF-8 terminal acts on just the same). Whatever is
// left, every C0, DEL and C1 character is removed one by one, so no control reaches the terminal
// however the sequences are formed. The stream arrives in chunks that can split a sequence
// anywhere: an unfinished one at the end of a chunk is held back until the next, so its payload is
// not printed as text; a control string longer than MAX_HELD is dropped up to its end instead of
// being held in memory.

// OSC, DCS, SOS, PM and APC run to BEL, ST (ESC \ or U+009C), or the next ESC, which ends them.
const STRING_START = String.raw`(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])`;
const STRING = String.raw`${STRING_START}[^\x07\x1b\x9c]*(?:\x07|\x9c|\x1b\\|(?=\x1b))`;
const CSI = String.raw`(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]`;
const ESCAPE = String.raw`\x1b[ -/]*[0-~]`;
const CONTROL = new RegExp(`${CSI}|${STRING}|${ESCAPE}|\\r(?!\\n)|[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]`, "g");
// Anything but a string still open at the end of a chunk: a CSI, an ESC and its intermediates, a CR.
const UNFINISHED = /(?:(?:\x1b\[|\x9b)[0-?]*[ -/]*|\x1b[ -/]*|\r)$/;

export const MAX_HELD = 64 * 1024;

export class PlainTextStream {
  private held = "";
  /** Inside a control string too long to hold: everything up to its end is dropped. */
  private dropping = false;

  push(chunk: string): string {
    let text = this.held + chunk;
    this.held = "";
    if (this.dropping) {
      const end = stringEnd(text);
      if (end === null) {
        if (text.endsWith("\x1b")) this.held = "\x1b"; // perhaps the first half of ESC \
        return "";
      }
      this.dropping = false;
      text = text.slice(end);
    }
    const open = unfinishedString(text) ?? UNFINISHED.exec(text)?.index ?? null;
    if (open !== null) {
      if (text.length - open <= MAX_HELD) this.held = text.slice(open);
      else this.dropping = true;
      text = text.slice(0, open);
    }
    return plainText(text);
  }
}

/** Complete output as plain text. */
export function plainText(output: string): string {
  return output.replace(/\r\n/g, "\n").replace(CONTROL, "");
}

/** Where an open control string at the end of `text` starts, or null. Linear: one scan back, one forward. */
function unfinishedString(text: string): number | null {
  // A final ESC may be the first half of ESC \: the string is still open.
  const end = text.endsWith("\x1b") ? text.length - 1 : text.length;
  let stop = end - 1;
  while (stop >= 0 && !"\x07\x1b\x9c".includes(text[stop]!)) stop--;
  if (stop >= 0 && text[stop] === "\x1b" && stop + 1 < end && "]PX^_".includes(text[stop + 1]!)) return stop;
  for (let i = stop + 1; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x90 || code === 0x98 || (code >= 0x9d && code <= 0x9f)) return i;
  }
  return null;
}

/** Where the text after a dropped string's end begins, or null when the string has not ended yet. */
function stringEnd(text: string): number | null {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\x07" || c === "\x9c") return i + 1;
    if (c === "\x1b") {
      if (i + 1 === text.length) return null;
      return text[i + 1] === "\\" ? i + 2 : i;
    }
  }
  return null;
}
