// The plain-argv fast path: the arguments citty would parse, read without loading citty, for the
// commands people run in loops, in the shapes that need no parsing.
import type { ArgDef, ArgsDef } from "citty";

/**
 * The arguments citty would parse, for the commands people run in loops or often (whose facts say
 * `plain`, kit-define.ts; the runner asks no other), in the shapes that need no parsing: each flag of the command's table at most once, as `--name`, `--name VALUE`,
 * `--name=VALUE`, its one-letter alias (`-g G`, `-y`) or `--no-name` for a boolean; then, in order,
 * its positionals (`attach TASK`, `peek -n 20 api`), and after `--` any words (`run -- npm run dev`).
 * They run without loading citty and node:util (a share of a one-shot client's CPU: docs/benchmarks.md
 * cli-ls, cmd-*); any other shape (a flag twice, `-gy`, a value that looks like a flag, an unknown
 * flag) goes through citty. `args` is the table of the command that runs (a default subcommand's for
 * `sessions`). test/unit/kit-plain-args.test.ts holds the answers to citty's own on generated shapes.
 */
export function plainArgs(argv: string[], args: ArgsDef | undefined): Record<string, unknown> | null {
  const [command, ...rest] = argv;
  if (command === undefined || !args) return null;
  const table = Object.entries(args) as [string, ArgDef][];
  const positionals = table.filter(([, def]) => def.type === "positional");
  if (positionals.some(([, def]) => def.default !== undefined)) return null;
  const parsed: Record<string, unknown> = {};
  const given = new Set<string>();
  const set = (name: string, def: ArgDef, value: unknown) => {
    parsed[name] = value;
    // citty also gives a dashed flag under its camelCase name (`dry-run` and `dryRun`), and under its alias.
    if (name.includes("-")) parsed[name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
    for (const alias of aliasesOf(def)) parsed[alias] = value;
  };
  const words: string[] = [];
  let afterDash: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (word === "--") {
      afterDash = rest.slice(i + 1);
      break;
    }
    if (!word.startsWith("-")) {
      words.push(word);
      continue;
    }
    const flag = flagOf(word, table);
    if (flag === null || given.has(flag.name)) return null;
    given.add(flag.name);
    if (flag.def.type === "boolean" && flag.value === undefined) {
      set(flag.name, flag.def, !flag.negated);
      continue;
    }
    if (flag.def.type !== "string" || flag.negated) return null;
    const value = flag.value ?? rest[++i];
    if (value === undefined || value === "" || value.startsWith("-")) return null;
    set(flag.name, flag.def, value);
  }
  // Before `--`, a word with no positional left for it is citty's to refuse or keep.
  if (words.length > positionals.length) return null;
  words.push(...afterDash);
  // A positional left out, or a flag it requires, that citty would refuse: citty says so.
  if (positionals.slice(words.length).some(([, def]) => def.required !== false)) return null;
  if (table.some(([name, def]) => def.type !== "positional" && def.required === true && !given.has(name))) return null;
  for (const [name, def] of table) if (def.type !== "positional" && def.default !== undefined && !given.has(name)) set(name, def, def.default);
  positionals.forEach(([name], index) => {
    if (index < words.length) parsed[name] = words[index];
  });
  parsed._ = words;
  return parsed;
}

function aliasesOf(def: ArgDef): string[] {
  const alias = "alias" in def ? def.alias : undefined;
  return alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
}

/** The table's flag a word names (`--name`, `--name=VALUE`, `--no-name`, `-a`), null for any other. */
function flagOf(word: string, table: [string, ArgDef][]): { name: string; def: ArgDef; value?: string; negated: boolean } | null {
  if (!word.startsWith("--")) {
    const letter = word.slice(1);
    if (letter.length !== 1) return null;
    const found = table.find(([, def]) => def.type !== "positional" && aliasesOf(def).includes(letter));
    return found ? { name: found[0], def: found[1], negated: false } : null;
  }
  const equals = word.indexOf("=");
  const name = equals === -1 ? word.slice(2) : word.slice(2, equals);
  const value = equals === -1 ? undefined : word.slice(equals + 1);
  const named = (key: string) => table.find(([n, def]) => n === key && def.type !== "positional");
  const found = named(name);
  if (found) return { name, def: found[1], ...(value !== undefined && { value }), negated: false };
  const negated = name.startsWith("no-") ? named(name.slice(3)) : undefined;
  if (negated?.[1].type === "boolean" && value === undefined) return { name: negated[0], def: negated[1], negated: true };
  return null;
}
