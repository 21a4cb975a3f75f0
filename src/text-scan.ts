// A tiny tracker of where a terminal output stream stands between escape sequences, cheap enough
// for every chunk a task prints. It answers two questions: did this chunk ring the bell (a BEL that
// is not the terminator of an OSC/DCS/APC/PM/SOS string, so `ESC ] 0;title BEL` is no bell), and
// does the stream now stand at a boundary where other bytes may be written in between (not inside
// an escape sequence, not inside a UTF-8 character). Sequences split across chunks are followed.
//
// Cost: two native `indexOf` scans per chunk, plus a walk from the chunk's last ESC. Only chunks
// that contain a BEL are walked byte by byte, and those are rare.

const BEL = 0x07;
const ESC = 0x1b;

enum Mode {
  ground,
  /** Right after ESC. */
  escape,
  /** Inside `ESC [ …` up to its final byte. */
  csi,
  /** Inside a string (OSC, DCS, APC, PM, SOS) up to BEL or ST (`ESC \`). */
  string,
}

// `]` OSC, `P` DCS, `_` APC, `^` PM, `X` SOS
const STRING_INTRODUCERS = new Set([0x5d, 0x50, 0x5f, 0x5e, 0x58]);
const CSI_INTRODUCER = 0x5b;

function isCsiFinal(byte: number): boolean {
  return byte >= 0x40 && byte <= 0x7e;
}

export class TerminalScan {
  private mode = Mode.ground;
  /** Continuation bytes still owed by a UTF-8 character cut at the end of the last chunk. */
  private owed = 0;

  /** Follows one chunk; true when it rang the bell. */
  push(chunk: Uint8Array): boolean {
    if (chunk.length === 0) return false;
    const bell = chunk.indexOf(BEL) !== -1 ? this.walk(chunk, 0) : this.skim(chunk);
    this.owed = owedContinuations(chunk, this.owed);
    return bell;
  }

  /** Between sequences and characters: other bytes written now cannot corrupt anything. */
  get atBoundary(): boolean {
    return this.mode === Mode.ground && this.owed === 0;
  }

  /** A chunk without BEL: only the mode at its end matters, and ESC always starts afresh. */
  private skim(chunk: Uint8Array): boolean {
    const last = chunk.lastIndexOf(ESC);
    if (last !== -1) {
      this.mode = Mode.ground;
      return this.walk(chunk, last);
    }
    if (this.mode !== Mode.ground) this.walk(chunk, 0);
    return false;
  }

  private walk(chunk: Uint8Array, from: number): boolean {
    let bell = false;
    let mode = this.mode;
    for (let i = from; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === ESC) {
        mode = Mode.escape;
        continue;
      }
      switch (mode) {
        case Mode.ground:
          if (byte === BEL) bell = true;
          break;
        case Mode.escape:
          if (byte === BEL) bell = true;
          mode = STRING_INTRODUCERS.has(byte) ? Mode.string : byte === CSI_INTRODUCER ? Mode.csi : Mode.ground;
          break;
        case Mode.csi:
          if (byte === BEL) bell = true;
          else if (isCsiFinal(byte)) mode = Mode.ground;
          break;
        case Mode.string:
          if (byte === BEL) mode = Mode.ground; // the string's terminator, not a bell
          break;
      }
    }
    this.mode = mode;
    return bell;
  }
}

/** How many continuation bytes the chunk's last UTF-8 character still needs. */
function owedContinuations(chunk: Uint8Array, owedBefore: number): number {
  // A chunk shorter than what was owed is all continuation bytes.
  if (chunk.length < owedBefore) return owedBefore - chunk.length;
  for (let back = 1; back <= Math.min(3, chunk.length); back++) {
    const byte = chunk[chunk.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return Math.max(0, length - back);
  }
  return 0;
}
