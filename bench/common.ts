// What every benchmark shares: an isolated fleetcom (its own HOME, config and runtime dirs) and an
// isolated tmux server (its own socket, no user config), clients in real PTYs, timing statistics
// and the one-line report format. Everything started here is registered for cleanup, so a
// benchmark that throws or is interrupted leaves no daemon, server or task behind.
import { DaemonClient } from "../src/client.ts";
import { HERE } from "../src/client-target.ts";
import { isProcessAlive } from "../src/platform.ts";
import { isolatedDirs } from "../test/harness/sandbox.ts";
import { dlopen } from "bun:ffi";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const FLEETCOM_BIN = process.env.FLEETCOM_BENCH_BIN ?? resolve(import.meta.dir, "../dist/fleetcom");
/** Every client PTY and every task starts at this size, so no attach ever resizes a screen. */
export const COLS = 120;
export const ROWS = 40;

// ---- cleanup ---------------------------------------------------------------------------------

const cleanups: (() => void)[] = [];

/** Registers synchronous teardown; run by runCleanups() at the end or on a signal. */
export function onCleanup(fn: () => void): void {
  cleanups.push(fn);
}

export function runCleanups(): void {
  while (cleanups.length) {
    try {
      cleanups.pop()!();
    } catch {}
  }
}

// ---- sandbox ---------------------------------------------------------------------------------

export interface Sandbox {
  root: string;
  env: Record<string, string>;
  fleetcom: Fleetcom;
  tmux: Tmux;
}

/** A temp dir with a fleetcom and a tmux that see nothing of the user's and are torn down at exit. */
export function makeSandbox(label: string): Sandbox {
  const { root, env: isolated } = isolatedDirs(`fleetcom-bench-${label}-`);
  const env: Record<string, string> = {
    ...isolated,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    TMPDIR: root,
    // FLEETCOM_BENCH_HISTORY=off: the same figures with no history and no logs kept, to see what keeping them costs.
    ...(process.env.FLEETCOM_BENCH_HISTORY ? { FLEETCOM_HISTORY: process.env.FLEETCOM_BENCH_HISTORY } : {}),
  };
  const sandbox = { root, env, fleetcom: new Fleetcom(env), tmux: new Tmux(env, join(root, "tmux.sock")) };
  onCleanup(() => rmSync(root, { recursive: true, force: true }));
  onCleanup(() => sandbox.tmux.killServer());
  onCleanup(() => sandbox.fleetcom.killDaemon());
  return sandbox;
}

export class Fleetcom {
  constructor(readonly env: Record<string, string>) {}

  argv(...args: string[]): string[] {
    return [FLEETCOM_BIN, ...args];
  }

  async run(...args: string[]): Promise<string> {
    return runCommand(this.argv(...args), this.env);
  }

  /** Starts `command` as a task; returns its id. */
  async start(command: string): Promise<string> {
    return (await this.run("run", "--", command)).trim();
  }

  /** Removes a task once the daemon has seen it exit (it may still be parsing the task's last output). */
  async remove(id: string): Promise<void> {
    for (;;) {
      try {
        await this.run("rm", id);
        return;
      } catch (error) {
        if (!String(error).includes("still running")) throw error;
        await Bun.sleep(10);
      }
    }
  }

  killDaemon(): void {
    Bun.spawnSync(this.argv("--kill"), { env: this.env, stdout: "ignore", stderr: "ignore" });
  }
}

export class Tmux {
  constructor(
    readonly env: Record<string, string>,
    readonly socket: string,
  ) {}

  argv(...args: string[]): string[] {
    return ["tmux", "-S", this.socket, "-f", "/dev/null", ...args];
  }

  async run(...args: string[]): Promise<string> {
    return runCommand(this.argv(...args), this.env);
  }

  /**
   * Starts the server with a first session; no status line, so the only thing tmux draws is the
   * pane, as with fleetcom. The session keeps the server up between benchmark runs.
   */
  async start(name = "keep", command = "sleep 86400"): Promise<void> {
    await this.run("start-server", ";", "set-option", "-g", "status", "off", ";", ...this.newSessionArgs(name, command));
  }

  /** A detached session running `command` (via `$SHELL -c`, as fleetcom runs a task). */
  async newSession(name: string, command: string): Promise<void> {
    await this.run(...this.newSessionArgs(name, command));
  }

  private newSessionArgs(name: string, command: string): string[] {
    return ["new-session", "-d", "-s", name, "-x", String(COLS), "-y", String(ROWS), command];
  }

  killServer(): void {
    Bun.spawnSync(this.argv("kill-server"), { env: this.env, stdout: "ignore", stderr: "ignore" });
  }
}

/** `tasks` copies of `command` in `root`, as a recipe for `fleetcom load` and a script for `tmux source-file`. */
export function writeSameFleet(root: string, name: string, tasks: number, command: string): { recipe: string; script: string } {
  const recipe = join(root, `${name}.json`);
  writeFileSync(recipe, JSON.stringify({ version: 1, name, dirs: { [root]: Array(tasks).fill(command) } }));
  const script = join(root, `${name}.tmux`);
  writeFileSync(script, Array.from({ length: tasks }, (_, i) => `new-session -d -s t${i} "${command}"\n`).join(""));
  return { recipe, script };
}

