// The PTY seam: the only place that knows how a runtime gives us a pseudo-terminal. Under Bun it is
// Bun's built-in terminal (event-driven, real signals, no native library; see shared/research).
// Under Deno, which has no PTY of its own, it is bun-pty's native library through Deno.dlopen, with
// none of bun-pty's JS: its reads are non-blocking, so we poll, and we always close the handle
// (bun-pty leaks fds and threads when it does not).
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { closeSync, constants, existsSync, openSync, readdirSync, readFileSync, readlinkSync, statSync, writeSync } from "node:fs";
import { setImmediate } from "node:timers";
import { duplicateFd } from "./platform.ts";
import { controllingTty } from "./proc.ts";
import { shellQuote } from "./text-shell.ts";
import { hasRawBytes, pathBytes } from "./text-path.ts";

declare const Deno: any;

export interface PtyExit {
  exitCode: number | null;
  signal: string | null;
}

export interface PtySpawnOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  onData(chunk: Uint8Array): void;
  /** Everything written so far has reached the PTY (Bun only). */
  onInputDrained?(): void;
}

export interface Pty {
  readonly pid: number;
  readonly exited: Promise<PtyExit>;
  /**
   * Input written that the PTY has not taken yet: it waits in the runtime's memory while the task
   * does not read. Bun reports when its queue empties; under Deno the library's writer thread
   * reports nothing, so this stays 0 there.
   */
  readonly pendingInput: number;
  write(data: Uint8Array | string): void;
  resize(cols: number, rows: number): void;
}

export function spawnPty(options: PtySpawnOptions): Pty {
  return inDirectory(options.cwd, (cwd) => (typeof Deno !== "undefined" ? spawnDenoPty : spawnBunPty)({ ...options, cwd }));
}

/**
 * Runs `spawn` with a cwd the runtime can pass on. Runtimes take the cwd as text, so a directory
 * whose name is not UTF-8 (text-path.ts) is opened by its bytes and named through the daemon's own
 * descriptor for it, /proc/<pid>/fd/<fd>: the child's chdir follows that link to the directory
 * itself, and its getcwd() gives the real bytes. The descriptor is closed once the child has started.
 */
function inDirectory(cwd: string, spawn: (cwd: string) => Pty): Pty {
  if (!hasRawBytes(cwd)) return spawn(cwd);
  if (!existsSync(`/proc/${process.pid}/fd`)) throw new Error("this system cannot start a task in a directory whose name is not UTF-8");
  const fd = openSync(pathBytes(cwd), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    return spawn(`/proc/${process.pid}/fd/${fd}`);
  } finally {
    closeSync(fd);
  }
}

function spawnBunPty({ argv, cwd, env, cols, rows, onData, onInputDrained }: PtySpawnOptions): Pty {
  // Bun's terminal accepts every write and queues what the PTY cannot take; `drain` fires once its
  // queue is empty (after every write that got through, too), so bytes since the last drain are
  // what may still be waiting.
  let pendingInput = 0;
  // Bun.Terminal.write() writes on the next turn of the event loop (epoll_ctl, epoll_wait, poll,
  // then write), a turn on every keystroke. Input goes straight to our own dup of the PTY's master
  // instead, found once the task is first given input (findMaster); Bun's queue takes over whatever
  // the PTY cannot take at once, and keeps the order until it has drained.
  let master: number | null | undefined;
  // An inline terminal per spawn: a shared Bun.Terminal never reports the child's exit (bun#40289).
  const proc = Bun.spawn(argv, {
    cwd,
    env,
    terminal: {
      cols,
      rows,
      data: (_terminal, chunk) => onData(chunk),
      drain: () => {
        pendingInput = 0;
        onInputDrained?.();
      },
    },
  });
  const terminal = proc.terminal!;
  const exited = proc.exited.then((code) => {
    const signal = proc.signalCode === null ? null : String(proc.signalCode);
    terminal.close();
    if (typeof master === "number") closeSync(master);
    master = null;
    return { exitCode: signal ? null : code, signal };
  });
  /** Bytes written straight to the PTY; the rest is Bun's to queue. */
  const writeDirect = (bytes: Uint8Array): number => {
    try {
      return writeSync(master as number, bytes);
    } catch {
      return 0; // EAGAIN: the task is not reading; Bun's queue waits for it
    }
  };
  return {
    pid: proc.pid,
    exited,
    get pendingInput() {
      return terminal.closed ? 0 : pendingInput;
    },
    write: (data) => {
      if (terminal.closed) return;
      if (master === undefined) {
        master = null;
        void findMaster(proc.pid).then((fd) => {
          if (fd === null) return;
          if (terminal.closed) closeSync(fd);
          else master = fd;
        });
      }
      let bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      if (typeof master === "number" && pendingInput === 0) {
        const written = writeDirect(bytes);
        if (written === bytes.length) return;
        bytes = bytes.subarray(written);
      }
      pendingInput += bytes.byteLength;
      terminal.write(bytes);
    },
    resize: (c, r) => {
      if (!terminal.closed) terminal.resize(c, r);
    },
  };
}

