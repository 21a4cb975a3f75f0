// The transport to another host's daemon: `ssh [options] DEST -- <fleetcom there> bridge`, whose
// pipes carry the socket protocol unchanged (cmd-bridge.ts is the far end, a client of that host's
// daemon through its own trust checks). OpenSSH is the only door: nothing of fleetcom listens on a
// network port, and the user's own ~/.ssh/config (keys, agents, ProxyJump) applies.
//
// The ssh command is `ssh` unless FLEETCOM_SSH or `ssh_command` in config.toml names another, read
// by `sh`'s rules as GIT_SSH_COMMAND is (plain words run without starting sh). Repeated commands to one host share one connection: ControlMaster
// and a ControlPath in fleetcom's runtime directory are added unless the user's config sets them;
// so is a ConnectTimeout, as an sshd that accepts the connection and never answers would otherwise
// hold a command for ever. BatchMode: a command run from a script must never stop to ask for a password.
import type { ClientSocket } from "./client-socket.ts";
import { errorMessage } from "./errors.ts";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runtimeDir } from "./paths.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import { childProcess, runsOnBun, runUnwaited } from "./platform.ts";
import { openRuntimeDir } from "./runtime-dir.ts";
import { configFile, readConfigFile } from "./settings.ts";
import { shellQuote } from "./text-shell.ts";
import type { WorktreeRecord } from "./recipe.ts";
import { VERSION } from "./version.ts";
import { oneHostBoundMs } from "./client-host-bounds.ts";

/** A host added with `fleetcom hosts add`: its name here, its ssh destination, its home there. */
export interface RemoteHost {
  name: string;
  ssh: string;
  home: string;
  /**
   * Whether fleetcom adds its connection-sharing options (the user's ssh config sets none), as
   * `hosts add` found it; unknown (an older table) is asked of `ssh -G` each time.
   */
  share?: boolean;
  /**
   * Whether fleetcom adds its ConnectTimeout (the user's ssh config sets none), as `hosts add` found
   * it; unknown (an older table) is asked of `ssh -G` each time.
   */
  timeout?: boolean;
}

/** Where `hosts add` installs a version under the remote home, and the path every call uses (never the remote PATH). */
export function remoteBinary(home: string, version = VERSION): string {
  return `${home}/.local/share/fleetcom/${version}/fleetcom`;
}

/** The ssh command line, as the user wrote it: FLEETCOM_SSH, else `ssh_command` in config.toml, else `ssh`. */
export function sshCommand(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLEETCOM_SSH?.trim()) return env.FLEETCOM_SSH;
  const configured = readConfigFile(configFile(env)).values.get("ssh_command")?.value;
  return typeof configured === "string" && configured.trim() ? configured : "ssh";
}

/** A word sh takes as it stands: nothing quoted, expanded, globbed or redirected. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * argv that runs the user's ssh command with these arguments. A command of plain words (`ssh`,
 * `ssh -F ~/x` is not: `~` expands) is run as those words, as `sh` would run it, without starting
 * `sh` first: one exec fewer on every command for another host (docs/benchmarks.md, remote-ls).
 */
export function sshArgv(args: string[], command = sshCommand()): string[] {
  const words = command.trim().split(/[ \t]+/);
  if (words.every((w) => PLAIN_WORD.test(w)) && !words[0]!.includes("=")) return [...words, ...args];
  return ["sh", "-c", `exec ${command} "$@"`, "ssh", ...args];
}

/** What the user's ssh config already decides for `dest`, so fleetcom adds none of its own there. */
export interface SshFacts {
  /** fleetcom adds its connection-sharing options: the config sets no ControlMaster or ControlPath. */
  share: boolean;
  /** fleetcom adds its ConnectTimeout: the config sets none. */
  timeout: boolean;
}

/** What `ssh -G` (the effective configuration, no connection made) says the user's config decides for `dest`. */
export async function sshFacts(dest: string): Promise<SshFacts> {
  const effective = await capture(sshArgv(["-G", "--", dest]), 5_000);
  return sshFactsOf(effective.stdout);
}

