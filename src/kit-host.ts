// Which host's daemon a command goes to: `fleetcom --host NAME COMMAND`, else FLEETCOM_HOST, else a
// TASK written `HOST:TASK` (`gpu1:3`, `gpu1:api`); else this machine's. Each command says how it
// reaches a host in its own facts (kit-define.ts): those that speak the protocol go over the ssh
// transport (client-ssh.ts); those that read or write the host's own files or run git in the host's
// repositories run as a command of their own there, as `--kill` does (cli.ts).
import type { ArgsDef, CommandDef } from "citty";
import { type CommandFacts, factsOf } from "./kit-define.ts";
import { flagIndex } from "./kit-flags.ts";
import { EXIT, UserError, usageError } from "./errors.ts";
import { printable } from "./text-printable.ts";

/**
 * Whether the host's own fleetcom runs this command there: a command that reads or writes the host's
 * files, and `run --worktree` and `rm --worktree`, whose worktree is made in (or removed from) the
 * host's repository, never this machine's (`run`'s in its `--cwd`, else the login's home).
 */
function runsThere(facts: CommandFacts, words: string[]): boolean {
  if (facts.remote === "there") return true;
  const dash = words.indexOf("--");
  const flags = dash === -1 ? words : words.slice(0, dash);
  return facts.worktree === true && flagIndex(flags, "worktree") !== -1;
}

export type HostRoute = { kind: "here" } | { kind: "transport"; host: string } | { kind: "there"; host: string };

/** A leading `--host NAME` (or `--host=NAME`) taken out of the words. */
export function takeHostFlag(argv: string[]): { rest: string[]; host: string | null } {
  const first = argv[0];
  if (first?.startsWith("--host=")) return { rest: argv.slice(1), host: first.slice("--host=".length) };
  if (first !== "--host") return { rest: argv, host: null };
  if (argv.length < 2 || argv[1]!.startsWith("-")) throw usageError("--host needs a NAME (fleetcom hosts ls lists them)");
  return { rest: argv.slice(2), host: argv[1]! };
}

/**
 * Where `command` goes, and its words with any `HOST:` taken off its TASKs. `named`: the host
 * `--host` named (an error for a command no host can run); `env`: FLEETCOM_HOST (ignored by them);
 * `hostNames`: the added hosts, asked only when a TASK holds a colon.
 */
export function routeCommand(
  command: string,
  def: CommandDef<any> | null,
  words: string[],
  hosts: { named: string | null; env: string | undefined; hostNames: () => string[] },
): { route: HostRoute; words: string[] } {
  const given = hosts.named ?? (hosts.env?.trim() || null);
  const facts = factsOf(def);
  const remoteCapable = facts.remote !== undefined;
  if (hosts.named !== null && !remoteCapable) throw usageError(`--host does not apply to '${printable(command)}'`);
  const qualified = def && facts.tasks ? stripTaskHosts(facts.tasks, def, words, hosts.hostNames) : { words, host: null };
  if (qualified.host !== null && given !== null && qualified.host !== given)
    throw usageError(`a TASK names host '${qualified.host}' but ${hosts.named !== null ? "--host" : "FLEETCOM_HOST"} says '${printable(given)}'`);
  const host = qualified.host ?? (remoteCapable ? given : null);
  if (host === null) return { route: { kind: "here" }, words: qualified.words };
  return { route: runsThere(facts, qualified.words) ? { kind: "there", host } : { kind: "transport", host }, words: qualified.words };
}

/** The TASK words' `HOST:` prefixes (of added hosts only) taken off; every TASK of one command on the same host. */
function stripTaskHosts(
  where: NonNullable<CommandFacts["tasks"]>,
  def: CommandDef<any>,
  words: string[],
  hostNames: () => string[],
): { words: string[]; host: string | null } {
  const positions = taskIndexes(where, positionalIndexes(def, words));
  if (!positions.some((i) => words[i]!.includes(":"))) return { words, host: null };
  const known = new Set(hostNames());
  const out = [...words];
  const hostsSeen = new Set<string | null>();
  for (const i of positions) {
    const colon = words[i]!.indexOf(":");
    const host = colon > 0 ? words[i]!.slice(0, colon) : null;
    if (host !== null && known.has(host)) {
      out[i] = words[i]!.slice(colon + 1);
      hostsSeen.add(host);
    } else hostsSeen.add(null);
  }
  if (hostsSeen.size > 1) throw new UserError("one command's TASKs must all be on one host (run it once per host)", EXIT.usage);
  return { words: out, host: [...hostsSeen][0] ?? null };
}

function taskIndexes(where: NonNullable<CommandFacts["tasks"]>, positional: number[]): number[] {
  if (where === "first") return positional.slice(0, 1);
  if (where === "after-first") return positional.slice(1);
  return positional;
}

/** Indexes of the positional words after the command, skipping each flag's value (by the command's definition). */
function positionalIndexes(def: CommandDef<any>, words: string[]): number[] {
  const args = (def.args ?? {}) as ArgsDef;
  const takesValue = (flag: string) => {
    const name = flag.replace(/^-+/, "");
    return Object.entries(args).some(([key, arg]) => arg.type === "string" && (key === name || ("alias" in arg && [arg.alias].flat().includes(name))));
  };
  const found: number[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      for (let j = i + 1; j < words.length; j++) found.push(j);
      break;
    }
    if (word.startsWith("-") && word.length > 1) {
      if (!word.includes("=") && takesValue(word)) i++;
    } else found.push(i);
  }
  return found;
}
