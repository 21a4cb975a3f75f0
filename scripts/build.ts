// `bun scripts/build.ts [--target=bun-TARGET] ENTRY OUTFILE`: compiles ENTRY into one executable as
// `bun build --compile` does (`make build`, `make dist`, the benchmarks' floors), with the schemas'
// checks generated as code (validator-precompile.ts) in place of src/validator-precompiled.ts, so
// they are in the bundle's bytecode and no process evaluates or parses them at run time.
import { resolve } from "node:path";
import { precompiledModule } from "../src/validator-precompile.ts";

const PRECOMPILED = resolve(import.meta.dir, "../src/validator-precompiled.ts");

const args = process.argv.slice(2);
const target = args.find((a) => a.startsWith("--target="))?.slice("--target=".length);
const [entry, outfile] = args.filter((a) => !a.startsWith("--"));
if (!entry || !outfile) {
  console.error("usage: bun scripts/build.ts [--target=bun-TARGET] ENTRY OUTFILE");
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
const built = await Bun.build({
  entrypoints: [entry],
  compile: { outfile, ...noAutoload, jitPolicy: JIT_POLICY_AT_START, ...(target && { target: target as Bun.Build.CompileTarget }) },
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
if (!built.success) process.exit(1);
