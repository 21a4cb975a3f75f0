// The shapes of the commands people run in loops or often (`ls`, `run -- CMD`, `peek -n 20 api`,
// `kill -g web --yes`, `sessions`, `recover --list`, `daemon` as autostart runs it…) run without
// loading citty (kit-plain-args.ts plainArgs): they must get exactly the arguments citty would have parsed, and
// every other shape must still go through citty.
import { expect, test } from "bun:test";
import { type ArgsDef, type CommandDef, parseArgs } from "citty";
import { plainArgs } from "../../src/kit-plain-args.ts";
import { factsOf } from "../../src/kit-define.ts";
import { needsDaemonHereAnyway } from "../../src/client-early-start.ts";
import { checkFlags } from "../../src/kit-flags.ts";
import { SUBCOMMANDS } from "../../src/cli-commands.ts";
import { seededRandom } from "../harness/helpers.ts";

const NAMES = Object.keys(SUBCOMMANDS);
const DEFS = await Promise.all(NAMES.map((name) => SUBCOMMANDS[name]!()));
const PLAIN = NAMES.filter((_, i) => factsOf(DEFS[i]!).plain);

/** Each plain command's table: the one of what runs (`sessions` runs its default subcommand, `list`). */
async function tables(): Promise<Record<string, ArgsDef>> {
  const found: Record<string, ArgsDef> = {};
  for (const name of PLAIN) {
    const def = (await SUBCOMMANDS[name]!()) as CommandDef<ArgsDef>;
    const runs =
      def.run || typeof def.default !== "string" ? def : await (def.subCommands as Record<string, () => Promise<CommandDef<ArgsDef>>>)[def.default]!();
    found[name] = runs.args as ArgsDef;
  }
  return found;
}

const citty = (argv: string[], table: ArgsDef) => parseArgs(argv.slice(1), table as never);

test("the plain shapes get exactly the arguments citty would parse", async () => {
  const table = await tables();
  for (const argv of [
    ["ls"],
    ["ls", "--json"],
    ["attach"],
    ["attach", "3"],
    ["attach", "web server"],
    ["config"],
    ["config", "--json"],
    ["config", "--reload"],
    ["config", "--json", "--reload"],
    ["sessions"],
    ["sessions", "--json"],
    ["recover", "--list"],
    ["recover", "--list", "--json"],
    ["recover", "--latest", "--dry-run"],
    ["recover", "snap.json", "--dry-run", "--again"],
    ["load"],
    ["load", "demo", "--dry-run"],
    ["load", "--dry-run", "demo", "--json"],
    ["load", "demo", "--again"],
    ["load", "--no-json", "demo"],
    ["daemon"],
    ["daemon", "--scrollback", "10"],
    ["run", "--", "npm run dev"],
    ["run", "--", "sh", "-c", "exit 7"],
    ["run", "--name", "api", "--group", "web", "--", "make dev"],
    ["run", "--name=api", "--json", "--", "--looks-like-a-flag"],
    ["run", "--attach", "--detach-key", "ctrl-a", "--", "bash"],
    ["run", "--cwd", "/tmp", "--env", "K=V", "--", "env"],
    ["run", "--worktree", "--", "claude"],
    ["run", "echo"],
    ["peek", "3"],
    ["peek", "-n", "20", "api"],
    ["peek", "--lines=5", "-f", "api"],
    ["peek", "-H", "api"],
    ["logs", "-g", "web", "-f"],
    ["logs", "api", "-n", "0", "--follow"],
    ["send", "3", "hi"],
    ["send", "--no-enter", "3", "q"],
    ["kill", "3"],
    ["kill", "-g", "web", "--yes"],
    ["kill", "--all", "-y"],
    ["rm", "--force", "3"],
    ["rm", "-f", "-g", "web"],
    ["rerun", "3"],
    ["wait", "3", "--for", "exit"],
    ["status"],
    ["status", "--json"],
    ["save", "demo"],
    ["rename", "3", "api"],
    ["group", "3", "web"],
    ["tag", "3"],
  ]) {
    const parsed = plainArgs(argv, table[argv[0]!]);
    expect({ argv, parsed }).toEqual({ argv, parsed: citty(argv, table[argv[0]!]!) });
  }
});

