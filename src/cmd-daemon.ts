// `fleetcom daemon`: the supervisor in the foreground of this process, no dashboard. Autostart runs
// it detached; service managers run it directly.
import { defineCommand } from "./kit-define.ts";
import { closeSync, fstatSync, writeSync } from "node:fs";
import { errorMessage, UserError } from "./errors.ts";
import { lockPath, OPEN_LOG_VARIABLE, READY_FD_VARIABLE, runtimeDir } from "./paths.ts";
import { pidInLockFile } from "./proc.ts";
import { logLine } from "./text-printable.ts";

// Straight to fd 2, which is the log under autostart: Bun's process.stderr keeps a copy of the fd of
// its own, which would go on writing into a removed log after the daemon opened a new one (daemon-endpoint.ts).
function log(message: string): void {
  try {
    writeSync(2, logLine(message));
  } catch {}
}

export default defineCommand({
  facts: { plain: true },
  meta: { name: "daemon", description: "Run the supervisor in the foreground (what autostart runs)" },
  args: {
    scrollback: { type: "string", valueHint: "LINES", description: "Lines of scrollback per task (default 2000, max 100000, 0 off)" },
  },
  async run({ args }) {
    const ready = readinessPipe();
    const opensOwnLog = takeVariable(OPEN_LOG_VARIABLE) === "1";
    // The lock first, before the seconds a loaded machine takes to load the rest: meanwhile clients
    // follow this daemon instead of starting another, and --kill finds it.
    const { claimRuntimeDir, logToRuntimeDir } = await import("./daemon-endpoint.ts");
    const claim = await claimRuntimeDir(runtimeDir());
    if (!claim) return alreadyRunning();
    // Started by the early autostart, with no log (client-early-start.ts): its own, now that the
    // directory is checked and held. Without one it runs on, as a daemon whose log was removed does.
    if (opensOwnLog) {
      await logToRuntimeDir(claim.dir).catch(() => {});
      log("started early by a client, before it had checked for a daemon; this log opened by the daemon");
    }
    await testStartDelay();
    // The config file, then the environment over it, then the flag (settings.ts). Imported here so
    // that --help and the completion script, which read every command's definition, do not pay for TOML.
    const { daemonOptions, handshakeTimeoutSetting, loadSettings } = await import("./settings.ts");
    const settings = loadSettings(process.env, { scrollback: args.scrollback });
    for (const problem of settings.problems) log(problem);
    const handshakeTimeoutMs = handshakeTimeoutSetting(process.env.FLEETCOM_HANDSHAKE_TIMEOUT_MS, log);
    const { startSupervisor } = await import("./daemon-supervisor.ts");
    const reread = () => loadSettings(process.env, { scrollback: args.scrollback, reread: true });
    const supervisor = await startSupervisor({ ...daemonOptions(settings, reread), handshakeTimeoutMs, log }, claim, () => sayListening(ready));
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => supervisor.daemon.stop());
    // The memory benchmarks' window into the heap (daemon-memory-report.ts); unset everywhere else.
    if (process.env.FLEETCOM_BENCH_MEMORY_REPORT) (await import("./daemon-memory-report.ts")).reportMemoryOnSignal(process.env, log);
    // SIGHUP reads config.toml again, as daemons do (`kill -HUP`, a service manager's reload); it never stops the fleet.
    const hosts = await watchHosts(supervisor.daemon);
    process.on("SIGHUP", () => {
      try {
        supervisor.daemon.reloadSettings();
      } catch (error) {
        log(`SIGHUP: ${errorMessage(error)}`);
      }
    });
    await supervisor.stopped;
    hosts.close();
    log("stopped");
    process.exit(0);
  },
});

/**
 * The added hosts' links for their pushes (client-host-news.ts), made once the daemon listens: a
 * client of each host's daemon, as the dashboard is, whose waits and ends go out through this
 * machine's notify. Without a hosts table in config.toml none of the client's modules is loaded
 * (they would compete with the first client's request); a reload that adds one starts the links.
 * FLEETCOM_HOST_RECHECK_MS (tests) replaces how long a host without tasks waits.
 */
async function watchHosts(daemon: { hostNews: import("./client-host-news.ts").HostNewsSink["news"]; reloaded: (() => void) | null }) {
  const { hostsMayBeAdded } = await import("./client-target.ts");
  let news: import("./client-host-news.ts").HostNews | null = null;
  const watch = async () => {
    if (news === null && !hostsMayBeAdded()) return;
    const [{ HostNews, IDLE_RECHECK_MS }, { readHosts }] = await Promise.all([import("./client-host-news.ts"), import("./client-hosts.ts")]);
    const raw = process.env.FLEETCOM_HOST_RECHECK_MS;
    const recheckMs = raw && /^\d+$/.test(raw) ? Number(raw) : IDLE_RECHECK_MS;
    news ??= new HostNews({ news: (...told) => daemon.hostNews(...told), log }, recheckMs);
    news.watch(readHosts());
  };
  daemon.reloaded = () => void watch().catch((error) => log(`hosts: ${errorMessage(error)}`));
  await watch();
  return { close: () => news?.close() };
}

/**
 * The pipe the client that started us waits on (client.ts startDaemon), taken out of the environment
 * so that nothing started later inherits the name; null when none was given or it is not a pipe.
 */
function readinessPipe(): number | null {
  const fd = Number(takeVariable(READY_FD_VARIABLE));
  try {
    return Number.isInteger(fd) && fd > 2 && isPipe(fd) ? fd : null;
  } catch {
    return null;
  }
}

/** An autostart's word to this daemon, taken out of the environment so that no task inherits it. */
function takeVariable(name: string): string | undefined {
  const value = process.env[name];
  delete process.env[name];
  return value;
}

/** A pipe, or the socket pair Bun's spawn makes for an fd past stderr. */
function isPipe(fd: number): boolean {
  const stat = fstatSync(fd);
  return stat.isFIFO() || stat.isSocket();
}

/** One line, then the pipe is closed: the client connects at once instead of at its next try. */
function sayListening(fd: number | null): void {
  if (fd === null) return;
  try {
    writeSync(fd, "listening\n");
    closeSync(fd);
  } catch {}
}

// Exit 1, not 0: a service manager must not take a second daemon that did nothing for a started one.
function alreadyRunning(): void {
  const holder = pidInLockFile(lockPath());
  const message = `a daemon is already running${holder ? ` (pid ${holder})` : ""} for ${runtimeDir()}; fleetcom --kill stops it`;
  if (process.stderr.isTTY) throw new UserError(message);
  log(`${message}; exiting`);
  process.exitCode = 1;
}

/**
 * FLEETCOM_TEST_START_DELAY_MS (tests only): the daemon holds its lock this long before it loads
 * and listens, as one starting on a loaded machine does, so tests can follow a slow start.
 */
function testStartDelay(): Promise<void> {
  const ms = Number(process.env.FLEETCOM_TEST_START_DELAY_MS);
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
