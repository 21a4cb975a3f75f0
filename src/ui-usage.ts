// `--help`: what a command does, how it is called, its arguments, options and subcommands, from its
// citty definition. Rendered here rather than by citty, whose usage is coloured whenever NO_COLOR is
// not exactly "1" (into pipes too), repeats an argument's name as its description, and has no way to
// show `run`'s `-- CMD…`. Colour only on a terminal and never with NO_COLOR set (ui-render.ts).
//
// An argument's `valueHint` is shown as it is in the usage line (`TASK…`, `-- CMD…`); a flag's is the
// name of its value (`--cwd DIR`).
import type { ArgDef, CommandDef } from "citty";
import { paint } from "./ui-render.ts";

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

async function resolved<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

const TASK_HELP = "a task id, an exact name or command, or a prefix of a name or command that matches one task";

/** The help page of `fleetcom <path…>`. */
export async function usageText(path: readonly string[], def: CommandDef<any>): Promise<string> {
  const meta = (await resolved(def.meta)) ?? {};
  const args = Object.entries((await resolved(def.args)) ?? {}) as [string, ArgDef][];
  const subs = Object.entries(((await resolved(def.subCommands)) ?? {}) as Record<string, Resolvable<CommandDef<any>>>);
  const command = ["fleetcom", ...path].join(" ");
  const positionals = args.filter(([, a]) => a.type === "positional");
  const flags = args.filter(([, a]) => a.type !== "positional");

  const lines: string[] = [`${paint.bold(command)}${meta.description ? ` - ${meta.description}` : ""}`, ""];
  lines.push(`${paint.bold("Usage:")} ${usageOf(command, positionals)}`);
  if (subs.length) lines.push(`       ${command} COMMAND [OPTIONS] …`);

  if (positionals.length) {
    lines.push("", paint.bold("Arguments:"));
    lines.push(...columns(positionals.map(([name, a]): [string, string] => [operandName(name, a), describePositional(name, a)])));
  }
  lines.push("", paint.bold("Options:"));
  lines.push(...columns([...flags.map(([name, a]): [string, string] => [flagLabel(name, a), a.description ?? ""]), ["-h, --help", "Show this help"]]));
  if (subs.length) {
    lines.push("", paint.bold("Commands:"));
    const rows: [string, string][] = [];
    for (const [name, sub] of subs) {
      const subMeta = await resolved((await resolved(sub))?.meta);
      if (!subMeta?.hidden) rows.push([name, subMeta?.description ?? ""]);
    }
    lines.push(...columns(rows), "", `Use ${command} COMMAND --help for more about a command.`);
  }
  return lines.join("\n");
}

/** `fleetcom send [OPTIONS] TASK TEXT…`: how `fleetcom <path…>` is called, as its help's Usage line says. */
export async function usageLine(path: readonly string[], def: CommandDef<any>): Promise<string> {
  const args = Object.entries((await resolved(def.args)) ?? {}) as [string, ArgDef][];
  return usageOf(
    ["fleetcom", ...path].join(" "),
    args.filter(([, a]) => a.type === "positional"),
  );
}

function usageOf(command: string, positionals: [string, ArgDef][]): string {
  const operands = positionals.map(([name, a]) => operand(name, a)).join(" ");
  return `${command} [OPTIONS]${operands ? ` ${operands}` : ""}`;
}

function operand(name: string, arg: ArgDef): string {
  if (arg.valueHint) return arg.valueHint;
  return arg.required === false ? `[${name.toUpperCase()}]` : name.toUpperCase();
}

function operandName(name: string, arg: ArgDef): string {
  return (arg.valueHint ?? name.toUpperCase()).replace(/^\[(.*)\]$/, "$1");
}

// A description that only repeats the name says nothing: a TASK is explained, anything else left bare.
function describePositional(name: string, arg: ArgDef): string {
  const text = arg.description ?? "";
  const bare = text.replace(/…/g, "").trim().toUpperCase() === name.toUpperCase();
  if (name === "task" && (bare || text === "")) return TASK_HELP;
  return bare ? "" : text;
}

function flagLabel(name: string, arg: ArgDef): string {
  // A boolean that defaults to true is only ever given as its negation (`send --no-enter`).
  if (arg.type === "boolean" && arg.default === true) return `--no-${name}`;
  const short = "alias" in arg ? [arg.alias ?? []].flat().find((a) => a.length === 1) : undefined;
  // A boolean with a value hint takes an optional value, given after `=` (`--worktree[=BRANCH]`).
  const optional = arg.type === "boolean" && arg.valueHint ? `[=${arg.valueHint.replace(/^\[(.*)\]$/, "$1")}]` : "";
  const value = arg.type === "boolean" ? optional : ` ${arg.valueHint ?? name.toUpperCase()}`;
  return `${short ? `-${short}, ` : ""}--${name}${value}`;
}

function columns(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${paint.cyan(left.padEnd(width))}  ${right}`.trimEnd());
}
