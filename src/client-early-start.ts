// The early autostart: a line bound for this machine's daemon whatever happens (a bare `ls`, `run`
// and a plain command) starts it first thing, before this process loads its runner, its command and
// node:fs (main.ts). Otherwise a cold `ls` would spend that time before it spawned the daemon, and then
// wait on the daemon for the rest of its start (docs/benchmarks.md). It starts one only where
// nothing else has to decide how: the compiled binary under Bun, no socket in the runtime
// directory, and no systemd-run that could start it in a scope of its own
// (client-service-manager.ts scopeCommand). It gives the daemon no log: the daemon opens its own
// once it holds its runtime directory (cmd-daemon.ts). The autostart adopts what it started
// (client-autostart.ts), and where it ended before it listened, starts one the ordinary way, with the log
// from its first byte (client-autostart-follow.ts followStart).
import { OPEN_LOG_VARIABLE, READY_FD_VARIABLE, socketPath, type Env } from "./paths.ts";
import { compiledBinary, type DetachedChild, runsOnBun, spawnDetachedOnBun } from "./spawn-bun.ts";

/**
 * Whether these words go to this machine's daemon, which they start, whatever else happens: `ls`
 * alone, or `run` and a command with no option and no HOST:… in it. Such words cannot be refused,
 * so starting the daemon before the command's code has loaded starts none for a mistyped line.
 */
export function needsDaemonHereAnyway(argv: readonly string[]): boolean {
  const [command, ...words] = argv;
  if (command === "ls") return words.length === 0;
  return command === "run" && words.length > 0 && !words.some((w) => w.startsWith("-") || w.includes(":"));
}

// What Bun reports as a file's lastModified when nothing is at the path (2^52 - 1): the one look
// at the socket that needs neither node:fs nor a thread (Bun.file().exists() says false for a socket).
const NOTHING_THERE = 2 ** 52 - 1;

let early: DetachedChild | null = null;
let socketSeen = false;

/** Starts this machine's daemon now, if these words need it and nothing else has to decide how. */
export function startEarly(argv: readonly string[], env: Env = process.env): void {
  if (!needsDaemonHereAnyway(argv) || env.FLEETCOM_HOST?.trim() || !runsOnBun()) return;
  // Looked at first: with a daemon there, nothing else here needs deciding (the PATH search included).
  socketSeen = Bun.file(socketPath(env)).lastModified !== NOTHING_THERE;
  if (socketSeen) return;
  const binary = compiledBinary();
  if (!binary || mayStartInScope(env)) return;
  early = spawnDetachedOnBun([binary, "daemon"], "ignore", { ...env, [READY_FD_VARIABLE]: "3", [OPEN_LOG_VARIABLE]: "1" });
}

/**
 * Whether startEarly found something at the socket's name: then the connection decides, as it would
 * after a prestart that found the socket there (client-autostart.ts prestartDaemon), and a stale
 * socket is replaced the ordinary way (client-connect.ts connectSocket).
 */
export function socketSeenEarly(): boolean {
  return socketSeen;
}

/** The daemon startEarly started, once; null when it started none. */
export function takeEarlyStart(): DetachedChild | null {
  const taken = early;
  early = null;
  return taken;
}

/** Where scopeCommand could choose systemd-run: Linux, a user manager's runtime directory, the program on PATH. */
function mayStartInScope(env: Env): boolean {
  return process.platform === "linux" && Boolean(env.XDG_RUNTIME_DIR) && Bun.which("systemd-run", { PATH: env.PATH ?? "" }) !== null;
}
