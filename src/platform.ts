// Runtime seam for everything that is not a PTY: how to start this program again, an exclusive
// advisory lock (flock) that the kernel releases when its holder dies, which is what makes "exactly
// one daemon" race-free, and the uid of the process at the other end of a Unix socket, which is what
// lets the client and the daemon refuse to talk to anyone but their own user, and whether the reader
// of a pipe we write has gone. Bun and Deno each get their libc binding here.
import type { Socket } from "node:net";
import { createRequire } from "node:module";

import { readProcStat } from "./proc.ts";
import { errnoCode, errorMessage } from "./errors.ts";
import { type ChildEnd, compiledBinary, type DetachedChild, runsOnBun, spawnDetachedOnBun } from "./spawn-bun.ts";

declare const Deno: any;

const LOCK_EX = 2;
const LOCK_NB = 4;
// Linux on x86_64 and arm64 (asm-generic); other architectures number them differently.
const SOL_SOCKET = 1;
const SO_PEERCRED = 17;
// The same on Linux and macOS.
const POLLERR = 0x8;
const POLLHUP = 0x10;
// This machine's byte order, for the C structs read and written below (os.endianness() without
// loading node:os, which this module's importers on every command's path would pay for).
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Collects the young generation now (Bun; Deno collects on its own schedule). For a pass that reads
 * one piece after another of short-lived data: the garbage of each piece goes before the next adds
 * to it, instead of all of it waiting for the collector's own schedule and raising the peak.
 */
export function collectYoungGarbage(): void {
  if (typeof Bun !== "undefined") Bun.gc(false);
}

export { runsOnBun };

let childProcessModule: typeof import("node:child_process") | undefined;
let osModule: typeof import("node:os") | undefined;

/**
 * node:child_process, loaded on first use: importing it costs a starting process CPU (docs/benchmarks.md), and
 * most never start a program (`sessions`, `recover --list`, a daemon with no notifier and no agents).
 */
export function childProcess(): typeof import("node:child_process") {
  childProcessModule ??= createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
  return childProcessModule;
}

/**
 * node:os, loaded on first use: importing it costs a starting process CPU, and what it
 * answers (a home without HOME, the user's name, the host's name) is rarely asked at start.
 */
export function nodeOs(): typeof import("node:os") {
  osModule ??= createRequire(import.meta.url)("node:os") as typeof import("node:os");
  return osModule;
}

/**
 * Starts `argv` in a session of its own (setsid), stdin closed, stdout and stderr to `output`, and a
 * pipe (a socket pair under Bun) as its fd 3 through which it can say it is ready. The child is not
 * waited for: this process may exit first. Bun's own spawn where there is one: node:child_process
 * costs a client CPU to load and spawn through (docs/benchmarks.md), on the path of every autostart.
 */
export function spawnDetached(argv: string[], output: number, env: Record<string, string | undefined>): DetachedChild {
  if (runsOnBun()) return spawnDetachedOnBun(argv, output, env);
  const child = childProcess().spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ["ignore", output, output, "pipe"], env });
  const ended = new Promise<ChildEnd>((resolve) => {
    // Node gives one of the two: a signal, or the status.
    child.once("exit", (code, signal) => resolve(signal ? { signal } : { status: code ?? 0 }));
    child.once("error", (error: NodeJS.ErrnoException) => resolve({ notRun: error.code ?? error.message }));
  });
  const pipe = child.stdio[3] as import("node:stream").Readable & { unref?(): void };
  const spoke = new Promise<void>((resolve) => {
    for (const event of ["data", "close", "error"]) pipe.once(event, () => resolve());
  });
  const letGo = () => void pipe.destroy();
  void spoke.then(letGo);
  pipe.unref?.();
  child.unref();
  return { pid: child.pid, ended, spoke, letGo };
}

/** Runs argv with no stdio and does not wait for it: this process may exit first. A failure to start is ignored. */
export function runUnwaited(argv: string[]): void {
  if (runsOnBun()) {
    try {
      Bun.spawn(argv, { stdio: ["ignore", "ignore", "ignore"] }).unref();
    } catch {}
    return;
  }
  const child = childProcess().spawn(argv[0]!, argv.slice(1), { stdio: "ignore" });
  child.once("error", () => {});
  child.unref();
}