/** SshFacts from `ssh -G`'s lines (`key value`, lower-case keys, `none`/`false` when unset). */
export function sshFactsOf(effective: string): SshFacts {
  const setting = (key: string) => new RegExp(`^${key} (.*)$`, "m").exec(effective)?.[1]?.trim();
  const master = setting("controlmaster");
  const path = setting("controlpath");
  const connectTimeout = setting("connecttimeout");
  return {
    share: !((master !== undefined && master !== "false") || (path !== undefined && path !== "none")),
    timeout: connectTimeout === undefined || connectTimeout === "none",
  };
}

/** SshFacts as a host's table keeps them: either may be unknown (a table from before it was kept). */
type KnownFacts = { share?: boolean | undefined; timeout?: boolean | undefined };

/** The options fleetcom adds for `dest`: each one the user's config does not decide (`known`, else `ssh -G` asked now). */
async function addedOptions(dest: string, known: KnownFacts): Promise<string[]> {
  const asked = known.share === undefined || known.timeout === undefined ? await sshFacts(dest) : null;
  const share = known.share ?? asked!.share;
  const timeout = known.timeout ?? asked!.timeout;
  return [...(timeout ? connectTimeoutOptions() : []), ...(share ? sharingOptions() : [])];
}

/**
 * ssh's bound on connecting: the TCP connection, the server's banner and the key exchange. The
 * one-host bound (30 s, or FLEETCOM_HOST_TIMEOUT_MS), in ssh's whole seconds.
 */
export function connectTimeoutOptions(env: NodeJS.ProcessEnv = process.env): string[] {
  const seconds = Math.ceil(oneHostBoundMs(env) / 1000);
  return ["-o", `ConnectTimeout=${seconds}`];
}

/**
 * ssh's options for the connection fleetcom shares, its ControlPath in our (checked) runtime
 * directory. StreamLocalBindUnlink is the master's to apply when it is asked for a forward
 * (forwardDaemonSocket): the socket a dead master left is replaced, not refused.
 */
function sharingOptions(): string[] {
  const dir = runtimeDir();
  openRuntimeDir(dir).close();
  return ["-o", "ControlMaster=auto", "-o", `ControlPath=${dir}/ssh-%C`, "-o", "ControlPersist=60", "-o", "StreamLocalBindUnlink=yes"];
}

/** The forward of a host's daemon socket in our runtime directory, and the file recording what it was made for (forwardRecord). */
export function forwardNames(name: string): { socket: string; record: string } {
  return { socket: `host-${name}.sock`, record: `host-${name}.forward` };
}

/** Where a forward leads: the daemon there (its instance, from its welcome) on its socket. */
export interface ForwardTarget {
  instance: string;
  socket: string;
}

/**
 * A forward's record: the daemon it leads to, and the ssh command and destination that reached it.
 * A forward is used only while the host is still reached the same way (a host added again with
 * another `--ssh`, another FLEETCOM_SSH go through the bridge) and only to that daemon (client.ts
 * checks the welcome).
 */
export function forwardRecord(host: RemoteHost, target: ForwardTarget): string {
  return `${target.instance}\n${target.socket}\n${sshCommand()}\n${host.ssh}\n`;
}

/** What the record says the forward leads to, when it was made for this host reached this way; null otherwise. */
export function forwardTarget(host: RemoteHost, record: string): ForwardTarget | null {
  const [instance = "", socket = ""] = record.split("\n", 2);
  const target = { instance, socket };
  return instance !== "" && socket !== "" && record === forwardRecord(host, target) ? target : null;
}

/** `hosts rm`: the forward is not used again (its master, which ends within ControlPersist, still listens on nothing reachable). */
export function forgetForward(name: string): void {
  const dir = runtimeDir();
  for (const file of Object.values(forwardNames(name))) rmSync(join(dir, file), { force: true });
}

