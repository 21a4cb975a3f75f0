// The command a line runs, down to its leaf (`hosts add`), and that leaf's arguments, read by citty's
// parser on the leaf's own table only. citty's runCommand reads every level's words with that level's
// table: the root and `hosts` do not declare `--name` or `--ssh`, so the word after them (`-a_b`,
// `-o_`) was read as a cluster of unknown one-letter flags, `_` among them, and `_: true` replaced
// the positionals ("true is not iterable"). Whatever the words, reading them either gives the
// arguments or refuses them as a usage error (test/unit/cli-dispatch.test.ts fuzzes every command).
import { type ArgDef, type ArgsDef, type CommandDef, parseArgs } from "citty";
import { checkFlags } from "./kit-flags.ts";
import type { Target } from "./client-target.ts";
import { usageError } from "./errors.ts";
import { nearest } from "./text-nearest.ts";
import { printable } from "./text-printable.ts";

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

async function resolved<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

export interface Leaf {
  /** `["hosts", "add"]` */
  path: string[];
  def: CommandDef<any>;
  /** The words after the leaf's own name. */
  words: string[];
}

/** The leaf `fleetcom <path…> words…` runs: a named subcommand, else the default one, else the command itself. */
export async function leafOf(path: string[], def: CommandDef<any>, words: string[]): Promise<Leaf> {
  const subs = (await resolved(def.subCommands)) as Record<string, Resolvable<CommandDef<any>>> | undefined;
  if (!subs || Object.keys(subs).length === 0) return { path, def, words };
  const at = words.findIndex((w) => !w.startsWith("-"));
  if (at !== -1 && words[at] !== undefined && Object.hasOwn(subs, words[at]!)) {
    return leafOf([...path, words[at]!], (await resolved(subs[words[at]!]))!, [...words.slice(0, at), ...words.slice(at + 1)]);
  }
  const word = at === -1 ? undefined : words[at];
  if (word !== undefined) throw unknownSubcommand(path, Object.keys(subs), word);
  const defaultName = await resolved(def.default as Resolvable<string> | undefined);
  if (defaultName && Object.hasOwn(subs, defaultName)) return leafOf([...path, defaultName], (await resolved(subs[defaultName]))!, words);
  throw usageError(`${path.join(" ")}: name a command: ${Object.keys(subs).join(", ")} (see fleetcom ${path.join(" ")} --help)`);
}

function unknownSubcommand(path: string[], names: string[], word: string) {
  const meant = nearest(word, names);
  const command = path.join(" ");
  return usageError(
    `unknown subcommand '${printable(word)}' of ${command} (${meant === null ? `expected ${names.join(", ")}; ` : `did you mean ${meant}? `}see fleetcom ${command} --help)`,
  );
}

/**
 * The leaf's arguments as citty gives them to `run`. A positional or a flag the leaf requires and
 * the line leaves out is refused with the command's usage line, not citty's capitalised sentence.
 */
export async function readArgs(leaf: Leaf): Promise<Record<string, unknown>> {
  const table = ((await resolved(leaf.def.args)) ?? {}) as ArgsDef;
  const missing = await missingArgument(leaf, table);
  if (missing) throw missing;
  return parsed(leaf, table);
}

/**
 * citty's parse of the leaf's words. Its lenient reading names any letter of a cluster, and takes
 * `--no-X` for a flag wherever it stands, even as another flag's value: a word that makes it `_`
 * (`--no-_`, `-x_y`) is refused here, naming the word.
 */
function parsed(leaf: Leaf, table: ArgsDef): Record<string, unknown> {
  const command = leaf.path.join(" ");
  try {
    const args = parseArgs(leaf.words, table as never) as Record<string, unknown>;
    if (Array.isArray(args._)) return args;
  } catch (error) {
    if (error instanceof Error && error.name === "CLIError") throw usageError(`${command}: ${error.message}`);
    if (!(error instanceof TypeError)) throw error;
  }
  const end = leaf.words.indexOf("--");
  const word = (end === -1 ? leaf.words : leaf.words.slice(0, end)).find((w) => /^-[^=]*_/.test(w));
  throw usageError(`${command}: cannot read ${word === undefined ? "the arguments" : printable(word)} (see fleetcom ${command} --help)`);
}

async function missingArgument(leaf: Leaf, table: ArgsDef) {
  const given = parsed(leaf, withoutRequired(table));
  const count = (given._ as unknown[]).length;
  const entries = Object.entries(table) as [string, ArgDef][];
  const positionals = entries.filter(([, a]) => a.type === "positional");
  const absent = positionals.slice(count).find(([, a]) => a.required !== false && a.default === undefined);
  const flag = entries.find(([name, a]) => a.type !== "positional" && a.required === true && given[name] === undefined);
  const missing = absent ? (absent[1].valueHint?.replace(/^\[(.*)\]$/, "$1") ?? absent[0].toUpperCase()) : flag ? `--${flag[0]}` : null;
  if (missing === null) return null;
  // Only on the way to this error: ui-usage brings picocolors, whose import asks process.stdout
  // whether it is a terminal, and building process.stdout loads node:tty and node's streams.
  const { usageLine } = await import("./ui-usage.ts");
  return usageError(`${leaf.path.join(" ")}: missing ${missing} (usage: ${await usageLine(leaf.path, leaf.def)})`);
}

function withoutRequired(table: ArgsDef): ArgsDef {
  return Object.fromEntries(Object.entries(table).map(([name, a]) => [name, { ...a, required: false }])) as ArgsDef;
}

/** The leaf `fleetcom <command> words…` runs and its arguments, its flags checked: a usage error or the arguments, whatever the words. */
export async function parseLine(command: string, def: CommandDef<any>, words: string[]): Promise<{ leaf: Leaf; args: Record<string, unknown> }> {
  await checkFlags([command], def, words);
  const leaf = await leafOf([command], def, words);
  return { leaf, args: await readArgs(leaf) };
}

/** Runs `fleetcom <command> words…`: its leaf with its arguments, and the daemon it talks to. */
export async function dispatch(command: string, def: CommandDef<any>, words: string[], target: Target): Promise<void> {
  const { leaf, args } = await parseLine(command, def, words);
  if (!leaf.def.run) throw usageError(`${leaf.path.join(" ")}: name a command (see fleetcom ${leaf.path.join(" ")} --help)`);
  await leaf.def.run({ args: args as never, rawArgs: leaf.words, cmd: leaf.def, target } as never);
}
