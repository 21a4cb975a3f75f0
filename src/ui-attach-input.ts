// Keys typed while attached, split into what goes to the task and what is fleetcom's: the detach key
// and the key that follows it, as tmux's prefix key works.
//
// The detach key arms the prefix and fleetcom waits for the next key, with no time limit (tmux has
// no such window either): a key typed a second later is still the chord's, never the dashboard's or
// the shell's. The key after it is
// - the detach key again: one detach key goes through to the task (how a task gets a literal Ctrl-\);
// - an escape sequence (Esc, an arrow, a function key): null, which stays attached;
// - any other key, by name: ui-attach.ts looks it up in the chord table (ui-attach-chords.ts), where
//   a key with no entry detaches.
// The reader says when the prefix is left waiting, so the terminal can show it (the armed marker).

export type AttachInput =
  /** Bytes for the task, as typed. */
  | { kind: "send"; bytes: Uint8Array }
  /** The detach key, with no key after it yet: the next key decides. */
  | { kind: "armed" }
  /** The key after the detach key: `n`, `ctrl-n`, `N`…; null for an escape sequence. */
  | { kind: "chord"; key: string | null }
  /** The detach key twice: one goes to the task. */
  | { kind: "twice" };

export class PrefixReader {
  /** Set while the detach key waits for what follows it. */
  private armed = false;

  constructor(
    private readonly prefix: number,
    private readonly emit: (input: AttachInput) => void,
  ) {}

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.armed) {
        this.armed = false;
        if (chunk[at] === this.prefix) {
          this.emit({ kind: "twice" });
          at += 1;
          continue;
        }
        const [key, length] = keyAt(chunk, at);
        at += length;
        this.emit({ kind: "chord", key });
        continue;
      }
      const next = chunk.indexOf(this.prefix, at);
      const end = next === -1 ? chunk.length : next;
      if (end > at) this.emit({ kind: "send", bytes: chunk.subarray(at, end) });
      if (next === -1) return;
      at = next + 1;
      this.armed = true;
      // Said only when the key has not come with it: a chord in one read (a script, a fast
      // typist) would show the marker only to take it away at once.
      if (at === chunk.length) this.emit({ kind: "armed" });
    }
  }

  /** Drops a detach key still waiting (the session ended another way). */
  dispose(): void {
    this.armed = false;
  }
}

/**
 * The key starting at `at` and how many bytes it takes: a character as itself, a control byte as
 * `ctrl-x`, an escape sequence (Esc, an arrow, a function key) as null, taken whole.
 */
function keyAt(chunk: Uint8Array, at: number): [string | null, number] {
  const byte = chunk[at]!;
  if (byte === 0x1b) {
    let end = at + 1;
    if (chunk[end] === 0x5b || chunk[end] === 0x4f) {
      end += 1;
      while (end < chunk.length && !(chunk[end]! >= 0x40 && chunk[end]! <= 0x7e)) end++;
    }
    return [null, Math.min(chunk.length, end + 1) - at];
  }
  if (byte < 0x20) return [`ctrl-${String.fromCharCode(byte + 0x60)}`, 1];
  if (byte < 0x80) return [String.fromCharCode(byte), 1];
  const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return [new TextDecoder().decode(chunk.subarray(at, at + length)), Math.min(length, chunk.length - at)];
}