/**
 * `hosts rm`: the connection fleetcom shares to the host (its ControlPath is ours) ends now, not at
 * the end of ControlPersist: a host forgotten keeps no ssh open. A connection the user's config
 * shares is the user's, and left alone.
 */
export async function endSharedConnection(host: RemoteHost): Promise<void> {
  if (host.share !== true) return;
  await capture(sshArgv([...sharingOptions(), "-O", "exit", "--", host.ssh]), 5_000);
}

/**
 * After a connection through the bridge: asks the shared ssh connection (its master) to forward a
 * socket in our runtime directory to the daemon socket there, so later commands reach that daemon
 * with no ssh, sh or bridge started (client-connect.ts connectForward; docs/remote.md). Only on the
 * connection fleetcom shares itself (the ControlPath is ours); it lives as long as that master
 * (ControlPersist), and any failure leaves the bridge as the way. `listening`: the socket a live
 * forward leads to (the daemon there restarted): the master is not asked again when it is the same,
 * as where the server forbids forwarding the forward always listens and never reaches. Synchronous,
 * so that a one-shot command has asked before it exits; ssh -O, a quick word to the master, is not
 * waited for.
 */
export function forwardDaemonSocket(host: RemoteHost, welcome: ForwardTarget, listening: string | null): void {
  if (host.share !== true) return;
  // Checks the runtime directory before anything is written there.
  const shared = sharingOptions();
  const names = forwardNames(host.name);
  const dir = runtimeDir();
  writeFileAtomic(join(dir, names.record), forwardRecord(host, welcome));
  if (listening === welcome.socket) return;
  const forward = ["-O", "forward", "-L", `${join(dir, names.socket)}:${welcome.socket}`];
  runUnwaited(sshArgv([...shared, ...forward, "--", host.ssh]));
}

/** argv of ssh running `command` (a remote shell command line) on `dest`, non-interactively unless `tty`. */
export async function sshCommandLine(dest: string, command: string, options: KnownFacts & { tty?: boolean } = {}): Promise<string[]> {
  const tty = options.tty ? ["-t"] : ["-T"];
  return sshArgv(["-o", "BatchMode=yes", ...tty, ...(await addedOptions(dest, options)), "--", dest, command]);
}

/** sshCommandLine's options as a host's table keeps them. */
export function hostOptions(host: RemoteHost): KnownFacts {
  return { share: host.share, timeout: host.timeout };
}

/** One line saying why ssh failed: its last line on stderr (its own reason), else how it ended. */
export function sshReason(stderr: string, code: number | null, signal: string | null = null): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? (signal ? `ssh was killed by ${signal}` : `ssh exited with status ${code}`);
}

/** The most of a command's stdout capture() keeps: what fleetcom asks of a host is a few lines. */
export const CAPTURE_MAX_BYTES = 1024 * 1024;
/** Of stderr only the end is kept: its last line is ssh's reason (sshReason). */
const STDERR_KEPT = 4096;

/**
 * Runs argv to its end, its stdin `input` or nothing; what it printed and how it ended. A child that
 * is still running after `timeoutMs`, or prints more than `maxBytes`, is ended and no longer read,
 * and the answer is given at once: under ssh's ControlPersist master (sharingOptions) the pipes stay
 * open as long as the remote command runs, however the local ssh ended, so they are not waited for.
 */
