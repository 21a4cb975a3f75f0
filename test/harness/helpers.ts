// Shared test scaffolding: an isolated HOME/config/runtime per test and a way to run the real CLI.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { UserError } from "../../src/errors.ts";
import type { RecipeEntry } from "../../src/recipe.ts";
import { isolatedDirs } from "./sandbox.ts";

export const MAIN = resolve(import.meta.dir, "../../src/main.ts");

// FLEETCOM_TEST_RUNTIME=deno (`make test-deno`) runs every CLI and daemon the tests start under
// `deno run`, with one Deno cache for the whole run instead of one per sandboxed HOME.
const UNDER_DENO = process.env.FLEETCOM_TEST_RUNTIME === "deno";
const DENO_DIR = resolve(import.meta.dir, "../../.tools/deno-dir");

// FLEETCOM_TEST_BIN (`make test` sets it to the binary it has just built) runs the compiled CLI
// instead of the source: what users run, and each process starts without parsing the source.
const TEST_BIN = process.env.FLEETCOM_TEST_BIN ? resolve(process.env.FLEETCOM_TEST_BIN) : undefined;

/** argv that runs the CLI (`main`, this checkout's by default) under the runtime being tested. */
export function fleetcomArgv(args: string[], main = MAIN): string[] {
  if (TEST_BIN && main === MAIN && !UNDER_DENO) return [TEST_BIN, ...args];
  if (!UNDER_DENO) return [process.execPath, main, ...args];
  const deno = Bun.which("deno");
  if (!deno) throw new Error("FLEETCOM_TEST_RUNTIME=deno but no deno on PATH (make test-deno installs it)");
  return [deno, "run", "-A", main, ...args];
}

export interface Sandbox {
  root: string;
  home: string;
  config: string;
  runtime: string;
  env: Record<string, string>;
  cleanup(): void;
}

export function makeSandbox(): Sandbox {
  const { root, home, config, runtime, env: isolated } = isolatedDirs("fleetcom-test-");
  const env: Record<string, string> = {
    ...isolated,
    NO_COLOR: "1",
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    // Every fleetcom a test starts lives a second or two, and JavaScriptCore's optimising DFG tier
    // compiles code that runs only a few times on a background thread. It was arktype's scopes
    // (0.37 CPU-s per import with it, 0.19 without; make test 85 s -> 64 s); no process loads arktype
    // at start now, and it still pays: sessions-cli and save-load took 41.6 and 23.7 s without DFG,
    // 53.2 and 28.2 s with it (in turns, load ~9). Behaviour is the same; the benchmarks run the
    // binary as shipped.
    BUN_JSC_useDFGJIT: "0",
    // And its warm-up helper, a thread that makes heap pages resident ahead of a process's allocations
    // once it has allocated 64 blocks, which every fleetcom command does (docs/benchmarks.md): its
    // thread was 7.4% of the CPU while make test's tests ran on a 2-core VM (perf, whole machine);
    // without it they ran in 57.6, 61.4 and 64.8 s against 66.9, 61.9 and 66.0 s (in turns).
    BUN_JSC_useWarmUpMarkedBlocks: "0",
    // run, load and recover watch what they started for a failure at once (run_check, docs/commands.md);
    // a test that starts hundreds of tasks that keep running would pay the moment for each. The tests of
    // that check itself ask for it (test/e2e/failed-at-once.test.ts).
    FLEETCOM_RUN_CHECK: "0",
    ...(UNDER_DENO ? { DENO_DIR, DENO_NO_UPDATE_CHECK: "1" } : {}),
  };
  return { root, home, config, runtime, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs fleetcom to its end in `opts.env`: a sandbox's (makeSandbox), whose owner removes it. */
export async function runFleetcom(args: string[], opts: { env: Record<string, string>; cwd?: string; stdin?: string }): Promise<RunResult> {
  const proc = Bun.spawn(fleetcomArgv(args), {
    env: opts.env,
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/**
 * The PIDs of the processes (Linux, /proc) for which `matches` holds, given what `read` reads of one:
 * `read("environ")` is /proc/PID/environ. A process that ends while it is looked at is left out.
 */
export function processesWhere(matches: (read: (file: "environ" | "status" | "cmdline") => string) => boolean): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return matches((file) => readFileSync(`/proc/${pid}/${file}`, "latin1"));
      } catch {
        return false;
      }
    })
    .map(Number);
}

// A deterministic PRNG (mulberry32) for fuzz and fault tests: a failing seed reproduces.
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A recipe entry, group and name unset unless given. */
export function entry(dir: string, cmd: string, group: string | null = null, name: string | null = null): RecipeEntry {
  return { dir, cmd, group, name };
}

/** The UserError `fn` throws; anything else (or nothing) fails the test. */
export function thrown(fn: () => unknown): UserError {
  try {
    fn();
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error("expected a UserError");
}

// Words a shell would otherwise split, expand, glob, substitute or take as its own syntax.
export const SHELL_HOSTILE_WORDS = [
  "a b",
  "",
  "it's",
  '"q"',
  "$HOME",
  "`id`",
  "$(id)",
  "*",
  "back\\slash",
  "new\nline",
  "~",
  "=x",
  "a=b",
  "-n",
  "é",
  "#c",
  ";",
  "&",
  "|",
  "!",
  "{",
  "%s\\n",
];
