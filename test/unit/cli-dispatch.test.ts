// Reading a command line never crashes: every command and subcommand, given generated words (its
// own flags in every spelling, short-flag clusters with `_`, words like `__proto__`), either gets
// its arguments or a usage error. citty's runCommand read `run --name -a_b` with the root's table
// and crashed with "true is not iterable" (issue 38, item 13).
import { expect, test } from "bun:test";
import type { ArgDef, ArgsDef, CommandDef } from "citty";
import { SUBCOMMANDS } from "../../src/cli-commands.ts";
import { parseLine } from "../../src/cli-dispatch.ts";
import { UserError } from "../../src/errors.ts";
import { seededRandom } from "../harness/helpers.ts";

const HOSTILE = [
  "-a_b",
  "-o_",
  "-_",
  "--_",
  "--_=1",
  "-__proto__",
  "--__proto__",
  "--constructor",
  "--toString=x",
  "-",
  "--=",
  "=",
  "---x",
  "-1",
  "-é",
  "--no-",
  "--no-_",
];

/** Every command by name with the tables of it and its subcommands, and the words its lines are made of. */
async function vocabularies(): Promise<{ name: string; def: CommandDef<any>; words: string[] }[]> {
  const out: { name: string; def: CommandDef<any>; words: string[] }[] = [];
  for (const [name, lazy] of Object.entries(SUBCOMMANDS)) {
    const def = await lazy();
    const subs = Object.entries((def.subCommands ?? {}) as Record<string, () => Promise<CommandDef<any>>>);
    const tables = [def.args as ArgsDef | undefined, ...(await Promise.all(subs.map(async ([, sub]) => (await sub()).args as ArgsDef | undefined)))];
    const words = ["--", "x", "3", "web server", "", ...HOSTILE, ...subs.map(([n]) => n), "nosuchsub"];
    for (const table of tables) for (const [flag, arg] of Object.entries(table ?? {}) as [string, ArgDef][]) words.push(...spellings(flag, arg));
    out.push({ name, def, words });
  }
  return out;
}

function spellings(flag: string, arg: ArgDef): string[] {
  if (arg.type === "positional") return [];
  const alias = "alias" in arg ? [arg.alias ?? []].flat() : [];
  return [`--${flag}`, `--${flag}=`, `--${flag}=v`, `--no-${flag}`, `--${flag}=-a_b`, ...alias.flatMap((a) => [`-${a}`, `-${a}_`, `-${a}x_y`])];
}

test("the lines the report found: run --name -a_b and hosts add --ssh -o_ are read, not crashed on", async () => {
  const run = await parseLine("run", await SUBCOMMANDS.run!(), ["--name", "-a_b", "--", "true"]);
  expect(run.args).toMatchObject({ name: "-a_b", command: "true", _: ["true"] });
  const add = await parseLine("hosts", await SUBCOMMANDS.hosts!(), ["add", "hq", "--ssh", "-o_"]);
  expect(add.leaf.path).toEqual(["hosts", "add"]);
  expect(add.args).toMatchObject({ name: "hq", ssh: "-o_" });
});

test("on 30,000 generated lines over every command, reading gives the arguments or a usage error, never a crash", async () => {
  const all = await vocabularies();
  const random = seededRandom(38_13);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  let read = 0;
  let refused = 0;
  for (let i = 0; i < 30_000; i++) {
    const { name, def, words } = pick(all);
    const line = Array.from({ length: Math.floor(random() * 7) }, () => pick(words));
    try {
      const { args } = await parseLine(name, def, line);
      expect({ line: [name, ...line], positionals: Array.isArray(args._) }).toEqual({ line: [name, ...line], positionals: true });
      read++;
    } catch (error) {
      expect({ line: [name, ...line], error: error instanceof UserError ? "usage" : String(error) }).toEqual({ line: [name, ...line], error: "usage" });
      expect((error as UserError).exitCode).toBe(2);
      refused++;
    }
  }
  // Both outcomes are reached often enough to mean something.
  expect(read).toBeGreaterThan(3_000);
  expect(refused).toBeGreaterThan(3_000);
});
