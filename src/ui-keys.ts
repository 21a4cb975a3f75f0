// Keys from a raw terminal: what the bytes on stdin mean (arrows in both cursor-key modes, Enter,
// Tab, Esc, control keys, typed text), and one reader that hands them to whoever has the screen.
// A lone ESC in a read is the Esc key; a sequence split across reads is rare on a local terminal.

const LETTERS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z"] as const;
type Letter = (typeof LETTERS)[number];

/** A key that types no character of its own; Ctrl with a letter is `ctrl-c`. */
export type NamedKey =
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "pageup"
  | "pagedown"
  | "delete"
  | "enter"
  | "tab"
  | "shift-tab"
  | "escape"
  | "backspace"
  | `ctrl-${Letter}`
  | "ctrl-\\"
  /** What a terminal with bracketed paste on (`CSI ?2004h`) sends around pasted text. */
  | "paste-start"
  | "paste-end";

export type Key = { name: "char"; text: string } | { name: "space"; text: " " } | { name: NamedKey; text?: undefined };

/**
 * What a key table is indexed by: a named key, Space, or a typed letter, digit or sign (a `char`
 * key by its text). Tables are `Partial<Record<KeyId, …>>`, so a misspelt key does not compile.
 */
export type KeyId = NamedKey | "space" | Letter | Uppercase<Letter> | "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "/" | "?" | "[";

/** A key's name in a key table: a typed character by its text. */
export function keyName(key: Key): string {
  return key.name === "char" ? key.text : key.name;
}

/** The entry of `table` for this key, if it has one. */
export function keyEntry<A>(table: Partial<Record<KeyId, A>>, key: Key | string): A | undefined {
  const byName: Readonly<Record<string, A | undefined>> = table;
  return byName[typeof key === "string" ? key : keyName(key)];
}

const NAMED: Readonly<Record<string, Key>> = {
  "\r": { name: "enter" },
  "\n": { name: "enter" },
  "\t": { name: "tab" },
  "\x7f": { name: "backspace" },
  "\b": { name: "backspace" },
  " ": { name: "space", text: " " },
  "\x1c": { name: "ctrl-\\" },
};

const CSI_FINAL: Readonly<Record<string, NamedKey>> = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end" };
// `CSI n ~` keys: xterm and VT220 numbering, with rxvt's and the Linux console's Home and End.
const TILDE: Readonly<Record<string, NamedKey>> = {
  "1": "home",
  "7": "home",
  "4": "end",
  "8": "end",
  "3": "delete",
  "5": "pageup",
  "6": "pagedown",
  "200": "paste-start",
  "201": "paste-end",
};

export function decodeKeys(input: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i]!;
    if (ch === "\x1b") {
      const [key, length] = escapeSequence(input, i);
      if (key) keys.push(key);
      i += length;
      continue;
    }
    const code = ch.codePointAt(0)!;
    const char = String.fromCodePoint(code);
    i += char.length;
    const named = NAMED[char];
    const letter = LETTERS[code - 1];
    if (named) keys.push(named);
    else if (code >= 0x20) keys.push({ name: "char", text: char });
    // Ctrl with a letter; the other control codes (Ctrl-Space, Ctrl-], …): nothing in fleetcom uses them.
    else if (letter) keys.push({ name: `ctrl-${letter}` });
  }
  return keys;
}

/** The key an escape sequence stands for (null when it is one we ignore) and how many characters it spans. */
function escapeSequence(input: string, at: number): [Key | null, number] {
  const next = input[at + 1];
  if (next === undefined || next === "\x1b") return [{ name: "escape" }, 1];
  if (next !== "[" && next !== "O") return [null, 2]; // Alt+key: nothing in fleetcom uses it
  let end = at + 2;
  while (end < input.length && !/[\x40-\x7e]/.test(input[end]!)) end++;
  const final = input[end];
  if (final === undefined) return [null, input.length - at];
  const body = input.slice(at + 2, end);
  const tilde = TILDE[body];
  if (final === "~") return [tilde ? { name: tilde } : null, end + 1 - at];
  if (final === "Z") return [{ name: "shift-tab" }, end + 1 - at];
  const name = CSI_FINAL[final];
  return [name ? { name } : null, end + 1 - at];
}

/** A key, and every key of the read it came in (what arrived at once: a paste, keys typed faster than a person does). */
type KeyHandler = (key: Key, read: readonly Key[]) => void;

/**
 * Raw stdin, decoded, delivered to the innermost handler (the dashboard, then a picker opened over
 * it). `suspend` lets something else own stdin for a while (a clack prompt); `hold` too, keeping the
 * terminal raw (attached mode).
 */
export class KeyInput {
  private readonly handlers: KeyHandler[] = [];
  private listening = false;
  private readonly onData = (chunk: Buffer | string) => {
    const handler = this.handlers[this.handlers.length - 1];
    if (!handler) return;
    const keys = decodeKeys(chunk.toString());
    for (const key of keys) handler(key, keys);
  };

  constructor(private readonly stdin: NodeJS.ReadStream = process.stdin) {}

  push(handler: KeyHandler): void {
    this.handlers.push(handler);
    this.resume();
  }

  pop(handler: KeyHandler): void {
    const at = this.handlers.lastIndexOf(handler);
    if (at !== -1) this.handlers.splice(at, 1);
    if (this.handlers.length === 0) this.suspend();
  }

  suspend(): void {
    if (!this.listening) return;
    this.listening = false;
    this.stdin.off("data", this.onData);
    this.stdin.setRawMode(false);
    this.stdin.pause();
  }

  /**
   * Stops reading keys but leaves the terminal raw, for attached mode, which reads stdin itself:
   * keys typed in between wait in the terminal instead of being echoed over the screen.
   */
  hold(): void {
    if (!this.listening) return;
    this.listening = false;
    this.stdin.off("data", this.onData);
    this.stdin.pause();
  }

  /** Raw before any handler: keys typed meanwhile wait in the terminal, and Ctrl-C is a key, not a signal. */
  rawAhead(): void {
    if (!this.listening) this.stdin.setRawMode(true);
  }

  /** Cooked again when no handler came after rawAhead (what would have read keys could not start). */
  cookedAgain(): void {
    if (!this.listening) this.stdin.setRawMode(false);
  }

  resume(): void {
    if (this.listening || this.handlers.length === 0) return;
    this.listening = true;
    this.stdin.setRawMode(true);
    this.stdin.on("data", this.onData);
    this.stdin.resume();
  }
}
