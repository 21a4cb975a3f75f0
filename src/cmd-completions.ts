// `fleetcom completions bash|zsh|fish`: print a completion script built from the command table
// itself, so a new command or flag is completed without touching this file. The scripts call
// `fleetcom completions --list sessions|tasks` for the names that change; that never starts a
// daemon, and prints nothing when there is none to ask.
import { defineCommand, type ArgDef, type CommandDef } from "citty";
import { completionScript, SHELLS, type CommandSpec, type FlagSpec, type Operand } from "./kit-completion-scripts.ts";
import { usageError, UserError } from "./errors.ts";
import { isOneOf } from "./kit-flags.ts";
import { label } from "./task-labels.ts";
import { isPrintable, printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import { selfCommand } from "./platform.ts";
import { printText } from "./client-stdout.ts";

// What a command's first positional argument is, by its name in the citty definition.
const POSITIONAL_OPERANDS: Record<string, Operand> = {
  task: "tasks",
  target: "sessions",
  name: "sessions",
  old: "sessions",
  file: "files",
  shell: "shells",
};
const FLAG_VALUE_OPERANDS: Record<string, Operand> = { cwd: "dirs" };
// `kill TASK…`, `rm TASK…` and `restart TASK…` take any number of tasks (docs/commands.md); citty declares only the first.
const REPEATED_OPERAND = new Set(["kill", "rm", "restart"]);
const AFTER_DASH_DASH: Record<string, Operand> = { run: "command" };
const HELP: FlagSpec = { long: "--help", short: "-h", takesValue: false, value: "none", description: "Show usage" };
const LISTS = ["sessions", "tasks"] as const;

/** The command table the scripts are built from (cli-commands.ts), handed in to keep this file a leaf. */
export interface CommandTable {
  root: CommandDef<any>;
  subcommands: Record<string, () => Promise<CommandDef<any>>>;
}

export const completionsCommand = (table: () => CommandTable) =>
  defineCommand({
    meta: { name: "completions", description: "Print a shell completion script (bash, zsh or fish)" },
    args: {
      shell: { type: "positional", required: false, description: `Shell: ${SHELLS.join(", ")}` },
      list: {
        type: "string",
        valueHint: "sessions|tasks",
        description: "Print saved session names or live task ids and names, one per line (used by the scripts)",
      },
    },
    async run({ args }) {
      if (args.list !== undefined) return printList(args.list);
      const shell = args.shell;
      if (!isOneOf(SHELLS, shell)) throw usageError(`completions: missing SHELL: ${SHELLS.join(", ")} (got '${printable(shell ?? "")}')`);
      const { root, subcommands } = table();
      // A hidden command (`bridge`, which only ssh runs) is not offered.
      const defs = await Promise.all(Object.entries(subcommands).map(async ([name, lazy]) => [name, await lazy()] as const));
      const shown = await Promise.all(defs.map(async ([name, def]) => ((await resolve(def.meta))?.hidden ? null : describeCommand(name, def))));
      const commands = shown.filter((c) => c !== null);
      const rootFlags = [...flagsOf(await resolve(root.args)), HELP];
      process.stdout.write(completionScript(shell, { program: selfCommand(), rootFlags, commands }));
    },
  });

async function resolve<T>(value: T | (() => T | Promise<T>) | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : value;
}

async function describeCommand(name: string, def: CommandDef<any>, parent = ""): Promise<CommandSpec> {
  const meta = await resolve(def.meta);
  const args = (await resolve(def.args)) ?? {};
  const subDefs = (await resolve(def.subCommands)) ?? {};
  const subcommands = await Promise.all(Object.entries(subDefs).map(async ([subName, sub]) => describeCommand(subName, (await resolve(sub))!, name)));
  const firstPositional = Object.entries(args).find(([, arg]) => (arg as ArgDef).type === "positional")?.[0];
  return {
    name,
    description: meta?.description ?? "",
    flags: [...flagsOf(args), HELP],
    subcommands,
    operand: (firstPositional && POSITIONAL_OPERANDS[firstPositional]) || "none",
    repeatsOperand: !parent && REPEATED_OPERAND.has(name),
    afterDashDash: (!parent && AFTER_DASH_DASH[name]) || "none",
  };
}

function flagsOf(args: Record<string, ArgDef> | undefined): FlagSpec[] {
  return Object.entries(args ?? {}).flatMap(([name, arg]): FlagSpec[] => {
    if (arg.type === "positional") return [];
    const alias = "alias" in arg ? [arg.alias].flat()[0] : undefined;
    // A boolean that defaults to true is only ever given as its negation (`send --no-enter`).
    const negated = arg.type === "boolean" && arg.default === true;
    return [
      {
        long: negated ? `--no-${name}` : `--${name}`,
        short: alias && !negated ? `-${alias}` : null,
        takesValue: arg.type !== "boolean",
        value: FLAG_VALUE_OPERANDS[name] ?? "none",
        description: arg.description ?? "",
      },
    ];
  });
}

async function printList(what: string): Promise<void> {
  if (what === "sessions") {
    const { listSessions } = await import("./recipe-sessions.ts");
    const names = listSessions()
      .filter((s) => !s.damaged)
      .map((s) => s.name);
    // A name that printable() would change (ESC, C1, a bidi override) is not offered: the shell would
    // show it raw, and it could not be typed back as shown.
    writeLines(names.filter(isPrintable));
  } else if (what === "tasks") {
    writeLines([...taskCandidates(await liveTasks()), ...(await hostsCandidates())]);
  } else {
    throw usageError(`completions: --list takes ${LISTS.join(" or ")} (got '${printable(what)}')`);
  }
}

/**
 * Each added host's tasks as `HOST:ID` and `HOST:NAME`, as `attach`, `peek` and the rest take them; a
 * host that does not answer within the hosts' bound is left out, silently: a completion prints no errors.
 */
async function hostsCandidates(): Promise<string[]> {
  const { hostsMayBeAdded } = await import("./client-target.ts");
  if (!hostsMayBeAdded()) return [];
  const { readHosts, askHost, hostAnswerBoundMs } = await import("./client-hosts.ts");
  const hosts = readHosts();
  const answers = await Promise.all(hosts.map((h) => askHost(h, (c) => c.request("ls"), hostAnswerBoundMs())));
  return answers.flatMap((answer, i) => {
    if (!("ok" in answer)) return [];
    const host = hosts[i]!.name;
    return taskCandidates(answer.ok).map((line) => {
      const [value, description] = line.split("\t");
      return `${host}:${value}\t${description!.replace(/^task (\d+)$/, `task ${host}:$1`)}`;
    });
  });
}

async function liveTasks(): Promise<TaskInfo[]> {
  const [{ withDaemon }, { HERE }] = await Promise.all([import("./client.ts"), import("./client-target.ts")]);
  try {
    return await withDaemon(HERE, (c) => c.request("ls"), { autostart: false, notices: false });
  } catch (error) {
    if (error instanceof UserError) return []; // no daemon: nothing to complete, and none is started
    throw error;
  }
}

/**
 * `value<TAB>description` lines: every id, every display name that can be shown as it is, and the
 * one-word command of an unnamed task (`claude`, also once it runs in its resume form) that no other
 * task was typed as, so what completes names that one task.
 */
export function taskCandidates(tasks: TaskInfo[]): string[] {
  const oneLine = (text: string) => printable(text.replace(/\s+/g, " "));
  const ids = tasks.map((t) => `${t.id}\t${oneLine(label(t))}`);
  const names = tasks.filter((t) => t.name !== null && isPrintable(t.name)).map((t) => `${t.name}\ttask ${t.id}`);
  // Digits alone would be an id, never this task (task-ref.ts).
  const oneWord = (t: TaskInfo) => t.name === null && /^\S+$/.test(t.typed.trim()) && !/^\d+$/.test(t.typed.trim()) && isPrintable(t.typed);
  const typedBy = (word: string) => tasks.filter((t) => t.typed.trim() === word || t.name === word).length;
  const words = tasks.filter((t) => oneWord(t) && typedBy(t.typed.trim()) === 1).map((t) => `${t.typed.trim()}\ttask ${t.id}`);
  return [...ids, ...names, ...words];
}

function writeLines(lines: string[]): void {
  printText(lines.join("\n"));
}
