// Which options an agent binary understands (agents.md, "Inject only what the binary understands").
// Launch flags such as `--session-id` make a binary that lacks them exit at once (the npm Grok CLI
// answers `error: unknown option '--session-id'`), so each is injected only when the binary's own
// `--help` lists it. The answer is kept per executable (resolved path, size and mtime: an upgrade
// asks again) in memory and in a 0600 file that outlives a reboot, so a build is asked once.
//
// A spawn never waits for the probe longer than its budget (a few hundred ms), and a real agent's
// first `--help` takes longer than that (docs/benchmarks.md), far longer under load. So the daemon asks
// ahead of the spawn: the known agents on its PATH when it starts, and every executable it has seen
// again whenever its build changes (`watch`). Only a build nobody could ask in time (installed or
// updated while no daemon ran, then spawned at once) goes uninstrumented, exactly as typed, while
// its probe finishes in the background for the next spawn. No answer is ever guessed: a build is
// instrumented only with what that build's own `--help` listed. Each probe runs in its own process
// group, killed after PROBE_LIMIT_MS.
import { accessSync, constants, mkdirSync, realpathSync, statSync } from "node:fs";
import { readRegularFile } from "./files.ts";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import { provenBuild } from "./agent-proven.ts";
import { errorMessage } from "./errors.ts";
import { definedEnvironment, type Env } from "./paths.ts";
import { killGroup, runInGroup } from "./platform.ts";

/** A probe still running after this long is killed and answers nothing; none waits for it, so it can be long. */
const PROBE_LIMIT_MS = 60_000;
/** A `--version` that takes longer is no answer: a person is waiting on `fleetcom agents`. */
const VERSION_LIMIT_MS = 10_000;
/** How often the executables seen are looked at for a new build: a realpath and a stat each. */
const RECHECK_MS = 5_000;
/** Help text beyond this is not read. */
const HELP_MAX_BYTES = 1024 * 1024;
/** Executables remembered in the cache file; the least recently probed go first. */
const CACHE_MAX_ENTRIES = 64;
const CACHE_VERSION = 1;

/** The executable a program word runs, as the task's shell would find it; null when there is none. */
export function resolveExecutable(program: string, env: Env, cwd: string): string | null {
  if (program.includes("/")) {
    const home = env.HOME ?? "";
    const path = program.startsWith("~/") ? join(home, program.slice(2)) : resolve(cwd, program);
    return isExecutable(path) ? path : null;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    const path = resolve(cwd, dir === "" ? "." : dir, program);
    if (isExecutable(path)) return path;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Every option word in a help text: `-c`, `--session-id`, `--settings` (from `-c, --config <k=v>`, `[--resume]`…). */
export function optionsInHelp(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s,[(|/])(--?[A-Za-z0-9][A-Za-z0-9_-]*)/g)) found.add(m[1]!);
  return found;
}

/** What identifies one build of an executable: its real path, size and modification time. */
interface Identity {
  path: string;
  size: number;
  mtimeMs: number;
}

interface CacheEntry extends Identity {
  options: string[];
  probedAt: number;
  /** What `--version` said, asked only by `fleetcom agents` (never by the daemon, never at a spawn); absent until then. */
  version?: string | null;
}

