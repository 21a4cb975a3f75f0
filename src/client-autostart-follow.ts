// Following a daemon that is starting until it listens: the lock's holder, or the one this command
// started (client-autostart.ts), attempted again as soon as it says it listens; a failure is reported
// only for what happened (it died, it listens but takes nothing, the bound passed). client.ts connects
// through it; the early autostart does not load it, so a cold start spawns the daemon sooner.
import { lstatSync, statSync } from "node:fs";
import { busyDaemon, connectFailure, DaemonNotRunning } from "./client-failures.ts";
import type { Attempt, Connected } from "./client-socket.ts";
import { type Started, startDaemon } from "./client-autostart.ts";
import { lockHolder } from "./client-target.ts";
import { EXIT, UserError } from "./errors.ts";
import { LOCK_NAME, SOCKET_NAME, logPath } from "./paths.ts";
import { openRuntimeDir, type RuntimeDir } from "./runtime-dir.ts";
import { endInWords } from "./spawn-bun.ts";

/**
 * How long a client follows a daemon that is starting. Under load a compiled daemon can take tens of
 * seconds to listen (docs/benchmarks.md); a client that gave up sooner would report a failure that was not one while the daemon came
 * up later without its command.
 */
export const AUTOSTART_BOUND_MS = 60_000;
/** How long a daemon that listens but takes no connection (stopped, overwhelmed) is given. */
const BUSY_PATIENCE_MS = 8_000;
/**
 * Connects to the daemon that is starting: the lock's holder, or before anyone holds it the process
 * we started, each attempt through `connect` (client-connect.ts connectVerified, the trust checks). Waits while either lives, up to AUTOSTART_BOUND_MS; the one we started losing the race
 * for the lock follows the winner. Fails only on what happened: ours died, the daemon listens but
 * does not accept, or the bound passed.
 */
export async function followStart(connect: () => Promise<Attempt>, dirPath: string, started: Started | null, autostart: boolean): Promise<Connected> {
  const deadline = performance.now() + AUTOSTART_BOUND_MS;
  let busySince: number | null = null;
  try {
    while (performance.now() < deadline) {
      await nextAttempt(started);
      const attempt = await connect();
      if ("socket" in attempt) return attempt;
      const fatal = connectFailure(attempt.code);
      if (fatal) throw fatal;
      const holder = lockHolder(dirPath);
      busySince = holder !== null && listensButRefuses(dirPath, attempt.code) ? (busySince ?? performance.now()) : null;
      if (busySince !== null && performance.now() - busySince > BUSY_PATIENCE_MS) throw busyDaemon(holder!, logPath());
      if (holder !== null) continue;
      // The daemon we waited for went away before listening: start one, once.
      if (!started) {
        if (!autostart) throw new DaemonNotRunning();
        started = await startDaemon(dirPath, true);
        continue;
      }
      const end = started.exit;
      if (end === null) continue; // ours is still starting
      // systemd-run could not make the scope (the manager refused, a policy): start it the ordinary way.
      // The early autostart's daemon failed before it had a log to say why: start one the ordinary way,
      // whose log says it (a signal is someone's --kill, and stands).
      if (started.how === "scope" || (started.how === "early" && !("signal" in end))) {
        started.letGo();
        started = await startDaemon(dirPath, started.how === "early");
      } else throw new UserError(`the daemon (pid ${started.pid}) ${endInWords(end)} before it listened; see ${logPath()}`, EXIT.unreachable);
    }
  } finally {
    started?.letGo();
  }
  const pid = lockHolder(dirPath) ?? started?.pid;
  throw new UserError(
    `the daemon${pid ? ` (pid ${pid})` : ""} is still starting after ${AUTOSTART_BOUND_MS / 1000} s; it may yet come up (see ${logPath()})`,
    EXIT.unreachable,
  );
}

const ATTEMPT_EVERY_MS = 20;

/**
 * The next connection attempt: in ATTEMPT_EVERY_MS, or as soon as the daemon we started says it
 * listens. The pause is cleared either way: left pending, it would keep a cold `ls` alive for the rest
 * of its wait after printing, a large share of the whole cold start.
 */
export async function nextAttempt(started: Pick<Started, "listening"> | null): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pause = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ATTEMPT_EVERY_MS);
  });
  try {
    await (started?.listening ? Promise.race([pause, started.listening]) : pause);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the lock's holder has bound the socket we could not connect to (a full backlog is refused
 * like a dead daemon's socket): the daemon writes its PID into the lock before it binds, so a socket
 * made after the lock was last written is its own; an older one is a dead daemon's, and it is starting.
 */
function listensButRefuses(dirPath: string, code: string): boolean {
  if (code === "ENOENT") return false;
  let dir: RuntimeDir;
  try {
    dir = openRuntimeDir(dirPath);
  } catch {
    return false;
  }
  try {
    // Modification times, not the socket's change time: Deno's node:fs gives ctime in whole seconds
    // only, and a socket's mtime is its bind (a chmod after it moves only ctime).
    return lstatSync(dir.entry(SOCKET_NAME)).mtimeMs >= statSync(dir.entry(LOCK_NAME)).mtimeMs;
  } catch {
    return false;
  } finally {
    dir.close();
  }
}
