#!/usr/bin/env bun
// Entry point. `--version` answers before anything else is imported, so it starts in milliseconds.
import { VERSION } from "./version.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  console.log(VERSION);
} else {
  // The binary starts with the JIT reluctant (scripts/build.ts): a command's code runs once. Whatever
  // still runs a second later (the daemon, a dashboard, attach, `logs -f`) gets the normal policy.
  // From source, an older Bun on PATH has no setJITPolicy, and nothing to put back.
  if (typeof Bun !== "undefined") setTimeout(() => Bun.unsafe.setJITPolicy?.(1), 1_000).unref();
  // A cold `ls` or `run` starts the daemon before anything else loads (client-early-start.ts); the
  // first word is looked at here so that every other line loads nothing for it.
  if (argv[0] === "ls" || argv[0] === "run") (await import("./client-early-start.ts")).startEarly(argv);
  const { runCli } = await import("./cli.ts");
  process.exitCode = await runCli(argv);
}
