// Socket framing shared by the daemon and every client: 4-byte big-endian payload length, one kind
// byte, then the payload. Control frames carry JSON; data frames carry raw PTY bytes (never base64).
// No arktype here: clients on the hot path (ls, attach, send, peek) must start fast.
import { concatBytes } from "./bytes.ts";

// Raised when a request or reply changes shape, so an old daemon refuses a new client in one clear
// line rather than a failed validation. 2: a task is named as { id } or { typed }, never bare text.
export const PROTOCOL_VERSION = 2;

export const FrameKind = { control: 1, data: 2 } as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** What a client may send in one frame; the daemon drops a client that exceeds it. */
export const MAX_CLIENT_FRAME = 4 * 1024 * 1024;
/** What the daemon may send in one frame (a serialized screen with 100,000 lines of scrollback). */
export const MAX_DAEMON_FRAME = 256 * 1024 * 1024;
/**
 * What a client takes in one frame from another host's daemon: that host is not this machine and may
 * lie, so a frame announcing more is refused before any of it is held. Still a screen of 2,000 lines
 * of scrollback many times over, and every reply `ls`, `peek` or `logs` gets.
 */
export const MAX_REMOTE_FRAME = 32 * 1024 * 1024;

const HEADER = 5;

export interface Frame {
  kind: FrameKind;
  payload: Uint8Array;
}

export class FrameError extends Error {}

const encoder = new TextEncoder();

// The length is written and read byte by byte, big-endian, with no DataView: one over a new array's
// `.buffer` makes JavaScriptCore give those bytes an ArrayBuffer of their own, outside the
// collector's heap, for every frame a client is sent (docs/benchmarks.md).
export function encodeFrame(kind: FrameKind, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(HEADER + payload.length);
  const length = payload.length;
  frame[0] = length >>> 24;
  frame[1] = length >>> 16;
  frame[2] = length >>> 8;
  frame[3] = length;
  frame[4] = kind;
  frame.set(payload, HEADER);
  return frame;
}

export function encodeControl(message: unknown): Uint8Array {
  return encodeFrame(FrameKind.control, encoder.encode(JSON.stringify(message)));
}

export function encodeData(bytes: Uint8Array | string): Uint8Array {
  return encodeFrame(FrameKind.data, typeof bytes === "string" ? encoder.encode(bytes) : bytes);
}

/**
 * Streaming decoder. Chunks are kept in a list and joined only once a whole frame is there, so a
 * large frame arriving in small pieces costs linear time.
 */
export class FrameDecoder {
  private chunks: Uint8Array[] = [];
  private buffered = 0;

  constructor(private readonly maxPayload: number) {}

  push(chunk: Uint8Array): Frame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.next();
      if (!frame) return frames;
      frames.push(frame);
    }
  }

  /** True when a frame has started but not finished (a truncated frame at close). */
  get pending(): boolean {
    return this.buffered > 0;
  }

  private next(): Frame | undefined {
    if (this.buffered < HEADER) return undefined;
    const header = this.peek(HEADER);
    const length = header[0]! * 0x1000000 + (header[1]! << 16) + (header[2]! << 8) + header[3]!;
    const kind = header[4]!;
    if (length > this.maxPayload) throw new FrameError(`frame of ${length} bytes exceeds the ${this.maxPayload}-byte bound`);
    if (kind !== FrameKind.control && kind !== FrameKind.data) throw new FrameError(`unknown frame kind ${kind}`);
    if (this.buffered < HEADER + length) return undefined;
    const whole = this.take(HEADER + length);
    return { kind: kind as FrameKind, payload: whole.subarray(HEADER) };
  }

  private peek(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (first.length >= n) return first;
    this.chunks = [concatBytes(this.chunks)];
    return this.chunks[0]!;
  }

  private take(n: number): Uint8Array {
    let first = this.chunks[0]!;
    if (first.length < n) {
      first = concatBytes(this.chunks);
      this.chunks = [first];
    }
    const out = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
    return out;
  }
}

const decoder = new TextDecoder();

export function decodeJson(payload: Uint8Array): unknown {
  return JSON.parse(decoder.decode(payload));
}
