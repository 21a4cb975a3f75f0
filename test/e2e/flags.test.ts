// Flags and help (cli.md): every command refuses a flag it does not know, with exit 2, naming it and
// the nearest known one, before it does anything (a daemon is not even started); `--help` shows how a
// command is called (`run … -- CMD…`); help and every other output have no colour unless stdout is a
// terminal and NO_COLOR is unset.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ArgDef, CommandDef } from "citty";
import { SUBCOMMANDS } from "../../src/cli-commands.ts";
import { fleetcomArgv, makeSandbox, runFleetcom } from "../harness/helpers.ts";
import { PtyClient } from "../harness/fleet.ts";

const sandbox = makeSandbox();
const cli = (args: string[], env: Record<string, string> = {}) => runFleetcom(args, { env: { ...sandbox.env, ...env }, cwd: sandbox.home });
// No test here should start a daemon; one that did is stopped all the same.
afterAll(async () => {
  if (daemonStarted()) await cli(["--kill"]);
  sandbox.cleanup();
});
const daemonStarted = () => existsSync(join(sandbox.runtime, "default.sock")) || existsSync(join(sandbox.runtime, "daemon.lock"));

/** A plausible slip on a flag: its last two letters swapped (`--json` → `--jsno`). */
function slip(name: string): string {
  return `${name.slice(0, -2)}${name.at(-1)}${name.at(-2)}`;
}

/** Every command and subcommand by its path, with its own flags. */
async function commands(): Promise<{ path: string[]; flags: string[] }[]> {
  const out: { path: string[]; flags: string[] }[] = [];
  for (const [name, lazy] of Object.entries(SUBCOMMANDS)) {
    const def = await lazy();
    const subs = (def.subCommands ?? {}) as Record<string, () => Promise<CommandDef<any>>>;
    out.push({ path: [name], flags: longFlags(def.args as Record<string, ArgDef>) });
    for (const [subName, sub] of Object.entries(subs)) out.push({ path: [name, subName], flags: longFlags((await sub()).args as Record<string, ArgDef>) });
  }
  return out;
}

function longFlags(args: Record<string, ArgDef> = {}): string[] {
  return Object.entries(args)
    .filter(([, a]) => a.type !== "positional")
    .map(([n, a]) => (a.type === "boolean" && a.default === true ? `no-${n}` : n));
}

