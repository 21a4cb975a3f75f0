// Every flag a command is given must be one it declares. citty parses leniently and drops what it
// does not know, so `run --nmae x` started an unnamed task and `ls --jsn` printed the table: a typo
// silently did something else. This runs before citty, on the command's own citty definition, and
// refuses the first unknown flag with a usage error naming it and the nearest known one.
import type { ArgDef, ArgsDef, CommandDef } from "citty";
import { usageError, type UserError } from "./errors.ts";
import { nearest } from "./text-nearest.ts";
import { printable } from "./text-printable.ts";

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

async function resolved<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

interface UnknownFlag {
  flag: string;
  suggestion: string | null;
  /** A word that is no flag came before it (`run ls -la`). */
  afterOperand: boolean;
}

interface Flag {
  long: string;
  short: string | null;
  takesValue: boolean;
  /** `--no-NAME` turns it off. */
  negatable: boolean;
}

function flagsOf(args: ArgsDef): Flag[] {
  return Object.entries(args).flatMap(([name, arg]: [string, ArgDef]) => {
    if (arg.type === "positional") return [];
    const alias = "alias" in arg ? [arg.alias ?? []].flat().find((a) => a.length === 1) : undefined;
    return [{ long: name, short: alias ?? null, takesValue: arg.type !== "boolean", negatable: arg.type === "boolean" }];
  });
}

/**
 * The first word in `words` (up to `--`) that looks like a flag and is none of `flags`, with the
 * known flag it is nearest to; null when every flag is known. A flag that takes a value takes the
 * next word (unless given as `--flag=value`), so that word is never taken for a flag.
 */
export function unknownFlag(words: readonly string[], flags: readonly Flag[]): UnknownFlag | null {
  let afterOperand = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") break;
    if (!word.startsWith("-") || word === "-" || /^-\d/.test(word)) {
      afterOperand = true;
      continue;
    }
    let flag: Flag | undefined;
    let inlineValue = false;
    if (word.startsWith("--")) {
      const [name, ...value] = word.slice(2).split("=");
      inlineValue = value.length > 0;
      flag = flags.find((f) => f.long === name) ?? flags.find((f) => f.negatable && `no-${f.long}` === name && !inlineValue);
    } else {
      // `-n5` is -n with the value 5; `-fn 5` is -f, then -n taking the next word.
      const first = flags.find((f) => f.short === word[1]);
      if (first?.takesValue) flag = first;
      else flag = clusterLast([...word.slice(1)], flags);
      inlineValue = flag?.takesValue === true && flag === first && word.length > 2;
    }
    if (!flag) {
      const name = word.split("=")[0]!;
      const longs = flags.flatMap((f) => (f.negatable ? [f.long, `no-${f.long}`] : [f.long]));
      const near = name.startsWith("--") ? nearest(name.slice(2), longs) : null;
      return { flag: name, suggestion: near === null ? null : `--${near}`, afterOperand };
    }
    if (flag.takesValue && !inlineValue) i++;
  }
  return null;
}

/**
 * Refuses the first unknown flag of `fleetcom <path…> words…`, following subcommands (`sessions rm`)
 * and a default subcommand (`sessions` lists) the way citty dispatches them.
 */
export async function checkFlags(path: readonly string[], def: CommandDef<any>, words: readonly string[]): Promise<void> {
  const args = (await resolved(def.args)) ?? {};
  const subs = (await resolved(def.subCommands)) as Record<string, Resolvable<CommandDef<any>>> | undefined;
  let own = words;
  if (subs && Object.keys(subs).length > 0) {
    const at = subcommandIndex(words, flagsOf(args));
    const named = at === -1 ? undefined : subs[words[at]!];
    const defaultName = await resolved(def.default as Resolvable<string> | undefined);
    if (named) {
      own = words.slice(0, at);
      await checkFlags([...path, words[at]!], (await resolved(named))!, words.slice(at + 1));
    } else if (defaultName && subs[defaultName]) {
      const sub = (await resolved(subs[defaultName]))!;
      const merged = { ...args, ...((await resolved(sub.args)) ?? {}) };
      return refuse(path, unknownFlag(words, flagsOf(merged)), merged);
    }
  }
  refuse(path, unknownFlag(own, flagsOf(args)), args);
}

/** The last flag of a cluster of short flags, when every letter is one and only the last takes a value. */
function clusterLast(letters: string[], flags: readonly Flag[]): Flag | undefined {
  const found = letters.map((l) => flags.find((f) => f.short === l));
  if (found.some((f, i) => !f || (f.takesValue && i < found.length - 1))) return undefined;
  return found.at(-1);
}

function subcommandIndex(words: readonly string[], flags: Flag[]): number {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") return -1;
    if (!word.startsWith("-")) return i;
    const flag = flags.find((f) => `--${f.long}` === word || (f.short !== null && `-${f.short}` === word));
    if (flag?.takesValue) i++;
  }
  return -1;
}

// `run ls -la`: the flag belongs to the command, which goes after `--` (the operand's hint says so).
function refuse(path: readonly string[], found: UnknownFlag | null, args: ArgsDef): void {
  if (!found) return;
  const dashDash = Object.values(args).find((a) => a.type === "positional" && a.valueHint?.startsWith("-- "))?.valueHint;
  const hint = found.afterOperand && dashDash && !found.suggestion ? `a command goes after --: fleetcom ${path.join(" ")} [OPTIONS] ${dashDash}` : null;
  throw unknownFlagError(path, found.flag, found.suggestion, hint);
}

export function unknownFlagError(path: readonly string[], flag: string, suggestion: string | null, hint: string | null = null): UserError {
  const where = path.length ? `${path.join(" ")}: ` : "";
  const why = suggestion ? `did you mean ${suggestion}?` : (hint ?? `see fleetcom ${path.length ? `${path.join(" ")} ` : ""}--help`);
  return usageError(`${where}unknown flag ${printable(flag)} (${why})`);
}

/** A flag's value that must be a positive whole number (`--lines N`); absent stays absent. */
export function positiveWholeFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw usageError(`${flag}: expected a positive whole number, got '${raw}'`);
  return value;
}

/** A flag's value that must be a whole number, 0 included (`logs --lines 0`); absent stays absent. */
export function wholeFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  // Number("") is 0: an empty value is no number.
  const value = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isInteger(value) || value < 0) throw usageError(`${flag}: expected a whole number, got '${raw}'`);
  return value;
}

/** Where `--NAME` or `--NAME=VALUE` is among `words` (a command's words before `--`); -1 when it is not. */
export function flagIndex(words: readonly string[], name: string): number {
  return words.findIndex((w) => w === `--${name}` || w.startsWith(`--${name}=`));
}

/** Whether a word given on the command line is one of `options` (`wait --for`, `completions SHELL`): checked, then typed, never cast. */
export function isOneOf<T extends string>(options: readonly T[], word: string | undefined): word is T {
  return (options as readonly (string | undefined)[]).includes(word);
}

export { flagsOf, type Flag, type UnknownFlag };
