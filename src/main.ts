#!/usr/bin/env bun
// Entry point. `--version` answers before anything else is imported, so it starts in milliseconds.
import { VERSION } from "./version.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  console.log(VERSION);
} else {
  const { runCli } = await import("./cli.ts");
  process.exitCode = await runCli(argv);
}