describe("an unknown flag", () => {
  test("the examples: run --nmae and ls --jsn are refused with the flag meant, and nothing starts", async () => {
    expect(await cli(["run", "--nmae", "typo", "--", "echo", "hi"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "fleetcom: run: unknown flag --nmae (did you mean --name?)\n",
    });
    expect(await cli(["ls", "--jsn"])).toEqual({ code: 2, stdout: "", stderr: "fleetcom: ls: unknown flag --jsn (did you mean --json?)\n" });
    expect(daemonStarted()).toBe(false);
  });

  test("every command and subcommand refuses one, naming it, with the nearest of its flags when there is one", async () => {
    const all = await commands();
    expect(all.length).toBeGreaterThan(20);
    for (const { path, flags } of all) {
      const typo = flags.find((f) => f.length >= 4);
      const given = typo ? `--${slip(typo)}` : "--frobnicate";
      // The flag comes before any operand, so it is the flag, not a missing argument, that is reported.
      const r = await cli([...path, given, "x"]);
      const why = typo ? `did you mean --${typo}?` : `see fleetcom ${path.join(" ")} --help`;
      expect({ path, ...r }).toEqual({ path, code: 2, stdout: "", stderr: `fleetcom: ${path.join(" ")}: unknown flag ${given} (${why})\n` });
    }
    expect(daemonStarted()).toBe(false);
  }, 120_000);

  test("a short flag, a flag after the operands and a flag with =value are checked too; after -- nothing is", async () => {
    expect((await cli(["peek", "-x", "1"])).stderr).toBe("fleetcom: peek: unknown flag -x (see fleetcom peek --help)\n");
    expect((await cli(["tag", "1", "--jsno"])).stderr).toBe("fleetcom: tag: unknown flag --jsno (see fleetcom tag --help)\n");
    expect((await cli(["ls", "--jsn=1"])).stderr).toBe("fleetcom: ls: unknown flag --jsn (did you mean --json?)\n");
    const r = await cli(["run", "ls", "-la"]);
    expect(r).toEqual({ code: 2, stdout: "", stderr: "fleetcom: run: unknown flag -la (a command goes after --: fleetcom run [OPTIONS] -- CMD…)\n" });
    expect(daemonStarted()).toBe(false);
  });

  test("at the top: an unknown root flag, a near one, and --kill with more words", async () => {
    expect(await cli(["--jsn"])).toEqual({ code: 2, stdout: "", stderr: "fleetcom: unknown flag --jsn (see fleetcom --help)\n" });
    expect(await cli(["--kil"])).toEqual({ code: 2, stdout: "", stderr: "fleetcom: unknown flag --kil (did you mean --kill?)\n" });
    expect(await cli(["--kill", "now"])).toEqual({ code: 2, stdout: "", stderr: "fleetcom: --kill takes no arguments (see fleetcom --help)\n" });
    expect((await cli(["atach"])).stderr).toStartWith("fleetcom: unknown command 'atach' (did you mean attach?), and no saved session by that name");
    expect(daemonStarted()).toBe(false);
  });

  test("a mistyped command with arguments, and the verbs of pm2 and tmux, get what fleetcom calls them", async () => {
    expect(await cli(["atach", "1"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "fleetcom: unknown command 'atach' (did you mean attach? see fleetcom --help)\n",
    });
    const said = async (args: string[]) => (await cli(args)).stderr;
    expect(await said(["stop", "api"])).toBe("fleetcom: unknown command 'stop' (did you mean kill? see fleetcom --help)\n");
    expect(await said(["start", "api"])).toBe(
      "fleetcom: unknown command 'start' (did you mean rerun (a finished task) or run (a new one)? see fleetcom --help)\n",
    );
    expect(await said(["list"])).toStartWith("fleetcom: unknown command 'list' (did you mean ls?), and no saved session by that name");
    expect(daemonStarted()).toBe(false);
  });

  test("a flag's value that looks like a cluster of short flags with _ is read or refused, never a crash (issue 38)", async () => {
    // The report's lines: citty read them with the root's (or hosts') table and said "internal error".
    expect(await cli(["hosts", "add", "hq", "--ssh", "-o_"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "fleetcom: hosts add: --ssh -o_: a destination (user@host or a Host of ~/.ssh/config), not an ssh option\n",
    });
    const pwned = join(sandbox.root, "PC_PWNED");
    expect((await cli(["hosts", "add", "hq", "--ssh", `-oProxyCommand=touch ${pwned}`])).code).toBe(2);
    expect(existsSync(pwned)).toBe(false);
    expect(await cli(["run", "--name", "--no-_", "--", "true"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "fleetcom: run: cannot read --no-_ (see fleetcom run --help)\n",
    });
    expect(daemonStarted()).toBe(false);
  });

  test("known flags in every form still work", async () => {
    const file = join(sandbox.home, "r.json");
    writeFileSync(file, JSON.stringify({ [sandbox.home]: ["true"] }));
    expect((await cli(["load", "--json", "--dry-run", file])).code).toBe(0);
    expect((await cli(["sessions", "--json"])).code).toBe(0);
    expect((await cli(["sessions", "list", "--json"])).code).toBe(0);
    expect((await cli(["recover", "--list", "--json"])).code).toBe(0);
    expect((await cli(["completions", "--list=sessions"])).code).toBe(0);
  });
});

describe("--help", () => {
  test("run --help shows the command after --; kill shows it takes several tasks; subcommands are named in full", async () => {
    const run = await cli(["run", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: fleetcom run [OPTIONS] -- CMD…\n");
    expect(run.stdout).toContain("several words are an argv, run exactly as given");
    expect((await cli(["kill", "--help"])).stdout).toContain("Usage: fleetcom kill [OPTIONS] TASK…\n");
    expect((await cli(["sessions", "rm", "--help"])).stdout).toContain("Usage: fleetcom sessions rm [OPTIONS] NAME\n");
    const peek = (await cli(["peek", "-h"])).stdout;
    expect(peek).not.toMatch(/TASK\s+TASK/);
    const top = (await cli(["--help"])).stdout;
    expect(top).toContain("Usage: fleetcom [OPTIONS] [SESSION]\n");
    expect(top).toContain("without SESSION or COMMAND, fleetcom opens the dashboard");
  });
});

describe("colour", () => {
  // What a user's shell has: a colour terminal named, NO_COLOR unset.
  const colourEnv = () => {
    const { NO_COLOR: _unset, ...env } = sandbox.env;
    return { ...env, TERM: "xterm-256color" };
  };

  test("none when stdout is not a terminal, in help, listings and errors alike", async () => {
    for (const args of [["--help"], ["run", "--help"], ["sessions", "rm", "-h"], ["sessions"], ["status"], ["ls", "--jsn"], ["nope-command"]]) {
      const r = await runFleetcom(args, { env: colourEnv(), cwd: sandbox.home });
      expect({ args, out: r.stdout + r.stderr }).toEqual({ args, out: expect.not.stringContaining("\x1b") });
    }
  });

  test("on a terminal, help is coloured unless NO_COLOR is set", async () => {
    const helpOn = async (env: Record<string, string>) => {
      const client = new PtyClient(fleetcomArgv(["run", "--help"]), env, sandbox.home, { cols: 200, rows: 40 });
      try {
        await client.proc.exited;
        await client.waitForOutput("-- CMD…");
        return client.output;
      } finally {
        client.kill();
      }
    };
    expect(await helpOn(colourEnv())).toContain("\x1b[1m");
    expect(await helpOn({ ...colourEnv(), NO_COLOR: "1" })).not.toContain("\x1b[");
    expect(await helpOn({ ...colourEnv(), NO_COLOR: "yes" })).not.toContain("\x1b[");
  });
});