test("other shapes go through citty", async () => {
  const table = await tables();
  for (const argv of [
    ["ls", "--jsn"],
    ["ls", "--json", "x"],
    ["attach", "--help"],
    ["attach", "1", "2"],
    ["config", "--json", "--json"],
    ["config", "--json=true"],
    ["sessions", "rm", "x"],
    ["sessions", "list", "--json"],
    ["load", "a", "b"],
    ["recover", "-l"],
    ["run", "--env", "A=1", "--env", "B=2", "--", "env"],
    ["run", "--name", "--", "x"],
    ["run", "--name="],
    ["kill", "-gy", "web"],
    ["peek", "-n", "-5", "api"],
    ["send", "--enter=false", "3", "q"],
  ]) {
    expect({ argv, parsed: plainArgs(argv, table[argv[0]!]) }).toEqual({ argv, parsed: null });
  }
  // Commands whose facts do not say plain always go through citty.
  expect(factsOf(await SUBCOMMANDS.grep!()).plain).toBeUndefined();
});

/** Words a command line of `name` could hold: its flags in every spelling, and words that are none of them. */
function vocabulary(table: ArgsDef): string[] {
  const words = ["--", "x", "3", "web server", "-", "--bogus", "-z", "--no-bogus", "a=b", ""];
  for (const [name, def] of Object.entries(table)) {
    if (def.type === "positional") continue;
    words.push(`--${name}`, `--${name}=`, `--${name}=v`, `--no-${name}`);
    const alias = "alias" in def ? def.alias : undefined;
    for (const a of alias === undefined ? [] : Array.isArray(alias) ? alias : [alias]) words.push(`-${a}`, `-${a}x`);
  }
  return words;
}

test("on 20,000 generated command lines, a plain answer is always citty's own", async () => {
  const table = await tables();
  const random = seededRandom(7);
  let plain = 0;
  for (let i = 0; i < 20_000; i++) {
    const command = PLAIN[Math.floor(random() * PLAIN.length)]!;
    const words = vocabulary(table[command]!);
    const argv = [command, ...Array.from({ length: Math.floor(random() * 6) }, () => words[Math.floor(random() * words.length)]!)];
    const parsed = plainArgs(argv, table[command]);
    if (parsed === null) continue;
    plain++;
    expect({ argv, parsed }).toEqual({ argv, parsed: citty(argv, table[command]!) });
  }
  // The generator reaches the plain path often enough to mean something.
  expect(plain).toBeGreaterThan(2_000);
});

test("the daemon is started before a command loads only for words that cannot be refused", async () => {
  const table = await tables();
  const early = [["ls"], ["run", "echo"], ["run", "npm", "run", "dev"], ["run", "make dev | tee log"]];
  for (const argv of early) {
    expect(needsDaemonHereAnyway(argv)).toBe(true);
    // The checks that refuse a line pass it: the flags' (citty's path), else the plain shape's own parse.
    const plain = plainArgs(argv, table[argv[0]!]);
    if (plain) expect(plain).toEqual(citty(argv, table[argv[0]!]!));
    else await checkFlags([argv[0]!], await SUBCOMMANDS[argv[0]!]!(), argv.slice(1));
  }
  // A flag (known or mistyped), a HOST:… word, another command or no command at all: the check first.
  for (const argv of [
    ["ls", "--json"],
    ["ls", "--bogus"],
    ["ls", "web"],
    ["run"],
    ["run", "--", "make"],
    ["run", "-x", "make"],
    ["run", "gpu1:make"],
    ["peek", "3"],
    [],
  ]) {
    expect(needsDaemonHereAnyway(argv)).toBe(false);
  }
});