// A daemon's own children (the task watcher, git) start through Bun's spawn where there is one:
// node:child_process would load node's streams under it, ~2 MB more of a daemon's resident memory
// for as long as it lives (docs/benchmarks.md).

/** A child that reads what this process writes to its stdin (daemon-reaper.ts). */
export interface FedChild {
  /** Writes to its stdin; once it has ended, nothing. */
  write(text: string): void;
  /** How it ended, or that it could not start. */
  ended: Promise<ChildEnd>;
}

/** Starts `argv` in a session of its own (setsid), its output to /dev/null, not keeping this process alive. */
export function spawnFed(argv: string[], env: Record<string, string>): FedChild {
  if (runsOnBun()) {
    let child: Bun.Subprocess<"pipe", "ignore", "ignore">;
    try {
      child = Bun.spawn(argv, { detached: true, stdio: ["pipe", "ignore", "ignore"], env });
    } catch (error) {
      return { write: () => {}, ended: Promise.resolve({ notRun: errnoCode(error) ?? errorMessage(error) }) };
    }
    child.unref();
    child.stdin.unref();
    const ended = child.exited.then((status): ChildEnd => (child.signalCode ? { signal: String(child.signalCode) } : { status }));
    const write = (text: string) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        child.stdin.write(text);
        void Promise.resolve(child.stdin.flush()).catch(() => {});
      } catch {
        // it ended between the check and the write
      }
    };
    return { write, ended };
  }
  const child = childProcess().spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ["pipe", "ignore", "ignore"], env });
  const ended = new Promise<ChildEnd>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ? { signal } : { status: code ?? 0 }));
    child.once("error", (error: NodeJS.ErrnoException) => resolve({ notRun: error.code ?? error.message }));
  });
  child.stdin?.on("error", () => {});
  child.unref();
  return { write: (text) => void child.stdin?.write(text), ended };
}

/** A helper's answer: its status (null when it was killed, by a signal or at the bound), its stdout and stderr, trimmed. */
export type Answered = { code: number | null; stdout: string; stderr: string };

/**
 * Runs `path` (a helper such as loginctl) with stdin closed until it ends or `timeoutMs` passes, and
 * waits for it. Bun's own spawnSync under Bun: node:child_process loads node's streams, a share of
 * the `status` that asks and of every autostart on a machine with systemd.
 */