/**
 * A dup of the master of the PTY whose session `pid` leads, or null. Bun gives no fd, so it is
 * found: the child's controlling terminal (/proc/PID/stat) is /dev/pts/N, and the master is the fd
 * of ours that opens /dev/ptmx with tty-index N. The dup is ours alone, so Bun closing its own fds
 * can never leave us writing into an fd number that has been reused. Linux only; elsewhere, null.
 */
async function findMaster(pid: number): Promise<number | null> {
  try {
    const ttyNr = controllingTty(pid);
    if (ttyNr === null) return null;
    let name = mastersSeen.get(ttyNr);
    if (name === undefined || !opensPty(name, ttyNr)) name = scanMasters().get(ttyNr);
    if (name === undefined) return null;
    const fd = await duplicateFd(Number(name));
    if (fd < 0) return null;
    // Still the same PTY's master (ours now, whatever happens to the original).
    if (opensPty(String(fd), ttyNr)) return fd;
    closeSync(fd);
  } catch {}
  return null;
}

/**
 * Our /dev/ptmx descriptors by their slave's device, as the last scan of /proc/self/fd found them.
 * A fleet holds thousands of descriptors, and each task's first input would read them all again:
 * a task started before the last scan is found here (and checked, since a descriptor number can be
 * reused), and only one started since makes a new scan.
 */
let mastersSeen = new Map<number, string>();

function scanMasters(): Map<number, string> {
  const found = new Map<number, string>();
  for (const name of readdirSync("/proc/self/fd")) {
    const device = ptyDeviceOf(name);
    if (device !== null && !found.has(device)) found.set(device, name);
  }
  mastersSeen = found;
  return found;
}

/** Whether our fd `name` is a /dev/ptmx whose slave is the device `ttyNr`. */
function opensPty(name: string, ttyNr: number): boolean {
  return ptyDeviceOf(name) === ttyNr;
}