function identify(executable: string): Identity | null {
  try {
    const path = realpathSync(executable);
    const stat = statSync(path);
    return { path, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return null;
  }
}

function sameBuild(a: Identity, b: Identity): boolean {
  return a.path === b.path && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

function buildKey(identity: Identity): string {
  return `${identity.size}:${identity.mtimeMs}:${identity.path}`;
}

/** An executable as a spawn (or the daemon's start) found it, and the environment to ask it in. */
interface Sighting {
  env: Env;
  cwd: string;
}

export interface ProbeOptions {
  /** The cache file (0600, its directory made 0700 when missing); null keeps answers in memory only. */
  cacheFile: string | null;
  /** How long a spawn may wait for a probe. */
  budgetMs: number;
  log(message: string): void;
}

export class FlagProbe {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly running = new Map<string, Promise<CacheEntry | null>>();
  /** Kills each probe still running; all are called when the supervisor stops. */
  private readonly stoppers = new Set<() => void>();
  /** Every executable seen (by the path its program word resolved to), asked again when its build changes. */
  private readonly seen = new Map<string, Sighting>();
  /** Builds that gave no answer: the watch does not ask them again (a spawn still does). */
  private readonly silent = new Set<string>();
  private recheckTimer: ReturnType<typeof setInterval> | null = null;
  private loaded = false;

  constructor(private readonly options: ProbeOptions) {}

  /**
   * Makes sure the binary a program word runs has been asked, waiting at most the budget. Never
   * rejects: a binary that cannot be found or asked simply stays unknown.
   */
  async prepare(program: string, env: Env, cwd: string): Promise<void> {
    const executable = resolveExecutable(program, env, cwd);
    if (executable) this.see(executable, { env, cwd });
    const identity = executable && identify(executable);
    if (!executable || !identity || this.cached(identity)) return;
    const probe = this.ask(executable, identity, { env, cwd });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const budget = new Promise<void>((r) => (timer = setTimeout(r, this.options.budgetMs)));
    await Promise.race([probe, budget]);
    clearTimeout(timer);
  }

  /**
   * Asks, in the background, each program word that resolves in this environment, then keeps
   * looking at every executable seen (here and at spawns) and asks a new build as soon as it is
   * there: the daemon calls it at start with the known agents, so a spawn finds its answer ready.
   */
  watch(programs: readonly string[], env: Env, cwd: string): void {
    for (const program of programs) {
      const executable = resolveExecutable(program, env, cwd);
      if (executable) this.see(executable, { env, cwd });
    }
    this.recheckTimer ??= setInterval(() => this.recheck(), RECHECK_MS);
    this.recheckTimer.unref?.();
    this.recheck();
  }

  private see(executable: string, sighting: Sighting): void {
    this.seen.delete(executable);
    this.seen.set(executable, sighting);
    if (this.seen.size > CACHE_MAX_ENTRIES) this.seen.delete(this.seen.keys().next().value!);
  }

  /**
   * Asks the first executable seen whose build has no answer yet (one whose probe gave none is left
   * to its next spawn), then the next: one at a time, so a daemon starting on a loaded machine does
   * not also start every agent at once. Nothing once disposed.
   */
  private recheck(): void {
    if (this.recheckTimer === null || this.running.size > 0) return;
    for (const [executable, sighting] of this.seen) {
      const identity = identify(executable);
      if (!identity || this.silent.has(buildKey(identity)) || this.cached(identity)) continue;
      void this.ask(executable, identity, sighting).then(() => this.recheck());
      return;
    }
  }

  /** The probe of this build: the one running for its path, or a new one. */
  private ask(executable: string, identity: Identity, { env, cwd }: Sighting): Promise<CacheEntry | null> {
    let probe = this.running.get(identity.path);
    if (!probe) {
      probe = this.probe(executable, identity, env, cwd).finally(() => this.running.delete(identity.path));
      this.running.set(identity.path, probe);
    }
    return probe;
  }

  /**
   * The options the binary lists in its `--help`; until it has answered, those its installed
   * version is proven to take (agent-proven.ts); else null.
   */
  flagsOf(program: string, env: Env, cwd: string): ReadonlySet<string> | null {
    const executable = resolveExecutable(program, env, cwd);
    const identity = executable && identify(executable);
    const entry = identity ? this.cached(identity) : null;
    if (entry) return new Set(entry.options);
    const proven = executable ? provenBuild(executable) : null;
    if (proven === null) return null;
    this.options.log(`agent probe: ${executable} has not answered --help yet: ${proven.name} ${proven.version} is proven to take ${proven.options.join(", ")}`);
    return new Set(proven.options);
  }

  /**
   * The build's version as its `--version` says it (the first `N.N[.N…]` of the answer), asked once
   * per build and kept with its options: for `fleetcom agents`. Null when it gave none, undefined
   * when no executable answers to the word.
   */
  async versionOf(program: string, env: Env, cwd: string): Promise<string | null | undefined> {
    await this.prepare(program, env, cwd);
    const executable = resolveExecutable(program, env, cwd);
    const identity = executable && identify(executable);
    if (!executable || !identity) return undefined;
    const entry = this.cached(identity);
    if (entry?.version !== undefined) return entry.version;
    const text = await outputOf(executable, ["--version"], env, cwd, this.stoppers, VERSION_LIMIT_MS);
    const version = (text && /\d+\.\d+(?:\.\d+)*(?:-[0-9A-Za-z.]+)?/.exec(text)?.[0]) || null;
    if (entry) {
      entry.version = version;
      this.save();
    }
    return version;
  }

  private cached(identity: Identity): CacheEntry | null {
    this.load();
    const entry = this.entries.get(identity.path);
    return entry && sameBuild(entry, identity) ? entry : null;
  }

  private probe(executable: string, identity: Identity, env: Env, cwd: string): Promise<CacheEntry | null> {
    const began = performance.now();
    return outputOf(executable, ["--help"], env, cwd, this.stoppers).then((text) => {
      const ms = (performance.now() - began).toFixed(0);
      if (text === null) {
        this.silent.add(buildKey(identity));
        this.options.log(`agent probe: ${executable} --help gave no answer within ${PROBE_LIMIT_MS / 1000} s (${ms} ms)`);
        return null;
      }
      const entry: CacheEntry = { ...identity, options: [...optionsInHelp(text)].sort(), probedAt: Date.now() };
      this.entries.set(identity.path, entry);
      this.save();
      this.options.log(`agent probe: ${executable} --help in ${ms} ms: ${entry.options.length} option(s)`);
      return entry;
    });
  }

  /** Kills the probes still running: nothing the supervisor started outlives it. */
  dispose(): void {
    if (this.recheckTimer) clearInterval(this.recheckTimer);
    this.recheckTimer = null;
    for (const stop of this.stoppers) stop();
    this.stoppers.clear();
  }

  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (this.options.cacheFile === null) return;
    try {
      const doc = JSON.parse(readRegularFile(this.options.cacheFile, { maxBytes: 1024 * 1024 }).toString("utf8"));
      if (doc?.version !== CACHE_VERSION || !Array.isArray(doc.entries)) return;
      for (const e of doc.entries) if (isEntry(e)) this.entries.set(e.path, e);
    } catch {
      // no cache yet, or a damaged one: ask the binaries again
    }
  }

  private save(): void {
    if (this.options.cacheFile === null) return;
    const entries = [...this.entries.values()].sort((a, b) => b.probedAt - a.probedAt).slice(0, CACHE_MAX_ENTRIES);
    try {
      mkdirSync(dirname(this.options.cacheFile), { recursive: true, mode: 0o700 });
      writeFileAtomic(this.options.cacheFile, `${JSON.stringify({ version: CACHE_VERSION, entries }, null, 1)}\n`, 0o600);
    } catch (error) {
      this.options.log(`agent probe: cannot write ${this.options.cacheFile}: ${errorMessage(error)}`);
    }
  }
}

function isEntry(e: unknown): e is CacheEntry {
  const x = e as CacheEntry;
  return (
    typeof x?.path === "string" &&
    typeof x.size === "number" &&
    typeof x.mtimeMs === "number" &&
    typeof x.probedAt === "number" &&
    Array.isArray(x.options) &&
    x.options.every((o) => typeof o === "string") &&
    (x.version === undefined || x.version === null || typeof x.version === "string")
  );
}

/**
 * `<executable> --help` (or `--version`), stdout and stderr together (some print help on stderr, some
 * exit non-zero after it), in its own process group with no stdin; null when it cannot start or
 * outlives the limit, in which case it is killed. `stoppers` holds a way to kill each probe still running.
 */
function outputOf(executable: string, args: string[], env: Env, cwd: string, stoppers: Set<() => void>, limitMs = PROBE_LIMIT_MS): Promise<string | null> {
  const run = runInGroup([executable, ...args], isAbsolute(cwd) ? cwd : "/", { ...definedEnvironment(env), NO_COLOR: "1" }, HELP_MAX_BYTES);
  if (run.group === undefined) return run.output;
  const stop = () => killGroup(run.group!);
  stoppers.add(stop);
  return new Promise((resolveText) => {
    const done = (text: string | null) => {
      clearTimeout(limit);
      stoppers.delete(stop);
      resolveText(text);
    };
    const limit = setTimeout(() => {
      stop();
      done(null);
    }, limitMs);
    void run.output.then(done);
  });
}
