// A fleet under test: its own sandbox and daemon, the real CLI, and real PTYs for interactive
// clients, read back through a headless terminal. Every daemon and process it starts is ended in
// stop().
import { afterEach, beforeEach } from "bun:test";
import { Terminal } from "@xterm/headless";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fleetcomArgv, makeSandbox, runFleetcom, type RunResult, type Sandbox } from "./helpers.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import { useFleetcomWidths } from "../../src/term-widths.ts";
import { isProcessAlive } from "../../src/platform.ts";
import { RawClient } from "./raw-client.ts";

export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** A fresh fleet for every test in the file, always stopped after it: `eachTestGetsAFleet((f) => (fleet = f))`. */
export function eachTestGetsAFleet(use: (fleet: Fleet) => void): void {
  let current: Fleet;
  beforeEach(() => use((current = new Fleet())));
  afterEach(() => current.stop());
}

export class Fleet {
  readonly sandbox: Sandbox = makeSandbox();
  private readonly clients: PtyClient[] = [];
  private reader: RawClient | null = null;

  get env(): Record<string, string> {
    return this.sandbox.env;
  }

  cli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
    return runFleetcom(args, { env: { ...this.env, ...opts.env }, cwd: opts.cwd ?? this.sandbox.home });
  }

  async ok(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
    const r = await this.cli(args, opts);
    if (r.code !== 0) throw new Error(`fleetcom ${args.join(" ")} exited ${r.code}: ${r.stderr}${this.daemonLogTail()}`);
    return r.stdout;
  }

  /** The end of the sandbox's daemon log, for a failure's message: a lost connection's cause is there, and the sandbox is gone after the test. */
  daemonLogTail(lines = 20): string {
    try {
      const log = readFileSync(`${this.sandbox.runtime}/daemon.log`, "utf8").trimEnd().split("\n").slice(-lines);
      return `\n--- the end of daemon.log ---\n${log.join("\n")}`;
    } catch {
      return "\n(no daemon.log)";
    }
  }

  /** Starts a task and gives its id; one that fails at once is started all the same (run says so and exits 1). */
  async run(command: string, flags: string[] = []): Promise<number> {
    const r = await this.cli(["run", ...flags, "--", command]);
    const failedAtOnce = r.code === 1 && / at once/.test(r.stderr) && /^\d+\n$/.test(r.stdout);
    if (r.code !== 0 && !failedAtOnce) throw new Error(`fleetcom run -- ${command} exited ${r.code}: ${r.stderr}`);
    return Number(r.stdout.trim());
  }

  /** The fleet as `ls --json` gives it. Polls read it over one connection kept open, not a CLI process per call; the CLI runs only to start a daemon. */
  async ls(): Promise<TaskInfo[]> {
    const tasks = await this.lsOverSocket();
    return tasks ?? JSON.parse(await this.ok(["ls", "--json"]));
  }

  private async lsOverSocket(): Promise<TaskInfo[] | null> {
    if (this.reader?.closed) this.reader = null;
    if (!this.reader) {
      if (!existsSync(join(this.sandbox.runtime, "default.sock"))) return null;
      this.reader = await RawClient.open(this).catch(() => null);
      if (!this.reader) return null;
    }
    const reply = await this.reader.request("ls");
    return reply.ok ? (reply.result as TaskInfo[]) : null;
  }

  /** The daemon's socket, the daemon started first. */
  async socketPath(): Promise<string> {
    await this.ls();
    return join(this.sandbox.runtime, "default.sock");
  }

  /** A raw protocol client, greeted, on the daemon started first. */
  async rawClient(): Promise<RawClient> {
    await this.ls();
    return RawClient.open(this);
  }

  async task(id: number): Promise<TaskInfo> {
    const found = (await this.ls()).find((t) => t.id === id);
    if (!found) throw new Error(`no task ${id}`);
    return found;
  }

  waitForTask(id: number, what: string, test: (t: TaskInfo) => boolean, timeoutMs?: number): Promise<TaskInfo> {
    return until(
      `task ${id} ${what}`,
      async () => {
        const t = (await this.ls()).find((x) => x.id === id);
        return t && test(t) ? t : undefined;
      },
      timeoutMs,
    );
  }

  waitForExit(id: number, timeoutMs?: number): Promise<TaskInfo> {
    return this.waitForTask(id, "to exit", (t) => t.state === "exited", timeoutMs);
  }

  /** `save NAME`, then each saved entry's command as the recipe file holds it. */
  async savedCommands(name: string): Promise<string[]> {
    await this.ok(["save", name]);
    const doc = JSON.parse(readFileSync(join(this.sandbox.config, "sessions", `${name}.json`), "utf8"));
    return Object.values(doc.dirs as Record<string, (string | { cmd: string })[]>)
      .flat()
      .map((e) => (typeof e === "string" ? e : e.cmd));
  }

  async peek(id: number | string): Promise<string> {
    return this.ok(["peek", String(id)]);
  }

  daemonPid(): number | null {
    try {
      return Number(readFileSync(`${this.sandbox.runtime}/daemon.lock`, "utf8").trim()) || null;
    } catch {
      return null;
    }
  }

  /** Starts a client in a real PTY of the given size. */
  spawnClient(args: string[], size = { cols: 100, rows: 30 }): PtyClient {
    const client = new PtyClient(fleetcomArgv(args), this.env, this.sandbox.home, size);
    this.clients.push(client);
    return client;
  }

  async stop(): Promise<void> {
    this.reader?.close();
    for (const c of this.clients) c.kill();
    const pid = this.daemonPid();
    if (pid !== null && servesRuntimeDir(pid, this.sandbox.runtime)) await stopDaemonProcess(pid);
    // Anything else the lock names (its environment not this sandbox's): --kill proves and stops it.
    else if (pid !== null) await this.cli(["--kill"]);
    // A daemon still stopping has given up its lock (the dashboard's Q answers before the last
    // snapshot is written): its last writes would make the removed sandbox again, so it is waited for too.
    else await Promise.all(daemonsOf(this.sandbox.runtime).map(stopDaemonProcess));
    this.sandbox.cleanup();
  }
}