export function runBounded(path: string, args: string[], env: Record<string, string | undefined>, timeoutMs: number): Answered {
  if (runsOnBun()) {
    try {
      const r = Bun.spawnSync([path, ...args], { env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
      const killed = r.signalCode !== undefined || r.exitedDueToTimeout === true;
      return { code: killed ? null : r.exitCode, stdout: r.stdout.toString("utf8").trim(), stderr: r.stderr.toString("utf8").trim() };
    } catch {
      return { code: null, stdout: "", stderr: "" };
    }
  }
  const r = childProcess().spawnSync(path, args, { env: env as NodeJS.ProcessEnv, encoding: "utf8", timeout: timeoutMs, stdio: ["ignore", "pipe", "pipe"] });
  return { code: r.status, stdout: (r.stdout ?? "").trim(), stderr: (r.stderr ?? "").trim() };
}

/** What a program said and how it ended: its status (1 for a signal, 127 if it could not start), its output, its stderr trimmed. */
export type Gathered = { code: number; out: Buffer; err: string };

/** Runs `argv` with `input` on its stdin (none: /dev/null) and gathers its output; never throws. */
export async function runGathered(argv: string[], env: Record<string, string | undefined>, input?: string): Promise<Gathered> {
  if (runsOnBun()) {
    let child: Bun.Subprocess<"ignore" | Buffer, "pipe", "pipe">;
    try {
      child = Bun.spawn(argv, { env, stdio: [input === undefined ? "ignore" : Buffer.from(input), "pipe", "pipe"] });
    } catch (error) {
      return { code: 127, out: Buffer.alloc(0), err: errorMessage(error) };
    }
    const [out, err] = await Promise.all([new Response(child.stdout).arrayBuffer(), new Response(child.stderr).text(), child.exited]);
    return { code: child.exitCode ?? 1, out: Buffer.from(out), err: err.trim() };
  }
  return new Promise((resolve) => {
    const child = childProcess().spawn(argv[0]!, argv.slice(1), { env, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    if (input !== undefined) child.stdin?.end(input);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => resolve({ code: 127, out: Buffer.alloc(0), err: e.message }));
    child.on("close", (code) => resolve({ code: code ?? 1, out: Buffer.concat(out), err: Buffer.concat(err).toString("utf8").trim() }));
  });
}

/**
 * A program's output, its first `maxBytes` kept and the rest dropped: the chunk that reaches the
 * bound is cut there, as one read can bring a whole output (a pipe read after the writer finished).
 */
class KeptChunks {
  private readonly chunks: Uint8Array[] = [];
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  readonly take = (chunk: Uint8Array): void => {
    const room = this.maxBytes - this.bytes;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.bytes += kept.length;
  };

  /** What was kept: at most `maxBytes`. */
  joined(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** A program run in a process group of its own: the group to kill it by, and its output when it ends. */
export interface GroupRun {
  /** Its process group (its PID); undefined when it could not start. */
  group: number | undefined;
  /** Its stdout and stderr together, as they came, up to `maxBytes`; null when it could not start. */
  output: Promise<string | null>;
}

/** Runs `argv` in `cwd` with stdin closed, in a session and process group of its own (agent-probe.ts). */
export function runInGroup(argv: string[], cwd: string, env: Record<string, string>, maxBytes: number): GroupRun {
  const kept = new KeptChunks(maxBytes);
  const take = kept.take;
  const joined = () => kept.joined().toString("utf8");
  if (runsOnBun()) {
    let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
    try {
      child = Bun.spawn(argv, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    } catch {
      return { group: undefined, output: Promise.resolve(null) };
    }
    const drain = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream) take(chunk);
    };
    return { group: child.pid, output: Promise.all([drain(child.stdout), drain(child.stderr), child.exited]).then(joined) };
  }
  let child: import("node:child_process").ChildProcess;
  try {
    child = childProcess().spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  } catch {
    return { group: undefined, output: Promise.resolve(null) };
  }
  const output = new Promise<string | null>((resolve) => {
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    child.once("error", () => resolve(null));
    child.once("close", () => resolve(joined()));
  });
  return { group: child.pid, output };
}

/** How a program started in a group of its own ended, with what it wrote on stderr (as much as was kept). */
export type GroupEnd = { code: number; stderr: string } | { signal: string; stderr: string } | { notStarted: string };

/** A program started in a group of its own: the group to kill it by, and how it ended. */
export interface GroupChild {
  /** Its process group (its PID); undefined when it could not start. */
  group: number | undefined;
  ended: Promise<GroupEnd>;
}

/** How long stderr is still read once the program has exited: a child of its own may hold it open. */
const STDERR_AFTER_EXIT_MS = 100;

/**
 * Starts `argv` in a session and process group of its own, stdin and stdout closed, the first
 * `stderrBytes` of its stderr kept (none: closed too), not keeping the process alive (a readiness
 * command, the notifier). Bun's spawn under Bun: node:child_process would load node's streams into
 * the daemon for the rest of its life (~2 MB).
 */
export function startInGroup(argv: string[], options: { cwd?: string; env?: Record<string, string | undefined>; stderrBytes?: number }): GroupChild {
  const keep = options.stderrBytes ?? 0;
  if (!runsOnBun()) return startInGroupOnNode(argv, options, keep);
  let child: Bun.Subprocess<"ignore", "ignore", "pipe" | "ignore">;
  try {
    const where = { ...(options.cwd !== undefined && { cwd: options.cwd }), ...(options.env !== undefined && { env: options.env }) };
    child = Bun.spawn(argv, { ...where, stdio: ["ignore", "ignore", keep > 0 ? "pipe" : "ignore"], detached: true });
  } catch (error) {
    return { group: undefined, ended: Promise.resolve({ notStarted: errorMessage(error) }) };
  }
  child.unref();
  const kept = new KeptChunks(keep);
  const read = child.stderr instanceof ReadableStream ? drainKeeping(child.stderr, kept.take) : Promise.resolve();
  const ended = child.exited.then(async (code): Promise<GroupEnd> => {
    await Promise.race([read, new Promise((resolve) => setTimeout(resolve, STDERR_AFTER_EXIT_MS).unref?.())]);
    const stderr = kept.joined().toString("utf8");
    return child.signalCode === null ? { code, stderr } : { signal: String(child.signalCode), stderr };
  });
  return { group: child.pid, ended };
}

async function drainKeeping(stream: ReadableStream<Uint8Array>, take: (chunk: Uint8Array) => unknown): Promise<void> {
  try {
    for await (const chunk of stream) take(chunk);
  } catch {
    // the pipe broke: what was read is what there is
  }
}

function startInGroupOnNode(argv: string[], options: { cwd?: string; env?: Record<string, string | undefined> }, keep: number): GroupChild {
  const child = childProcess().spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv | undefined,
    stdio: ["ignore", "ignore", keep > 0 ? "pipe" : "ignore"],
    detached: true,
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    if (stderr.length < keep) stderr += chunk.toString("utf8");
  });
  const ended = new Promise<GroupEnd>((resolve) => {
    child.once("error", (error) => resolve({ notStarted: error.message }));
    child.once("exit", (code, signal) => resolve(signal ? { signal, stderr: stderr.slice(0, keep) } : { code: code ?? 1, stderr: stderr.slice(0, keep) }));
  });
  child.unref();
  return { group: child.pid, ended };
}

/**
 * Whether a TCP connect to 127.0.0.1:`port` succeeds within `boundMs`; never rejects, and leaves no
 * connection open. Bun's own socket under Bun: node:net would load node's streams into the daemon
 * with its first port probe (~2 MB); under Deno node:net, loaded on first use.
 */
export async function acceptsOnLoopback(port: number, boundMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, boundMs, false)));
  const attempt = runsOnBun() ? bunConnects(port) : nodeConnects(port, boundMs);
  const accepted = await Promise.race([attempt, bound]);
  clearTimeout(timer);
  return accepted;
}