/** The device of the slave of our fd `name`, if it is a /dev/ptmx; null otherwise. */
function ptyDeviceOf(name: string): number | null {
  try {
    if (readlinkSync(`/proc/self/fd/${name}`) !== "/dev/ptmx") return null;
    const index = /tty-index:\s*(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${name}`, "utf8"))?.[1];
    return index === undefined ? null : statSync(`/dev/pts/${index}`).rdev;
  } catch {
    return null;
  }
}

// --- Deno: bun-pty's librust_pty over FFI ---------------------------------------------------------

const READ_BYTES = 64 * 1024;
const YIELD_AFTER_BYTES = 256 * 1024;
// bun_pty_read answers at once; an idle PTY is polled ever more slowly, and output or input makes it
// fast again so an echo after a quiet spell is not late.
const POLL_MIN_MS = 4;
const POLL_MAX_MS = 50;
const CHILD_EXITED = -2;

const SYMBOLS = {
  bun_pty_spawn: { parameters: ["buffer", "buffer", "buffer", "i32", "i32"], result: "i32" },
  bun_pty_write: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  bun_pty_read: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  bun_pty_resize: { parameters: ["i32", "i32", "i32"], result: "i32" },
  bun_pty_get_pid: { parameters: ["i32"], result: "i32" },
  bun_pty_get_exit_code: { parameters: ["i32"], result: "i32" },
  bun_pty_close: { parameters: ["i32"], result: "void" },
} as const;

type RustPty = {
  bun_pty_spawn(cmd: Uint8Array, cwd: Uint8Array, env: Uint8Array, cols: number, rows: number): number;
  bun_pty_write(handle: number, data: Uint8Array, length: number): number;
  bun_pty_read(handle: number, into: Uint8Array, length: number): number;
  bun_pty_resize(handle: number, cols: number, rows: number): number;
  bun_pty_get_pid(handle: number): number;
  bun_pty_get_exit_code(handle: number): number;
  bun_pty_close(handle: number): void;
};

let rustPty: RustPty | undefined;

function loadRustPty(): RustPty {
  rustPty ??= Deno.dlopen(rustPtyPath(), SYMBOLS).symbols as RustPty;
  return rustPty;
}

function rustPtyPath(): string {
  const override = process.env.BUN_PTY_LIB;
  if (override) return override;
  const dir = join(dirname(createRequire(import.meta.url).resolve("bun-pty/package.json")), "rust-pty/target/release");
  const candidates = rustPtyFileNames(process.platform, process.arch, isMusl()).map((name) => join(dir, name));
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`no PTY library for ${process.platform}-${process.arch} (looked for ${candidates.join(", ")})`);
  return found;
}

function rustPtyFileNames(os: string, arch: string, musl: boolean): string[] {
  const suffix = arch === "arm64" ? "_arm64" : "";
  if (os === "darwin") return [`librust_pty${suffix}.dylib`];
  return musl ? [`librust_pty${suffix}_musl.so`] : [`librust_pty${suffix}.so`];
}

function isMusl(): boolean {
  try {
    return readFileSync("/proc/self/maps", "utf8").includes("ld-musl");
  } catch {
    return false;
  }
}

// The library splits its command line like a shell would (so every word is quoted), and wants C strings.
function cString(text: string): Uint8Array {
  return new TextEncoder().encode(`${text}\0`);
}

function spawnDenoPty({ argv, cwd, env, cols, rows, onData }: PtySpawnOptions): Pty {
  const lib = loadRustPty();
  // The library adds `env` to the daemon's own environment; `env -u` takes out what the client lacks.
  const unset = Object.keys(process.env)
    .filter((key) => !(key in env))
    .flatMap((key) => ["-u", key]);
  argv = ["/usr/bin/env", ...unset, "--", ...argv];
  const envBlock = Object.entries(env)
    .map(([key, value]) => `${key}=${value}\0`)
    .join("");
  const handle = lib.bun_pty_spawn(cString(argv.map(shellQuote).join(" ")), cString(cwd), cString(envBlock), cols, rows);
  if (handle < 0) throw new Error(`cannot start ${argv[0]}`);
  let open = true;
  let pollMs = POLL_MIN_MS;

  // Signal deaths come back as exit code 1: the library keeps only portable-pty's exit_code().
  async function pump(): Promise<PtyExit> {
    const buffer = new Uint8Array(READ_BYTES);
    let unyielded = 0;
    for (;;) {
      const n = lib.bun_pty_read(handle, buffer, buffer.length);
      if (n > 0) {
        onData(buffer.slice(0, n));
        pollMs = POLL_MIN_MS;
        unyielded += n;
        // A firehose must not starve the sockets; yielding after every read would halve its speed.
        if (unyielded >= YIELD_AFTER_BYTES) {
          unyielded = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      } else if (n === 0) {
        unyielded = 0;
        await pause(pollMs);
        pollMs = Math.min(POLL_MAX_MS, pollMs * 2);
      } else {
        const exitCode = n === CHILD_EXITED ? lib.bun_pty_get_exit_code(handle) : null;
        open = false;
        lib.bun_pty_close(handle);
        return { exitCode, signal: null };
      }
    }
  }

  return {
    pid: lib.bun_pty_get_pid(handle),
    exited: Promise.resolve().then(pump),
    pendingInput: 0,
    write: (data) => {
      if (!open) return;
      const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
      lib.bun_pty_write(handle, bytes, bytes.length);
      pollMs = POLL_MIN_MS;
    },
    resize: (c, r) => {
      if (open) lib.bun_pty_resize(handle, c, r);
    },
  };
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
