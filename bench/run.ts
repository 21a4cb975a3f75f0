// `make bench` (or `bun bench/run.ts [NAME…]`): runs fleetcom against tmux on the same work and
// prints one line per figure, as quality.md specifies:
//
//   name  fleetcom=<value>  tmux=<value>  ratio=<fleetcom/tmux>     (a comparison)
//   name  fleetcom=<value>  version=<value>  ratio=<…/version>      (against `fleetcom --version`)
//   name  fleetcom=<value>                                          (a report-only figure)
//
// Adding a benchmark is adding a file: `bench/<name>.ts` exporting `run(): Promise<string[]>`,
// which returns its lines. It takes what it needs from common.ts (sandbox, tmux, PTY clients,
// statistics, line formats) and registers every process it starts with onCleanup(); this runner
// tears all of it down after each benchmark, on error and on Ctrl-C. Every file here other than
// run.ts and common.ts is a benchmark; with no arguments they all run, in name order.
// Benchmarks measure the compiled binary (dist/fleetcom; `make build` first). Progress goes to
// stderr, figures to stdout. No timing is ever asserted: these are not tests.
import { readdirSync } from "node:fs";
import { ensureTmux, runCleanups } from "./common.ts";

const NOT_BENCHMARKS = new Set(["run", "common"]);

interface Benchmark {
  run(): Promise<string[]>;
}

function availableBenchmarks(): string[] {
  return readdirSync(import.meta.dir)
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.slice(0, -".ts".length))
    .filter((name) => !NOT_BENCHMARKS.has(name))
    .sort();
}

async function runBenchmark(name: string): Promise<boolean> {
  process.stderr.write(`# ${name}\n`);
  try {
    const benchmark = (await import(`./${name}.ts`)) as Benchmark;
    for (const line of await benchmark.run()) console.log(line);
    return true;
  } catch (error) {
    console.log(`${name}  failed: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  } finally {
    runCleanups();
  }
}

async function main(args: string[]): Promise<number> {
  const available = availableBenchmarks();
  const unknown = args.filter((name) => !available.includes(name));
  if (unknown.length) {
    console.error(`bench: unknown benchmark ${unknown.join(", ")}; available: ${available.join(", ")}`);
    return 2;
  }
  ensureTmux();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      runCleanups();
      process.exit(130);
    });
  }
  let failed = 0;
  for (const name of args.length ? args : available) if (!(await runBenchmark(name))) failed += 1;
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