/** A connect that ends its socket as soon as it is open, even after the caller's bound has passed. */
function bunConnects(port: number): Promise<boolean> {
  return Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
    (socket) => {
      socket.end();
      return true;
    },
    () => false,
  );
}

async function nodeConnects(port: number, boundMs: number): Promise<boolean> {
  const { connect } = await import("node:net");
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(boundMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** SIGKILL to a whole process group (a probe's, a readiness command's); one already gone is no error. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** argv that runs this same fleetcom (compiled binary, `bun src/main.ts`, or `deno run`). */
export function selfCommand(): string[] {
  // A path, not URL.pathname: a checkout under `my tools/` must not become `my%20tools/`. (Not
  // node:url's fileURLToPath either: importing node:url costs every client CPU at start.)
  if (typeof Deno !== "undefined") return [Deno.execPath(), "run", "-A", `${import.meta.dirname}/main.ts`];
  const binary = compiledBinary();
  return binary ? [binary] : [process.execPath, process.argv[1] ?? ""];
}

function libcPath(): string {
  return process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
}

/**
 * The libc calls fleetcom needs. The peer's credentials come from getsockopt(SO_PEERCRED) on Linux
 * and getpeereid elsewhere (macOS, the BSDs); glibc has no getpeereid, so each platform binds only its own.
 */
interface Libc {
  flock(fd: number, operation: number): number;
  dup2(fd: number, target: number): number;
  dup(fd: number): number;
  peerCred(fd: number, a: Uint8Array, b: Uint8Array): number;
  /** poll(2) of one struct pollfd; nfds_t is an unsigned long on Linux, an unsigned int on macOS. */
  poll(pollfd: Uint8Array, nfds: number, timeout: number): number;
  /** The terminal's calls (client-tty.ts), bound under Bun only: attach's terminal is libc's there alone. */
  termios?: TermiosCalls;
}

/** A terminal's settings and size through libc: tcgetattr(3), tcsetattr(3), ioctl(fd, request, buffer). */
export interface TermiosCalls {
  tcgetattr(fd: number, termios: Uint8Array): number;
  tcsetattr(fd: number, when: number, termios: Uint8Array): number;
  ioctl(fd: number, request: number, buffer: Uint8Array): number;
}
let libc: Libc | undefined;

async function loadLibc(): Promise<Libc> {
  if (libc) return libc;
  const linux = process.platform === "linux";
  if (typeof Deno !== "undefined") {
    const lib = Deno.dlopen(libcPath(), {
      flock: { parameters: ["i32", "i32"], result: "i32" },
      dup2: { parameters: ["i32", "i32"], result: "i32" },
      dup: { parameters: ["i32"], result: "i32" },
      poll: { parameters: ["buffer", linux ? "u64" : "u32", "i32"], result: "i32" },
      ...(linux
        ? { getsockopt: { parameters: ["i32", "i32", "i32", "buffer", "buffer"], result: "i32" } }
        : { getpeereid: { parameters: ["i32", "buffer", "buffer"], result: "i32" } }),
    });
    libc = {
      flock: (fd, op) => lib.symbols.flock(fd, op),
      dup2: (fd, target) => lib.symbols.dup2(fd, target),
      dup: (fd) => lib.symbols.dup(fd),
      poll: (pollfd, nfds, timeout) => lib.symbols.poll(pollfd, nfds, timeout),
      peerCred: linux ? (fd, a, b) => lib.symbols.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, a, b) : (fd, a, b) => lib.symbols.getpeereid(fd, a, b),
    };
  } else {
    const { dlopen, FFIType, ptr } = await import("bun:ffi");
    const { i32, u32, u64, ptr: pointer } = FFIType;
    const lib = dlopen(libcPath(), {
      flock: { args: [i32, i32], returns: i32 },
      dup2: { args: [i32, i32], returns: i32 },
      dup: { args: [i32], returns: i32 },
      poll: { args: [pointer, linux ? u64 : u32, i32], returns: i32 },
      ...(linux ? { getsockopt: { args: [i32, i32, i32, pointer, pointer], returns: i32 } } : { getpeereid: { args: [i32, pointer, pointer], returns: i32 } }),
      // One dlopen for the peer check and attach's terminal, which needs both before its first draw.
      tcgetattr: { args: [i32, pointer], returns: i32 },
      tcsetattr: { args: [i32, i32, pointer], returns: i32 },
      ioctl: { args: [i32, u64, pointer], returns: i32 },
    }) as { symbols: Record<string, (...args: unknown[]) => unknown> };
    const call = lib.symbols;
    libc = {
      flock: (fd, op) => call.flock!(fd, op) as number,
      dup2: (fd, target) => call.dup2!(fd, target) as number,
      dup: (fd) => call.dup!(fd) as number,
      poll: (pollfd, nfds, timeout) => call.poll!(ptr(pollfd), nfds, timeout) as number,
      peerCred: linux
        ? (fd, a, b) => call.getsockopt!(fd, SOL_SOCKET, SO_PEERCRED, ptr(a), ptr(b)) as number
        : (fd, a, b) => call.getpeereid!(fd, ptr(a), ptr(b)) as number,
      termios: {
        tcgetattr: (fd, termios) => call.tcgetattr!(fd, ptr(termios)) as number,
        tcsetattr: (fd, when, termios) => call.tcsetattr!(fd, when, ptr(termios)) as number,
        ioctl: (fd, request, buffer) => call.ioctl!(fd, request, ptr(buffer)) as number,
      },
    };
  }
  return libc;
}

// Linux's ioctl for a terminal's size; other systems number it otherwise, and are asked through node:tty.
const TIOCGWINSZ = 0x5413;

/**
 * The size of the terminal on `fd` through the libc already bound (the peer check binds it before a
 * client asks for a size), or null when that cannot tell: not Linux, libc not bound yet, not a
 * terminal. Asking process.stdout would build node:tty's stream and node's streams: ~1.6 ms of every
 * command typed in a terminal (docs/benchmarks.md).
 */
export function windowSize(fd: number): { cols: number; rows: number } | null {
  const calls = libc?.termios;
  if (!calls || process.platform !== "linux") return null;
  const winsize = new Uint8Array(8); // struct winsize { unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel }
  if (calls.ioctl(fd, TIOCGWINSZ, winsize) !== 0) return null;
  const view = new DataView(winsize.buffer);
  const rows = view.getUint16(0, true);
  const cols = view.getUint16(2, true);
  return rows && cols ? { cols, rows } : null;
}

/** libc's terminal calls, bound with the rest of libc; null where they are not bound (Deno). */
export async function termiosCalls(): Promise<TermiosCalls | null> {
  return (await loadLibc()).termios ?? null;
}

/** Try to take an exclusive lock on an open fd without waiting; true when we hold it. */
export async function tryLockExclusive(fd: number): Promise<boolean> {
  return (await loadLibc()).flock(fd, LOCK_EX | LOCK_NB) === 0;
}

/** Points stdout and stderr at `fd` (the daemon's log, opened again after its directory was removed). */
export async function redirectStdio(fd: number): Promise<boolean> {
  const { dup2 } = await loadLibc();
  return dup2(fd, 1) === 1 && dup2(fd, 2) === 2;
}

/** A new fd for the same open file as `fd` (dup(2)); -1 when that fails. */
export async function duplicateFd(fd: number): Promise<number> {
  return (await loadLibc()).dup(fd);
}

/**
 * Whether the reader of the pipe (or socket, or terminal) at `fd` has gone, without writing to it:
 * poll(2) reports POLLERR (Linux) or POLLHUP (macOS, the BSDs) on a pipe's write end once no reader
 * is left. A file is never gone.
 */
export async function readerGone(fd: number): Promise<boolean> {
  const { poll } = await loadLibc();
  const pollfd = new Uint8Array(8); // struct pollfd { int fd; short events; short revents }, events 0: errors only
  const view = new DataView(pollfd.buffer);
  const little = LITTLE_ENDIAN;
  view.setInt32(0, fd, little);
  return poll(pollfd, 1, 0) > 0 && (view.getInt16(6, little) & (POLLERR | POLLHUP)) !== 0;
}

/**
 * What a peer check found: the uid at the other end (on Linux with the PID of the process that made
 * its socket listen), or why it could not be known.
 */
export type PeerUid = { uid: number; pid?: number } | { unknown: string };

/**
 * Binds what reading a connected Unix socket's peer uid needs, then returns the (synchronous)
 * reader, so the daemon can check every connection the moment it is accepted. It takes the socket's
 * fd (socketFd for a node:net socket; client-socket.ts for a client's); a runtime that stops exposing
 * it makes every check come back unknown, which callers treat as a refusal.
 */
export async function peerUidReader(): Promise<(fd: number | undefined) => PeerUid> {
  let bound: Libc;
  try {
    bound = await loadLibc();
  } catch (error) {
    const reason = `cannot load libc to check the peer: ${(error as Error).message}`;
    return () => ({ unknown: reason });
  }
  const linux = process.platform === "linux";
  const little = LITTLE_ENDIAN;
  return (fd) => {
    if (typeof fd !== "number" || !Number.isInteger(fd) || fd < 0) return { unknown: "this runtime does not expose the socket's fd" };
    // Linux: struct ucred { pid_t pid; uid_t uid; gid_t gid } and its socklen_t length.
    // Elsewhere: getpeereid(fd, &uid, &gid).
    const a = new Uint8Array(linux ? 12 : 4);
    const b = new Uint8Array(4);
    if (linux) new DataView(b.buffer).setUint32(0, 12, little);
    if (bound.peerCred(fd, a, b) !== 0) return { unknown: "the system would not say who is at the other end" };
    const view = new DataView(a.buffer);
    return linux ? { uid: view.getUint32(4, little), pid: view.getInt32(0, little) } : { uid: view.getUint32(0, little) };
  };
}

/** A node:net socket's fd: `_handle.fd` in both Bun's and Deno's node:net (Node's own convention). */
export function socketFd(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === "number" ? fd : undefined;
}

/** Whether `stillThere` turns false within `boundMs`, looked at every `everyMs`: a process takes a moment to end. */
export async function endsWithin(stillThere: () => boolean, boundMs: number, everyMs: number): Promise<boolean> {
  const deadline = performance.now() + boundMs;
  while (stillThere()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return true;
}

/** A zombie counts as dead: a daemon that exited stays one until init gets round to reaping it. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
  return readProcStat(pid)?.state !== "Z";
}
