// The transport to another host's daemon: `ssh [options] DEST -- <fleetcom there> bridge`, whose
// pipes carry the socket protocol unchanged (cmd-bridge.ts is the far end, a client of that host's
// daemon through its own trust checks). OpenSSH is the only door: nothing of fleetcom listens on a
// network port, and the user's own ~/.ssh/config (keys, agents, ProxyJump) applies.
//
// The ssh command is `ssh` unless FLEETCOM_SSH or `ssh_command` in config.toml names another, read
// by `sh`'s rules as GIT_SSH_COMMAND is (plain words run without starting sh). Repeated commands to one host share one connection: ControlMaster
// and a ControlPath in fleetcom's runtime directory are added unless the user's config sets them.
// BatchMode: a command run from a script must never stop to ask for a password.
import { type ChildProcess, spawn } from "node:child_process";
import type { ClientSocket } from "./client-socket.ts";
import { EXIT, UserError } from "./errors.ts";
import { runtimeDir } from "./paths.ts";
import { openRuntimeDir } from "./runtime-dir.ts";
import { configFile, readConfigFile } from "./settings.ts";
import { shellQuote } from "./text-shell.ts";
import { VERSION } from "./version.ts";

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

/** Whether fleetcom should share connections to `dest`: not when `ssh -G` says the user's config already decides it. */
export async function sharesConnections(dest: string): Promise<boolean> {
  const effective = await capture(sshArgv(["-G", "--", dest]), 5_000);
  const setting = (key: string) => new RegExp(`^${key} (.*)$`, "m").exec(effective.stdout)?.[1]?.trim();
  const master = setting("controlmaster");
  const path = setting("controlpath");
  return !((master !== undefined && master !== "false") || (path !== undefined && path !== "none"));
}

/** The connection-sharing options, unless the user's config decides them (`share`, else `ssh -G` asked now). */
async function connectionOptions(dest: string, share: boolean | undefined): Promise<string[]> {
  if (!(share ?? (await sharesConnections(dest)))) return [];
  const dir = runtimeDir();
  openRuntimeDir(dir).close();
  return ["-o", "ControlMaster=auto", "-o", `ControlPath=${dir}/ssh-%C`, "-o", "ControlPersist=60"];
}

/** argv of ssh running `command` (a remote shell command line) on `dest`, non-interactively unless `tty`. */
export async function sshCommandLine(dest: string, command: string, options: { tty?: boolean; share?: boolean | undefined } = {}): Promise<string[]> {
  const tty = options.tty ? ["-t"] : ["-T"];
  return sshArgv(["-o", "BatchMode=yes", ...tty, ...(await connectionOptions(dest, options.share)), "--", dest, command]);
}

/** One line saying why ssh failed: its last line on stderr (its own reason), else how it ended. */
export function sshReason(stderr: string, code: number | null, signal: string | null = null): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? (signal ? `ssh was killed by ${signal}` : `ssh exited with status ${code}`);
}

/** Runs argv to its end (killed after `timeoutMs`), its stdin `input` or nothing; what it printed and how it ended. */
export function capture(
  argv: string[],
  timeoutMs: number,
  input?: Uint8Array | NodeJS.ReadableStream,
): Promise<{ stdout: string; stderr: string; code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.stdin!.on("error", () => {});
    if (input instanceof Uint8Array) child.stdin!.end(input);
    else if (input) input.pipe(child.stdin!);
    else child.stdin!.end();
    const timer = setTimeout(() => {
      stderr += `\nno answer within ${timeoutMs / 1000} s`;
      child.kill("SIGTERM");
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ stdout, stderr: `${stderr}\n${error.message}`, code: 127, signal: null });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code, signal });
    });
  });
}

/** ssh exits 255 for its own failures; the remote shell 127 for a program it cannot find. */
const SSH_FAILED = 255;
const NOT_FOUND = 127;

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
  const argv = await sshCommandLine(host.ssh, `${shellQuote(remoteBinary(host.home))} bridge`, { share: host.share });
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
  return pipeSocket(host, child);
}

function pipeSocket(host: RemoteHost, child: ChildProcess): ClientSocket & { why(): string | null } {
  let stderr = "";
  let end: { code: number | null; signal: string | null } | null = null;
  let spawnError: string | null = null;
  let gone = false;
  let killed = false;
  const closeListeners: (() => void)[] = [];
  const stdin = child.stdin!;
  const stdout = child.stdout!;
  stdin.on("error", () => {});
  child.stderr!.on("data", (d) => (stderr = (stderr + d).slice(-4096)));
  child.once("error", (error) => (spawnError = error.message));
  child.once("close", (code, signal) => {
    end = { code, signal };
    gone = true;
    for (const listener of closeListeners.splice(0)) listener();
  });
  const release = () => {
    child.unref();
    for (const stream of [stdout, child.stderr, stdin] as { unref?(): void }[]) stream.unref?.();
  };
  return {
    fd: undefined,
    write: (bytes) => void (gone || stdin.destroyed || stdin.write(bytes)),
    close: () => {
      stdin.end();
      release();
    },
    destroy: () => {
      killed = true;
      child.kill("SIGTERM");
      release();
    },
    pause: () => stdout.pause(),
    resume: () => stdout.resume(),
    onData: (listener) => void stdout.on("data", (chunk: Buffer) => listener(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))),
    onClose: (listener) => (gone ? listener() : void closeListeners.push(listener)),
    why: () => {
      if (spawnError) return `${host.name}: cannot run ssh (${spawnError})`;
      if (killed || end?.code === 0) return null;
      return transportFailure(host, stderr, end?.code ?? SSH_FAILED, end?.signal ?? null);
    },
  };
}

/** A remote fleetcom run as a command of its own there (save, load, recover, status, --kill), stdio this terminal's. */
export async function runRemote(host: RemoteHost, args: string[]): Promise<number> {
  const command = [remoteBinary(host.home), ...args].map(shellQuote).join(" ");
  const argv = await sshCommandLine(host.ssh, command, { tty: Boolean(process.stdin.isTTY && process.stdout.isTTY), share: host.share });
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: "inherit" });
    child.once("error", (error) => reject(new UserError(`${host.name}: cannot run ssh (${error.message})`, EXIT.unreachable)));
    child.once("close", (code, signal) => {
      if (code === NOT_FOUND) reject(new UserError(transportFailure(host, "", code, signal), EXIT.unreachable));
      else if (code === SSH_FAILED) reject(new UserError(`${host.name} is unreachable (ssh exited 255; its reason is above)`, EXIT.unreachable));
      else resolve(code ?? 1);
    });
  });
}