export async function runCommand(argv: string[], env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${err.trim()}`);
  return out;
}

/** Wall time of one whole command, from spawn to exit with its output read, in ms. */
export async function timeCommand(argv: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  await runCommand(argv, env);
  return performance.now() - started;
}

/**
 * Wall time of one whole command with a terminal (a PTY of COLS x ROWS) for its stdin, stdout and
 * stderr, as a user types it in a shell, from spawn to exit, in ms: a client that asks its terminal
 * for its size or builds process.stdout pays for it here, not in timeCommand's pipes.
 */
export async function timeInTerminal(argv: string[], env: Record<string, string>): Promise<number> {
  let said = "";
  const started = performance.now();
  const proc = Bun.spawn(argv, { env, terminal: { cols: COLS, rows: ROWS, data: (_t, chunk) => void (said += new TextDecoder().decode(chunk)) } });
  const code = await proc.exited;
  const elapsed = performance.now() - started;
  proc.terminal?.close();
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code} in a terminal: ${said.trim().slice(0, 200)}`);
  return elapsed;
}

/** CPU time (user + sys) of one whole command, from spawn to exit with its output read, in ms. */
export async function cpuCommand(argv: string[], env: Record<string, string>): Promise<number> {
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${err.trim()}`);
  const usage = proc.resourceUsage();
  if (!usage) throw new Error(`no resource usage for ${argv.join(" ")}`);
  return Number(usage.cpuTime.total) / 1000;
}

const CLOCK_TICKS_PER_SECOND = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/**
 * CPU time a running process has used so far, in ms: its CPU-time clock (clock_getcpuclockid), the
 * scheduler's nanoseconds over all its threads, dead ones included. Where that clock cannot be read,
 * utime + stime from /proc/PID/stat, which count whole clock ticks (10 ms): a daemon that used 8 ms read 0.
 */
export function processCpuMs(pid: number): number {
  const clock = processClockMs(pid);
  if (clock !== null) return clock;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces: state is [0], utime [11], stime [12].
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

let libc: { clock_gettime(clock: number, timespec: Uint8Array): number } | null | undefined;

function processClockMs(pid: number): number | null {
  if (process.platform !== "linux") return null;
  if (libc === undefined) {
    try {
      libc = dlopen("libc.so.6", { clock_gettime: { args: ["i32", "ptr"], returns: "i32" } }).symbols;
    } catch {
      libc = null;
    }
  }
  if (!libc) return null;
  // Linux's clockid for a process's CPU clock: the complement of the PID, shifted, with CPUCLOCK_SCHED (2).
  const timespec = new BigInt64Array(2);
  if (libc.clock_gettime((~pid << 3) | 2, new Uint8Array(timespec.buffer)) !== 0) return null;
  return Number(timespec[0]!) * 1000 + Number(timespec[1]!) / 1e6;
}

/**
 * Compiles bench/floor/NAME.ts the way `make build` compiles fleetcom (scripts/build.ts) into
 * `dir`, and returns the binary's path: a floor measured with the same runtime and start-up.
 */
export function compileFloor(name: string, dir: string): string {
  const out = join(dir, `floor-${name}`);
  const source = resolve(import.meta.dir, "floor", `${name}.ts`);
  const built = Bun.spawnSync([process.execPath, resolve(import.meta.dir, "../scripts/build.ts"), source, out], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (built.exitCode !== 0) throw new Error(`cannot build the ${name} floor: ${built.stderr.toString().trim()}`);
  return out;
}

/** tmux is the yardstick; the spec has the benchmark install it when it is missing. */
export function ensureTmux(): void {
  if (Bun.which("tmux")) return;
  if (process.getuid?.() !== 0) throw new Error("tmux is missing; install it (apt-get install -y tmux) and run again");
  for (const argv of [
    ["apt-get", "update"],
    ["apt-get", "install", "-y", "tmux"],
  ]) {
    const result = Bun.spawnSync(argv, { stdout: "inherit", stderr: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} failed`);
  }
}

// ---- clients in PTYs -------------------------------------------------------------------------

/**
 * A client program (`fleetcom attach`, `tmux attach`) running in a real PTY, as a user's terminal
 * would run it. Its output is read and discarded except for what a waiter is looking for; bytes
 * are searched without decoding, so reading 100 MB costs the benchmark as little as possible.
 */
export class PtyClient {
  readonly proc: ReturnType<typeof Bun.spawn>;
  received = 0;
  private tail = Buffer.alloc(0);
  private waiter: { needle: Buffer; resolve(at: number): void } | null = null;
  private listener: ((chunk: Uint8Array, at: number) => void) | null = null;

  constructor(argv: string[], env: Record<string, string>) {
    this.proc = Bun.spawn(argv, {
      env,
      terminal: { cols: COLS, rows: ROWS, data: (_t, chunk) => this.receive(chunk) },
    });
    const proc = this.proc;
    onCleanup(() => proc.kill("SIGKILL"));
  }

