// Keys typed while attached, split into what goes to the task and what is fleetcom's: the detach key
// and the chord that may follow it, as tmux's prefix key works.
//
// How a chord is told from a detach: the detach key alone detaches once CHORD_WINDOW_MS pass with no
// other key (or at once when `d` follows). A key within that window — in the same read, as when a
// script or a fast typist sends both, or in a later one — makes a chord instead:
// - the detach key again sends one detach key through to the task (how a task gets a literal Ctrl-\);
// - any other key is looked up in the chord table (ui-attach.ts); a key that is not in it is dropped
//   and the session stays attached, as tmux ignores a key bound to nothing after its prefix: a stray
//   key reaches neither the task nor the dashboard.
// A window rather than a second prefix key keeps the habit everyone has (one Ctrl-\ leaves) and
// makes the double press possible at all; 300 ms is long enough for Ctrl-\ n typed in one motion
// (Ctrl may stay held: Ctrl-N counts as n) and short enough that a detach still feels immediate.

export const CHORD_WINDOW_MS = 300;

export type AttachInput =
  /** Bytes for the task, as typed. */
  | { kind: "send"; bytes: Uint8Array }
  /** The key after the detach key: `n`, `ctrl-n` (looked up as `n` when unbound), `N`… */
  | { kind: "chord"; key: string }
  | { kind: "detach" };

interface Timers {
  set(run: () => void, ms: number): unknown;
  clear(timer: unknown): void;
}

const REAL_TIMERS: Timers = { set: (run, ms) => setTimeout(run, ms), clear: (t) => clearTimeout(t as ReturnType<typeof setTimeout>) };

export class PrefixReader {
  /** Set while the detach key waits for what follows it. */
  private pending: unknown = null;

  constructor(
    private readonly prefix: number,
    private readonly emit: (input: AttachInput) => void,
    private readonly windowMs = CHORD_WINDOW_MS,
    private readonly timers: Timers = REAL_TIMERS,
  ) {}

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.pending !== null) {
        this.settle();
        if (chunk[at] === this.prefix) {
          this.emit({ kind: "send", bytes: Uint8Array.of(this.prefix) });
          at += 1;
          continue;
        }
        const [key, length] = keyAt(chunk, at);
        at += length;
        if (key !== null) this.emit({ kind: "chord", key });
        continue;
      }
      const next = chunk.indexOf(this.prefix, at);
      const end = next === -1 ? chunk.length : next;
      if (end > at) this.emit({ kind: "send", bytes: chunk.subarray(at, end) });
      if (next === -1) return;
      at = next + 1;
      this.pending = this.timers.set(() => {
        this.pending = null;
        this.emit({ kind: "detach" });
      }, this.windowMs);
    }
  }

  /** Drops a detach key still waiting (the session ended another way). */
  dispose(): void {
    this.settle();
  }

  private settle(): void {
    if (this.pending === null) return;
    this.timers.clear(this.pending);
    this.pending = null;
  }
}

/**
 * The key starting at `at` and how many bytes it takes: a character as itself, a control byte as
 * `ctrl-x`, an escape sequence (an arrow, a function key) as null, skipped whole.
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
