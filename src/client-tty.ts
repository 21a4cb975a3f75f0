// This process's terminal for attached mode, without node:tty where it can: loading node:tty and
// building process.stdin and process.stdout is most of what an attach client spends before its first
// draw (docs/benchmarks.md). Under Bun on Linux, raw mode goes through libc's tcgetattr/tcsetattr
// with the flags libuv sets, the size through ioctl(TIOCGWINSZ) (platform.ts windowSize), a resize
// through SIGWINCH, output through blocking writes to fd 1 (what Bun's own tty stream does), and the
// keys through Bun's own reader of fd 0 (KeyReader): nothing builds process.stdin or loads node:tty.
//
// INVARIANT: a terminal made raw here is put back to the very termios it had, on leaving raw mode,
// on exit, and on SIGTERM, SIGHUP or SIGINT (restored, then the signal raised again).
// Elsewhere (Deno, macOS, no libc) the node streams are used as they always were.
import { writeSync } from "node:fs";
import { type TermiosCalls, termiosCalls, windowSize } from "./platform.ts";

/** The part of process.stdin attached mode uses. */
export interface TerminalInput {
  setRawMode(raw: boolean): unknown;
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  off(event: "data", listener: (chunk: Buffer) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** The part of process.stdout attached mode uses; write says whether the output has drained. */
export interface TerminalOutput {
  write(data: string | Uint8Array): boolean;
  on(event: "resize", listener: () => void): unknown;
  off(event: "resize", listener: () => void): unknown;
  once(event: "drain", listener: () => void): unknown;
}

type Size = { cols: number; rows: number };

export interface Terminal {
  readonly input: TerminalInput;
  readonly output: TerminalOutput;
  /** The terminal's size; 120x40 where it cannot be read. */
  size(): Size;
}

const FALLBACK_SIZE = { cols: 120, rows: 40 };

const sameSize = (a: Size, b: Size) => a.cols === b.cols && a.rows === b.rows;

/**
 * The size a terminal last handed out, against which a resize that came before anyone listened is
 * found: attach listens for resizes only once its first screen is drawn (ui-attach.ts run), and a
 * resize meanwhile met no listener.
 */
export class SeenSize {
  private seen: Size | null = null;

  constructor(private readonly read: () => Size) {}

  size(): Size {
    this.seen = this.read();
    return this.seen;
  }

  /** A listener that comes after a resize nobody heard (the size is not the one last handed out) is told at once. */
  catchUp(listener: () => void): void {
    const seen = this.seen;
    if (seen && !sameSize(this.read(), seen)) queueMicrotask(listener);
  }
}

/** process.stdin and process.stdout, each built when first used. */
export function nodeTerminal(): Terminal {
  const seen = new SeenSize(() => {
    const out = process.stdout;
    return out.isTTY && out.columns && out.rows ? { cols: out.columns, rows: out.rows } : FALLBACK_SIZE;
  });
  return {
    get input() {
      return process.stdin;
    },
    output: {
      write: (data) => process.stdout.write(data),
      on: (_event, listener) => {
        process.stdout.on("resize", listener);
        seen.catchUp(listener);
      },
      off: (_event, listener) => process.stdout.off("resize", listener),
      once: (_event, listener) => process.stdout.once("drain", listener),
    },
    size: () => seen.size(),
  };
}

// Linux (asm-generic and x86): struct termios and the ioctl number; other systems lay them out otherwise.
const TERMIOS_BYTES = 60;
const IFLAG = 0;
const OFLAG = 4;
const CFLAG = 8;
const LFLAG = 12;
const CC = 17;
const VTIME = 5;
const VMIN = 6;
const BRKINT = 0o2;
const INPCK = 0o20;
const ISTRIP = 0o40;
const ICRNL = 0o400;
const IXON = 0o2000;
const ONLCR = 0o4;
const CS8 = 0o60;
const ISIG = 0o1;
const ICANON = 0o2;
const ECHO = 0o10;
const IEXTEN = 0o100000;
const TCSADRAIN = 1;
const RESTORING_SIGNALS = ["SIGTERM", "SIGHUP", "SIGINT"] as const;

/** The terminal through libc, or null where that cannot be had (then nodeTerminal). */
export async function libcTerminal(): Promise<Terminal | null> {
  if (typeof Bun === "undefined" || process.platform !== "linux") return null;
  let calls: TermiosCalls | null;
  try {
    calls = await termiosCalls();
  } catch {
    return null;
  }
  if (calls === null) return null;
  const original = new Uint8Array(TERMIOS_BYTES);
  if (calls.tcgetattr(0, original) !== 0) return null;
  return new LibcTerminal(calls, original);
}

/** libuv's raw mode (uv_tty_set_mode UV_TTY_MODE_RAW), which Bun's setRawMode applies, made from `original`. */
export function rawTermios(original: Uint8Array): Uint8Array {
  const raw = original.slice();
  const view = new DataView(raw.buffer);
  const little = true;
  const update = (offset: number, change: (flags: number) => number) => view.setUint32(offset, change(view.getUint32(offset, little)) >>> 0, little);
  update(IFLAG, (f) => f & ~(BRKINT | ICRNL | INPCK | ISTRIP | IXON));
  update(OFLAG, (f) => f | ONLCR);
  update(CFLAG, (f) => f | CS8);
  update(LFLAG, (f) => f & ~(ECHO | ICANON | IEXTEN | ISIG));
  raw[CC + VMIN] = 1;
  raw[CC + VTIME] = 0;
  return raw;
}

class LibcTerminal implements Terminal {
  private raw = false;
  private readonly restoreOnExit = () => this.restore();
  private readonly restoreOnSignal = (signal: NodeJS.Signals) => {
    this.restore();
    for (const name of RESTORING_SIGNALS) process.off(name, this.restoreOnSignal);
    process.kill(process.pid, signal);
  };

  constructor(
    private readonly calls: TermiosCalls,
    private readonly original: Uint8Array,
  ) {}

  private readonly keys = new KeyReader();

  readonly input: TerminalInput = {
    setRawMode: (raw) => (raw ? this.enterRaw() : this.restore()),
    on: (_event, listener) => this.keys.listen(listener),
    off: (_event, listener) => this.keys.unlisten(listener),
    resume: () => this.keys.resume(),
    pause: () => this.keys.pause(),
  };

  readonly output: TerminalOutput = {
    write: (data) => {
      const bytes = typeof data === "string" ? Buffer.from(data) : data;
      // fd 1 blocks (a terminal's, as Bun leaves it): each write returns once the terminal took it.
      for (let done = 0; done < bytes.length; ) done += writeSync(1, bytes, done, bytes.length - done);
      return true;
    },
    on: (_event, listener) => {
      // Bun installs its SIGWINCH handler with the first listener: a resize before it was lost.
      process.on("SIGWINCH", listener);
      this.seen.catchUp(listener);
    },
    off: (_event, listener) => process.off("SIGWINCH", listener),
    once: (_event, listener) => queueMicrotask(listener),
  };

  private readonly seen = new SeenSize(() => this.readSize());

  size(): Size {
    return this.seen.size();
  }

  private readSize(): Size {
    return windowSize(1) ?? FALLBACK_SIZE;
  }

  private enterRaw(): void {
    if (this.calls.tcsetattr(0, TCSADRAIN, rawTermios(this.original)) !== 0) throw new Error("cannot put the terminal in raw mode");
    if (this.raw) return;
    this.raw = true;
    process.on("exit", this.restoreOnExit);
    for (const name of RESTORING_SIGNALS) process.on(name, this.restoreOnSignal);
  }

  private restore(): void {
    if (!this.raw) return;
    this.raw = false;
    this.calls.tcsetattr(0, TCSADRAIN, this.original);
    process.off("exit", this.restoreOnExit);
    for (const name of RESTORING_SIGNALS) process.off(name, this.restoreOnSignal);
  }
}

/**
 * The keys typed on fd 0, read by Bun's own file reader instead of process.stdin, whose node:tty
 * stream (node's streams, the tty module) is ~5 MB of an attach client's memory (docs/benchmarks.md).
 * Bun reads a terminal through a descriptor of its own, opened non-blocking, so fd 0, which the shell
 * shares, keeps its flags. Paused, nothing reads the terminal: the reader is cancelled, and the
 * pager (the `h` chord) or the dashboard has every key; resumed, a new reader begins.
 */
class KeyReader {
  private listener: ((chunk: Buffer) => void) | null = null;
  private reader: ReadableStreamDefaultReader<Uint8Array> | null = null;

  listen(listener: (chunk: Buffer) => void): void {
    this.listener = listener;
  }

  unlisten(listener: (chunk: Buffer) => void): void {
    if (this.listener === listener) this.listener = null;
  }

  resume(): void {
    if (this.reader) return;
    const reader = Bun.file(0).stream().getReader();
    this.reader = reader;
    void this.readEach(reader);
  }

  pause(): void {
    const reader = this.reader;
    this.reader = null;
    reader?.cancel().catch(() => {});
  }

  private async readEach(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch {
        return; // the terminal is gone: the daemon's connection ends the session
      }
      // A read that was under way when the reader was paused belongs to whoever has the terminal now.
      if (read.done || this.reader !== reader) return;
      this.listener?.(Buffer.from(read.value.buffer, read.value.byteOffset, read.value.byteLength));
    }
  }
}