  private receive(chunk: Uint8Array): void {
    const at = performance.now();
    this.received += chunk.length;
    this.listener?.(chunk, at);
    const waiter = this.waiter;
    if (!waiter) return;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const edge = Buffer.concat([this.tail, bytes.subarray(0, waiter.needle.length - 1)]);
    if (edge.includes(waiter.needle) || bytes.includes(waiter.needle)) {
      this.waiter = null;
      waiter.resolve(at);
      return;
    }
    this.tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - waiter.needle.length + 1)));
  }

  /** Resolves with the time (performance.now) at which `text` first arrives after this call. */
  waitFor(text: string, timeoutMs = 60_000): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error(`timed out waiting for ${JSON.stringify(text)}`));
      }, timeoutMs);
      this.tail = Buffer.alloc(0);
      this.waiter = {
        needle: Buffer.from(text),
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
    });
  }

  /** Every chunk with its arrival time; null to stop. */
  onChunk(listener: ((chunk: Uint8Array, at: number) => void) | null): void {
    this.listener = listener;
  }

  write(data: string): void {
    this.proc.terminal!.write(data);
  }

  /** Waits for the client to exit; kills it if it has not within `timeoutMs`. */
  async close(timeoutMs = 5_000): Promise<void> {
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), timeoutMs);
    await this.proc.exited;
    clearTimeout(timer);
    this.proc.terminal?.close();
  }
}

// ---- waiting on processes and files ----------------------------------------------------------

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `probe` returns a value; throws after `timeoutMs`. */
export async function poll<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 60_000, everyMs = 1): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A field of /proc/PID/status in kB (VmRSS: resident now; VmHWM: the peak). */
export function procStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  const kb = Number(line?.match(/\d+/)?.[0] ?? NaN);
  if (!Number.isFinite(kb)) throw new Error(`no ${field} for ${pid}`);
  return kb;
}

/** The pid of the sandbox's daemon, from its lock file. */
export function daemonPid({ env }: Sandbox): number {
  const pid = readPid(join(env.FLEETCOM_RUNTIME_DIR!, "daemon.lock"));
  if (!pid) throw new Error("no daemon pid");
  return pid;
}

/**
 * The product's own client, pointed at the sandbox's daemon; the environment is read only while
 * connecting, and a daemon is already running, so nothing is autostarted with the bench's settings.
 */
export async function openDaemonClient({ env }: Sandbox): Promise<DaemonClient> {
  const saved = process.env.FLEETCOM_RUNTIME_DIR;
  process.env.FLEETCOM_RUNTIME_DIR = env.FLEETCOM_RUNTIME_DIR;
  try {
    return await DaemonClient.open(HERE, { autostart: false });
  } finally {
    if (saved === undefined) delete process.env.FLEETCOM_RUNTIME_DIR;
    else process.env.FLEETCOM_RUNTIME_DIR = saved;
  }
}

export function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True once `pid` is gone, zombie state included: it is gone only when the tool that started it
 * has reaped it, so this sees the exit the way the tool does, from outside and the same for both.
 */
/** A zombie has finished: the tmux server here sometimes leaves its panes' shells unreaped. */
export function processGone(pid: number): boolean {
  return !isProcessAlive(pid);
}

// ---- statistics and report lines -------------------------------------------------------------

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) throw new Error("no samples");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Milliseconds, three significant figures. */
export function ms(value: number): string {
  if (value >= 100) return `${value.toFixed(0)}ms`;
  if (value >= 10) return `${value.toFixed(1)}ms`;
  return `${value.toFixed(value >= 1 ? 2 : 3)}ms`;
}

/** `name  fleetcom=…  tmux=…  ratio=…` with the ratio of the raw values. */
export function compareLine(name: string, fleetcom: number, tmux: number, unit: (v: number) => string = ms): string {
  return versusLine(name, fleetcom, "tmux", tmux, unit);
}

/** `name  fleetcom=…  <other>=…  ratio=…`: fleetcom against another tool (pm2) on the same work. */
export function versusLine(name: string, fleetcom: number, other: string, value: number, unit: (v: number) => string = ms): string {
  return `${name}  fleetcom=${unit(fleetcom)}  ${other}=${unit(value)}  ratio=${(fleetcom / value).toFixed(2)}`;
}

/** `name  fleetcom=…  version=…  ratio=…`: a command against `fleetcom --version`, its floor, in the same run. */
export function floorLine(name: string, fleetcom: number, version: number, unit: (v: number) => string = ms): string {
  return `${name}  fleetcom=${unit(fleetcom)}  version=${unit(version)}  ratio=${(fleetcom / version).toFixed(2)}`;
}

export function reportLine(name: string, fleetcom: number, unit: (v: number) => string = ms): string {
  return `${name}  fleetcom=${unit(fleetcom)}`;
}

/** Runs `fleetcom` and `tmux` samples alternately, so drifting machine noise hits both alike. */
export async function alternate(rounds: number, fleetcom: () => Promise<number>, tmux: () => Promise<number>) {
  const samples = { fleetcom: [] as number[], tmux: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    samples.fleetcom.push(await fleetcom());
    samples.tmux.push(await tmux());
  }
  return samples;
}
