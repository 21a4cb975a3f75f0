// The isolating sandbox every test and every benchmark runs fleetcom in: a temp root whose HOME,
// config and runtime directories are its own, so nothing touches (or reads) the user's. The test
// harness (helpers.ts) and bench/common.ts each add what only they want on top.
import { mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface IsolatedDirs {
  root: string;
  home: string;
  config: string;
  runtime: string;
  /** PATH, HOME, FLEETCOM_CONFIG_DIR, FLEETCOM_RUNTIME_DIR and SHELL; nothing else of the caller's environment. */
  env: Record<string, string>;
}

/** A fresh temp root (`<prefix>XXXXXX`) with an empty HOME; the config and runtime dirs are left for fleetcom to make. */
export function isolatedDirs(prefix: string): IsolatedDirs {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, "home");
  const config = join(root, "config");
  const runtime = join(root, "run");
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    FLEETCOM_CONFIG_DIR: config,
    FLEETCOM_RUNTIME_DIR: runtime,
    SHELL: "/bin/sh",
  };
  return { root, home, config, runtime, env };
}
