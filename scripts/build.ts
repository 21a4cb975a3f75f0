// `bun scripts/build.ts [--target=bun-TARGET] [--bytecode-order=DIR] ENTRY OUTFILE`: compiles ENTRY
// into one executable as `bun build --compile` does (`make build`, `make dist`, the benchmarks'
// floors), with the schemas' checks generated as code (validator-precompile.ts) in place of
// src/validator-precompiled.ts, so they are in the bundle's bytecode and no process evaluates or
// parses them at run time. With --bytecode-order, the bytecode is laid out by the profiles in DIR
// (bytecode-order.ts), recorded there first from a build for this machine when DIR holds none.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorMessage } from "../src/errors.ts";
import { precompiledModule } from "../src/validator-precompile.ts";
import { RECORDED_STARTS, recordBytecodeOrder } from "./bytecode-order.ts";

const PRECOMPILED = resolve(import.meta.dir, "../src/validator-precompiled.ts");

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
const target = option("target");
const orderDir = option("bytecode-order");
const [entry, outfile] = args.filter((a) => !a.startsWith("--"));
if (!entry || !outfile) {
  console.error("usage: bun scripts/build.ts [--target=bun-TARGET] [--bytecode-order=DIR] ENTRY OUTFILE");
  process.exit(2);
}

const checks = await precompiledModule();
// --bytecode starts `--version` and `ls` about 2.5x faster (see the commit that added `dist`);
// esm because bytecode defaults to CommonJS, where top-level await does not build; splitting keeps
// each lazily imported command in its own chunk, so `--version` loads only its own few lines.
// The program reads none of the files `bun run` would take from wherever it is started: a
// repository's `.env` would reach every task's environment and a daemon started there, and its
// bunfig.toml's preload would run inside fleetcom (test/e2e/cli.test.ts). Each is also a file
// opened and parsed at every start.
const noAutoload = { autoloadDotenv: false, autoloadBunfig: false, autoloadTsconfig: false, autoloadPackageJson: false };
// JavaScriptCore's tier-up thresholds, scaled at start: nearly every function a command runs, runs
// a few times, and compiling it costs more than interpreting it (`run`, `ls`, `config`: 51-54 ms of
// CPU instead of 56-58; 10 and 1,000 measured the same). main.ts puts the normal policy back for a
// process still running a second later: the daemon, a dashboard, attach, `logs -f`.
const JIT_POLICY_AT_START = 10;

async function compile(out: string, options: { target?: string | undefined; bytecodeOrder?: string[] | undefined }): Promise<boolean> {
  const built = await Bun.build({
    entrypoints: [entry!],
    compile: {
      outfile: out,
      ...noAutoload,
      jitPolicy: JIT_POLICY_AT_START,
      ...(options.target && { target: options.target as Bun.Build.CompileTarget }),
      ...(options.bytecodeOrder && { bytecodeOrder: options.bytecodeOrder }),
    },
    minify: true,
    bytecode: true,
    format: "esm",
    splitting: true,
    plugins: [
      {
        name: "precompiled-checks",
        setup(build) {
          build.onLoad({ filter: /validator-precompiled\.ts$/ }, ({ path }) => (path === PRECOMPILED ? { contents: checks, loader: "js" } : undefined));
        },
      },
    ],
  });
  for (const log of built.logs) console.error(log);
  return built.success;
}

/**
 * The profiles in `dir`, recorded there first (from a build for this machine) when it holds none.
 * A failed recording is said and the build goes on without them: they only place bytecode.
 */
async function bytecodeOrder(dir: string): Promise<string[] | undefined> {
  const files = RECORDED_STARTS.map((start) => join(dir, `${start}.order`));
  if (files.every((file) => existsSync(file))) return files;
  const recorder = join(dir, "fleetcom-recorder");
  if (!(await compile(recorder, {}))) return undefined;
  try {
    return await recordBytecodeOrder(recorder, dir);
  } catch (error) {
    console.error(`build: no bytecode order (${errorMessage(error)}); building without one`);
    return undefined;
  }
}

const order = orderDir ? await bytecodeOrder(orderDir) : undefined;
if (!(await compile(outfile, { target, bytecodeOrder: order }))) process.exit(1);