export async function capture(
  argv: string[],
  timeoutMs: number,
  input?: Uint8Array | NodeJS.ReadableStream,
  maxBytes = CAPTURE_MAX_BYTES,
): Promise<{ stdout: string; stderr: string; code: number | null; signal: string | null }> {
  const { spawn } = childProcess();
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = "";
    let answered = false;
    const answer = (code: number | null, signal: string | null, why?: string) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(stdout).toString("utf8"), stderr: why === undefined ? stderr : `${stderr}\n${why}`, code, signal });
    };
    const abandon = (why: string) => {
      if (answered) return;
      child.kill("SIGTERM");
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
      child.unref();
      answer(null, "SIGTERM", why);
    };
    child.stdout!.on("data", (d: Buffer) => {
      const room = maxBytes - stdoutBytes;
      stdout.push(d.length > room ? d.subarray(0, room) : d);
      stdoutBytes += Math.min(d.length, room);
      if (d.length > room) abandon(`it printed more than ${maxBytes} bytes`);
    });
    child.stderr!.on("data", (d) => (stderr = (stderr + d).slice(-STDERR_KEPT)));
    child.stdin!.on("error", () => {});
    if (input instanceof Uint8Array) child.stdin!.end(input);
    else if (input) input.pipe(child.stdin!);
    else child.stdin!.end();
    const timer = setTimeout(() => abandon(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
    child.once("error", (error) => answer(127, null, error.message));
    child.once("close", (code, signal) => answer(code, signal));
  });
}

/** ssh exits 255 for its own failures; the remote shell 127 for a program it cannot find. */
export const SSH_FAILED = 255;
export const NOT_FOUND = 127;

/** Why a connection to `host` ended before its daemon answered, in one line. */
export function transportFailure(host: RemoteHost, stderr: string, code: number | null, signal: string | null): string {
  if (code === NOT_FOUND)
    return `fleetcom ${VERSION} is not installed on ${host.name} (${sshReason(stderr, code, signal)}); run 'fleetcom hosts add ${host.name}'`;
  return `${host.name} is unreachable: ${sshReason(stderr, code, signal)}`;
}

/**
 * A byte stream to `host`'s daemon: ssh running the remote fleetcom's `bridge`. Its stderr is kept
 * (not shown: an attached screen must not get ssh's words) for the one line `why()` gives, null when
 * the link did not fail (ssh ended cleanly, or this side ended it).
 */
export async function connectSsh(host: RemoteHost): Promise<ClientSocket & { why(): string | null }> {
  const argv = await sshCommandLine(host.ssh, `exec ${shellQuote(remoteBinary(host.home))} bridge`, hostOptions(host));
  return pipeSocket(host, runsOnBun() ? spawnBun(argv) : await spawnNode(argv));
}

/** A child with its three pipes, as pipeSocket needs it. */
interface PipedChild {
  write(bytes: Uint8Array): void;
  end(): void;
  kill(): void;
  /** This process may exit before the child has: its pipes are not waited for any more. */
  release(): void;
  pause(): void;
  resume(): void;
  onStdout(listener: (bytes: Uint8Array) => void): void;
  onStderr(listener: (text: string) => void): void;
  /** Once it has ended and its pipes are closed; `error` when it could not start. */
  ended: Promise<{ code: number | null; signal: string | null; error?: string }>;
}

/**
 * Through Bun's own spawn: node:child_process with pipes builds Node streams for each, a
 * share of a one-shot client's CPU (docs/benchmarks.md, remote-ls).
 */