/**
 * The end of every test: SIGTERM, which stops a daemon as `--kill` does (its tasks end, the last
 * snapshot is written), then waiting for it to be gone, then SIGKILL should it still be there after
 * 10 s (a test that failed half-way must not leave processes behind). Not `fleetcom --kill`: that is
 * a CLI process (~0.1 CPU-s) at the end of each of the suite's hundreds of tests, and its own tests
 * are in test/e2e/daemon.test.ts and confirm.test.ts.
 */
async function stopDaemonProcess(pid: number): Promise<void> {
  const signal = (name: "SIGTERM" | "SIGKILL") => {
    try {
      process.kill(pid, name);
    } catch {}
  };
  signal("SIGTERM");
  // A zombie counts as gone: an ended daemon whose parent has not reaped it yet.
  const gone = await until("the daemon to stop", () => !isProcessAlive(pid), 10_000).catch(() => false);
  if (!gone) signal("SIGKILL");
}

/** The PID in a sandbox's lock file is that sandbox's daemon (or --foreground client) still, not a later process given its number. */
function servesRuntimeDir(pid: number, runtimeDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").includes(`FLEETCOM_RUNTIME_DIR=${runtimeDir}\0`);
  } catch {
    return false;
  }
}

/** A fleetcom client in a real PTY whose screen is kept by a headless terminal, which also answers terminal queries the way a real one would. */
export class PtyClient {
  readonly term: Terminal;
  readonly proc: ReturnType<typeof Bun.spawn>;
  output = "";

  constructor(argv: string[], env: Record<string, string>, cwd: string, size: { cols: number; rows: number }) {
    this.term = new Terminal({ cols: size.cols, rows: size.rows, allowProposedApi: true, scrollback: 1000 });
    useFleetcomWidths(this.term); // the widths of a modern terminal, as the daemon's
    const decoder = new TextDecoder();
    this.proc = Bun.spawn(argv, {
      env: { ...env, TERM: "xterm-256color" },
      cwd,
      terminal: {
        cols: size.cols,
        rows: size.rows,
        data: (_t, chunk) => {
          this.output += decoder.decode(chunk, { stream: true });
          this.term.write(chunk);
        },
      },
    });
    this.term.onData((reply) => this.proc.terminal?.write(reply));
  }

  write(keys: string): void {
    this.proc.terminal!.write(keys);
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    this.proc.terminal!.resize(cols, rows);
  }

  /** Resolves once the program has put its terminal in raw mode (attached clients do, once ready for keys). */
  waitForRawMode(): Promise<true> {
    const ICANON = process.platform === "darwin" ? 0x100 : 0x2;
    return until("the client's terminal in raw mode", () => (this.proc.terminal!.localFlags & ICANON) === 0);
  }

  async settled(): Promise<void> {
    await new Promise<void>((r) => this.term.write("", r));
  }

  screen(): string {
    const buffer = this.term.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < this.term.rows; y++) rows.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? "");
    while (rows.length && rows[rows.length - 1] === "") rows.pop();
    return rows.join("\n");
  }

  /** Waits until the screen passes `test`; a timeout says what the screen held last. */
  async waitForScreen(what: string, test: (screen: string) => boolean, timeoutMs?: number): Promise<string> {
    let last = "";
    return until(
      what,
      async () => {
        await this.settled();
        last = this.screen();
        return test(last) ? last : undefined;
      },
      timeoutMs,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; the screen was:\n${last}`);
    });
  }

  waitForOutput(text: string, timeoutMs?: number): Promise<string> {
    return until(`output containing ${JSON.stringify(text)}`, () => (this.output.includes(text) ? this.output : undefined), timeoutMs);
  }

  kill(): void {
    try {
      this.proc.kill("SIGKILL");
    } catch {}
  }
}

/** The PIDs of the daemons (started from source) serving `runtimeDir`. */
export function daemonsOf(runtimeDir: string): number[] {
  const out = Bun.spawnSync(["pgrep", "-f", "(main\\.ts|fleetcom) daemon$"]).stdout.toString().trim();
  return out
    .split("\n")
    .filter(Boolean)
    .map(Number)
    .filter((pid) => servesRuntimeDir(pid, runtimeDir));
}
