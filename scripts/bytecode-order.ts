// Run at build time by scripts/build.ts (never by the program): runs a freshly built fleetcom through
// its most common starts, in a sandbox of its own, with BUN_BYTECODE_ORDER_OUT set, so that each
// process writes which functions it loaded. The build then lays the bytecode out in that order
// (Bun's compile.bytecodeOrder): what a start uses sits together at the front of the binary, and a
// start touches fewer of its pages. A profile from an older build still applies; a function it does
// not name is only placed later.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { READY_FD_VARIABLE } from "../src/paths.ts";

/** The starts recorded, most common first: the order the build gives Bun. */
export const RECORDED_STARTS = ["ls", "daemon", "run", "recover", "load", "sessions", "config"] as const;
export type RecordedStart = (typeof RECORDED_STARTS)[number];

const STEP_TIMEOUT_MS = 15_000;
const LISTEN_BOUND_MS = 15_000;

/**
 * Records one profile per start into `dir` (`NAME.order`) with the binary `bin`, and returns their
 * paths in RECORDED_STARTS order. Throws if a step fails; nothing is left running either way.
 */
export async function recordBytecodeOrder(bin: string, dir: string): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), "fleetcom-bytecode-order-"));
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(root, "home") };
  env.FLEETCOM_CONFIG_DIR = join(root, "config");
  env.FLEETCOM_RUNTIME_DIR = join(root, "run");
  for (const path of [env.HOME!, env.FLEETCOM_CONFIG_DIR, env.FLEETCOM_RUNTIME_DIR]) mkdirSync(path, { mode: 0o700 });
  const orderFile = (start: RecordedStart) => join(dir, `${start}.order`);
  const run = (args: string[], start?: RecordedStart) => {
    const result = Bun.spawnSync([bin, ...args], {
      env: start ? { ...env, BUN_BYTECODE_ORDER_OUT: orderFile(start) } : env,
      cwd: root,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      timeout: STEP_TIMEOUT_MS,
    });
    if (result.exitCode !== 0) throw new Error(`fleetcom ${args.join(" ")} failed (${result.exitCode}): ${result.stderr.toString().trim()}`);
  };
  // The daemon runs in the foreground here, so that its profile is its own: one autostarted by a
  // recording client would inherit the client's file and write over it. It says on its fd 3 that it
  // listens, as it tells an autostarting client (cmd-daemon.ts).
  const daemon = Bun.spawn([bin, "daemon"], {
    env: { ...env, BUN_BYTECODE_ORDER_OUT: orderFile("daemon"), [READY_FD_VARIABLE]: "3" },
    cwd: root,
    stdio: ["ignore", "ignore", "ignore", "pipe"],
  });
  try {
    // Until it listens, a client could start a second daemon (without the profile's variable), which this one would then lose to.
    const ready = Bun.file(daemon.stdio[3] as number)
      .stream()
      .getReader();
    let bound: ReturnType<typeof setTimeout> | undefined;
    const said = await Promise.race([ready.read(), new Promise<null>((late) => (bound = setTimeout(late, LISTEN_BOUND_MS, null)))]);
    clearTimeout(bound);
    void ready.cancel().catch(() => {});
    if (!said || said.done) throw new Error(`fleetcom daemon did not listen within ${LISTEN_BOUND_MS / 1000} s`);
    run(["run", "--", "sleep", "60"], "run");
    run(["ls"], "ls");
    run(["save", "recorded"]);
    run(["load", "recorded", "--dry-run"], "load");
    run(["sessions"], "sessions");
    run(["config"], "config");
    run(["--kill", "--yes"]);
    // A clean stop leaves the recovery snapshot `recover --list` reads; the daemon writes its profile as it exits.
    await daemon.exited;
    run(["recover", "--list"], "recover");
  } finally {
    if (daemon.exitCode === null) {
      try {
        run(["--kill", "--yes"]); // its tasks too
      } catch {}
      daemon.kill("SIGKILL");
    }
    rmSync(root, { recursive: true, force: true });
  }
  const files = RECORDED_STARTS.map(orderFile);
  for (const file of files) if (!readFileSync(file, "utf8").startsWith("v")) throw new Error(`${file}: not a bytecode order profile`);
  return files;
}
