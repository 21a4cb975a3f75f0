import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet } from "../harness/fleet.ts";
import { makeSandbox, runFleetcom } from "../harness/helpers.ts";

describe("the command line", () => {
  // Removed by afterAll: bun test never fires process "exit" in its workers, so a sandbox left to it stayed in /tmp.
  const sandbox = makeSandbox();
  afterAll(() => sandbox.cleanup());
  const run = (args: string[]) => runFleetcom(args, { env: sandbox.env });

  test("--version and -V print the version and exit 0", async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await run([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  test("an unknown command is a usage error on one line", async () => {
    const r = await run(["no-such-command"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("fleetcom: unknown command 'no-such-command'");
  });

  test("an unknown subcommand is one plain line naming the command and what was meant, exit 2", async () => {
    const said: [string[], string][] = [
      [["notify", "tset"], "unknown subcommand 'tset' of notify (did you mean test? see fleetcom notify --help)"],
      [["service", "instal"], "unknown subcommand 'instal' of service (did you mean install? see fleetcom service --help)"],
      [["sessions", "zap"], "unknown subcommand 'zap' of sessions (expected list, rm, mv; see fleetcom sessions --help)"],
    ];
    for (const [args, line] of said) expect(await run(args)).toEqual({ code: 2, stdout: "", stderr: `fleetcom: ${line}\n` });
  });

  test("--host refuses a host not added and what no host runs, on one line with exit 2, starting nothing", async () => {
    const refusals: [string[], string][] = [
      [["--host", "gpu1", "ls"], "no host 'gpu1' (none added; fleetcom hosts add NAME)"],
      [["--host", "gpu1", "--foreground"], "--host does not apply to --foreground"],
      [["--host", "gpu1", "hosts"], "--host does not apply to 'hosts'"],
    ];
    for (const [args, said] of refusals) expect(await run(args)).toEqual({ code: 2, stdout: "", stderr: `fleetcom: ${said}\n` });
    expect(existsSync(join(sandbox.runtime, "daemon.lock"))).toBe(false);
  });

  test("--help works at the top and on subcommands", async () => {
    const top = await run(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("sessions");
    const sub = await run(["sessions", "-h"]);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain("fleetcom sessions");
  });
});

// `bun build --compile` makes a program that reads `.env` and `bunfig.toml` from wherever it is
// started, as `bun run` does: a repository's `.env` went into every task's environment and a daemon
// started there, and its bunfig.toml's preload ran inside fleetcom. From source, `bun src/main.ts`
// still does (the developer's own checkout), so this holds the binary and Deno.
const FROM_BUN_SOURCE = !process.env.FLEETCOM_TEST_BIN && process.env.FLEETCOM_TEST_RUNTIME !== "deno";

describe.skipIf(FROM_BUN_SOURCE)("started in a directory with a .env and a bunfig.toml", () => {
  test("fleetcom reads neither: no preload runs, and neither the daemon nor a task gets the .env's variables", async () => {
    const fleet = new Fleet();
    try {
      const project = join(fleet.sandbox.home, "project");
      mkdirSync(project);
      writeFileSync(join(project, ".env"), "PROJECT_SECRET=from-dotenv\nFLEETCOM_IDLE_SECONDS=1\n");
      writeFileSync(join(project, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
      writeFileSync(join(project, "preload.ts"), 'console.log("PRELOADED");\n');
      const version = await fleet.cli(["--version"], { cwd: project });
      expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
      const id = Number((await fleet.ok(["run", "--", "echo secret=[$PROJECT_SECRET]"], { cwd: project })).trim());
      await fleet.waitForExit(id);
      expect(await fleet.peek(id)).toContain("secret=[]");
      const daemon = fleet.daemonPid()!;
      expect(readFileSync(`/proc/${daemon}/environ`, "utf8")).not.toContain("PROJECT_SECRET");
    } finally {
      await fleet.stop();
    }
  });
});