function spawnBun(argv: string[]): PipedChild {
  let proc: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>;
  try {
    proc = Bun.spawn(argv, { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  } catch (error) {
    const nothing = () => {};
    const ended = Promise.resolve({ code: null, signal: null, error: errorMessage(error) });
    return { write: nothing, end: nothing, kill: nothing, release: nothing, pause: nothing, resume: nothing, onStdout: nothing, onStderr: nothing, ended };
  }
  let paused: { promise: Promise<void>; resolve(): void } | null = null;
  const readers = [proc.stdout.getReader(), proc.stderr.getReader()] as const;
  const listeners: [(bytes: Uint8Array) => void, (bytes: Uint8Array) => void] = [() => {}, () => {}];
  const pump = async (which: 0 | 1) => {
    try {
      for (;;) {
        if (which === 0 && paused) await paused.promise;
        const { done, value } = await readers[which].read();
        if (done) return;
        listeners[which](value);
      }
    } catch {}
  };
  const pumped = Promise.all([pump(0), pump(1)]);
  const decoder = new TextDecoder();
  let gone = false;
  return {
    write: (bytes) => {
      try {
        proc.stdin.write(bytes);
        proc.stdin.flush();
      } catch {}
    },
    end: () => {
      try {
        proc.stdin.end();
      } catch {}
    },
    kill: () => proc.kill("SIGTERM"),
    release: () => {
      gone = true;
      proc.unref();
      for (const reader of readers) void reader.cancel().catch(() => {});
    },
    pause: () => {
      if (paused) return;
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      paused = { promise, resolve };
    },
    resume: () => {
      paused?.resolve();
      paused = null;
    },
    onStdout: (listener) => (listeners[0] = listener),
    onStderr: (listener) => (listeners[1] = (bytes) => listener(decoder.decode(bytes, { stream: true }))),
    ended: (async () => {
      await proc.exited;
      if (!gone) await pumped;
      return { code: proc.exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode) };
    })(),
  };
}

/** Through node:child_process (Deno from source). */
async function spawnNode(argv: string[]): Promise<PipedChild> {
  const { spawn } = childProcess();
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
  const [stdin, stdout, stderr] = [child.stdin!, child.stdout!, child.stderr!];
  stdin.on("error", () => {});
  let error: string | undefined;
  child.once("error", (e) => (error = e.message));
  return {
    write: (bytes) => void (stdin.destroyed || stdin.write(bytes)),
    end: () => stdin.end(),
    kill: () => child.kill("SIGTERM"),
    release: () => {
      child.unref();
      for (const stream of [stdout, stderr, stdin] as { unref?(): void }[]) stream.unref?.();
    },
    pause: () => stdout.pause(),
    resume: () => stdout.resume(),
    onStdout: (listener) => void stdout.on("data", (chunk: Buffer) => listener(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))),
    onStderr: (listener) => void stderr.on("data", (d) => listener(String(d))),
    ended: new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal, ...(error !== undefined && { error }) }))),
  };
}

function pipeSocket(host: RemoteHost, child: PipedChild): ClientSocket & { why(): string | null } {
  let stderr = "";
  let end: { code: number | null; signal: string | null; error?: string } | null = null;
  let killed = false;
  const closeListeners: (() => void)[] = [];
  child.onStderr((text) => (stderr = (stderr + text).slice(-4096)));
  void child.ended.then((ended) => {
    end = ended;
    for (const listener of closeListeners.splice(0)) listener();
  });
  return {
    fd: undefined,
    write: (bytes) => void (end || child.write(bytes)),
    close: () => {
      child.end();
      child.release();
    },
    destroy: () => {
      killed = true;
      child.kill();
      child.release();
    },
    pause: () => child.pause(),
    resume: () => child.resume(),
    onData: (listener) => child.onStdout(listener),
    onClose: (listener) => (end ? listener() : void closeListeners.push(listener)),
    why: () => {
      if (end?.error !== undefined) return `${host.name}: cannot run ssh (${end.error})`;
      if (killed || end?.code === 0) return null;
      return transportFailure(host, stderr, end?.code ?? SSH_FAILED, end?.signal ?? null);
    },
  };
}

/**
 * A recipe's worktrees on `host` made again there, where the repository is, by its own fleetcom
 * (cmd-restore-worktrees.ts): the lines it printed, one per worktree made or not. A host that cannot
 * be reached says nothing here: the load that follows names it.
 */
export async function restoreWorktreesOn(host: RemoteHost, worktrees: readonly WorktreeRecord[], timeoutMs: number): Promise<string[]> {
  const words = [remoteBinary(host.home), "restore-worktrees", "--", ...worktrees.flatMap((w) => [w.repo, w.branch, w.path])];
  const result = await capture(await sshCommandLine(host.ssh, words.map(shellQuote).join(" "), hostOptions(host)), timeoutMs);
  // One line per worktree: a host that says more is not heard past that.
  if (result.code === 0) return result.stdout.split("\n").filter(Boolean).slice(0, worktrees.length);
  if (result.code === SSH_FAILED) return [];
  return [`worktrees not recreated: ${transportFailure(host, result.stderr, result.code, result.signal)}`];
}
