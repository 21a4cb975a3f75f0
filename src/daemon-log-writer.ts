// The write(2)s of the task logs (daemon-logs.ts), on a thread of their own: the daemon's thread
// encodes a batch into a slot of a small shared ring and goes back to reading the PTYs while the
// kernel copies the slot into the page cache on the other core.
//
// INVARIANTS: writes land in the order they were sent (one writer thread, one message queue). At
// most SLOTS writes wait: the daemon's thread blocks for a free slot as a synchronous write would,
// so a disk slower than the task still holds the task back and nothing piles up in memory.
// `drain` returns once every write sent is on disk (in the page cache): a read that drains first
// sees every line. The fd is opened and checked by the daemon's thread (daemon-logs.ts) and closed
// by the writer once written. A failed write is reported once per log and that log's later writes
// are skipped, never the other logs'. The thread is started with the first write and ended once
// nothing has been written for a while, so an idle daemon does not carry it.

/** Slots in the ring: writes that may wait for the writer thread. */
const SLOTS = 4;
export const SLOT_BYTES = 1024 * 1024;
/** With nothing written for this long the thread is ended (it costs an idle daemon its memory). */
const IDLE_MS = 10_000;

/** The writer thread's whole program: no imports of ours, so it runs from a string in the compiled binary. */
const WRITER_SOURCE = `
const { writeSync, closeSync } = require("node:fs");
const failed = new Set();
self.onmessage = ({ data: m }) => {
  try {
    if (!failed.has(m.key)) {
      const bytes = new Uint8Array(m.ring, m.offset, m.length);
      let done = 0;
      while (done < m.length) done += writeSync(m.fd, bytes, done, m.length - done);
    }
  } catch (error) {
    failed.add(m.key);
    postMessage({ key: m.key, code: error && error.code, message: String(error && error.message) });
  } finally {
    try { closeSync(m.fd); } catch {}
    Atomics.add(m.state, 0, 1);
    Atomics.notify(m.state, 0);
  }
};
`;

let writerUrl: string | null = null;

interface WriteMessage {
  key: string;
  fd: number;
  ring: SharedArrayBuffer;
  offset: number;
  length: number;
  state: Int32Array;
}

/** A write that failed on the writer thread, as the error the daemon's thread would have caught. */
export class LogWriteError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export class LogWriter {
  private worker: Worker | null = null;
  private ring: SharedArrayBuffer | null = null;
  /** [0]: writes done, counted by the writer thread. */
  private state = new Int32Array(new SharedArrayBuffer(4));
  private sent = 0;
  private idle: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly onFailure: (key: string, error: LogWriteError) => void) {}

  /** The next slot to encode a batch into, free once the writer is done with it (this waits for that). */
  slot(): Buffer {
    this.ring ??= new SharedArrayBuffer(SLOTS * SLOT_BYTES);
    this.waitUntilWaiting(SLOTS - 1);
    return Buffer.from(this.ring, (this.sent % SLOTS) * SLOT_BYTES, SLOT_BYTES);
  }

  /** Writes `bytes` (the start of the slot last given) to `fd`, after every write sent before; `fd` is closed then. */
  send(key: string, fd: number, bytes: Uint8Array): void {
    const message: WriteMessage = { key, fd, ring: this.ring!, offset: bytes.byteOffset, length: bytes.length, state: this.state };
    this.start().postMessage(message);
    this.sent += 1;
    this.restartIdleTimer();
  }

  /** Waits until every write sent is done. */
  drain(): void {
    this.waitUntilWaiting(0);
  }

  /** Whether `bytes` lies in the ring (else it is written by the caller, after a drain). */
  holds(bytes: Uint8Array): boolean {
    return this.ring !== null && bytes.buffer === this.ring;
  }

  stop(): void {
    this.drain();
    this.end();
  }

  private waitUntilWaiting(most: number): void {
    for (;;) {
      const done = Atomics.load(this.state, 0);
      if (this.sent - done <= most) return;
      Atomics.wait(this.state, 0, done);
    }
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // The URL is kept: the thread loads it after this returns, and each start of the thread uses it again.
    writerUrl ??= URL.createObjectURL(new Blob([WRITER_SOURCE], { type: "application/javascript" }));
    const worker = new Worker(writerUrl);
    worker.onmessage = ({ data }: MessageEvent<{ key: string; code?: string; message: string }>) =>
      this.onFailure(data.key, new LogWriteError(data.message, data.code ?? undefined));
    // Bun's Worker can be unref'd; the DOM type tsc knows cannot.
    (worker as unknown as { unref(): void }).unref();
    this.worker = worker;
    return worker;
  }

  private restartIdleTimer(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.end(), IDLE_MS);
    this.idle.unref?.();
  }

  /** Ends the thread and gives back the ring, every write done first (a failure it reported is already heard). */
  private end(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    if (!this.worker) return;
    this.drain();
    this.worker.terminate();
    this.worker = null;
    this.ring = null;
    this.sent = 0;
    this.state = new Int32Array(new SharedArrayBuffer(4));
  }
}
