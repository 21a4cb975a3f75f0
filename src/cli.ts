// The runner: parse, dispatch to the command's module (cli-commands.ts), and turn every failure into
// one `fleetcom: …` line with the documented exit code.
import type { ArgsDef, CommandDef } from "citty";
import { unknownFlagError } from "./kit-flags.ts";
import { root, SUBCOMMANDS, type Lazy } from "./cli-commands.ts";
import { routeCommand, takeHostFlag } from "./kit-host.ts";
import { factsOf } from "./kit-define.ts";
import { plainArgs } from "./kit-plain-args.ts";
import { needsDaemonHereAnyway } from "./client-early-start.ts";
import type { Target } from "./client-target.ts";
import { EXIT, UserError, errorMessage } from "./errors.ts";
import { nearest } from "./text-nearest.ts";
import { printable } from "./text-printable.ts";
import { VERSION } from "./version.ts";

function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf("--");
  const before = end === -1 ? argv : argv.slice(0, end);
  return before.includes("--help") || before.includes("-h");
}

// The command a `--help` is about: `fleetcom sessions rm --help` is about `sessions rm`.
async function helpFor(argv: string[]): Promise<{ path: string[]; def: CommandDef<any> }> {
  const name = argv.find((a) => !a.startsWith("-"));
  const lazy = name ? SUBCOMMANDS[name] : undefined;
  if (!lazy) return { path: [], def: root };
  const sub = await lazy();
  const rest = argv.slice(argv.indexOf(name!) + 1);
  const subSubs = typeof sub.subCommands === "object" ? (sub.subCommands as Record<string, Lazy>) : undefined;
  const nested = rest.find((a) => !a.startsWith("-"));
  if (subSubs && nested && subSubs[nested]) return { path: [name!, nested], def: await (subSubs[nested] as Lazy)() };
  return { path: [name!], def: sub };
}

// The root's flags are whole commands of their own (`--kill`, `--version`) or come first
// (`--foreground [SESSION]`); any other word starting with `-` in first place is a mistake.
const ROOT_FLAGS = ["foreground", "kill", "yes", "version", "help", "detach-key", "host"];
const YES = ["--yes", "-y"];

/** `--kill`, alone or with `--yes` (either order). */
function isKill(argv: string[]): boolean {
  return argv.includes("--kill") && argv.every((a) => a === "--kill" || YES.includes(a)) && argv.filter((a) => a === "--kill").length === 1;
}

function checkRootFlag(argv: string[]): void {
  const first = argv[0];
  if (first === undefined || !first.startsWith("-") || first === "--foreground") return;
  if (YES.includes(first)) throw new UserError(`${first} goes with --kill (see fleetcom --help)`, EXIT.usage);
  if (first === "--kill" || first === "--version" || first === "-V") {
    throw new UserError(`${first} takes no arguments (see fleetcom --help)`, EXIT.usage);
  }
  const flag = first.split("=")[0]!;
  const near = flag.startsWith("--") ? nearest(flag.slice(2), ROOT_FLAGS) : null;
  throw unknownFlagError([], flag, near === null ? null : `--${near}`);
}

// The verbs pm2, process-compose and tmux users type, and what fleetcom says instead: suggested
// rather than made aliases, so each thing keeps one name.
const OTHER_TOOLS_VERBS: Record<string, string> = {
  list: "ls",
  stop: "kill",
  start: "rerun (a finished task) or run (a new one)",
};

/** The command a mistyped or foreign word most likely meant, for "did you mean …?". */
function meantCommand(word: string): string | null {
  return Object.hasOwn(OTHER_TOOLS_VERBS, word) ? OTHER_TOOLS_VERBS[word]! : nearest(word, Object.keys(SUBCOMMANDS));
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    if (wantsHelp(argv)) {
      const { path, def } = await helpFor(argv);
      const { usageText } = await import("./ui-usage.ts");
      console.log(await usageText(path, def));
      return 0;
    }
    if (argv[0] === "--version" || argv[0] === "-V") {
      console.log(VERSION);
      return 0;
    }
    const { rest: words, host: named } = takeHostFlag(argv);
    const hostOfRoot = named ?? (process.env.FLEETCOM_HOST?.trim() || null);
    if (hostOfRoot !== null && isKill(words)) return await onHost(hostOfRoot, words, true);
    const dashboardHere = hostOfRoot !== null ? dashboardRequest(takeDetachKey(words).rest) : null;
    // --foreground runs a supervisor in this process: it has no host to go to.
    if (dashboardHere?.foreground && named !== null) throw new UserError("--host does not apply to --foreground", EXIT.usage);
    const dashboardTarget = dashboardHere && !dashboardHere.foreground ? await targetNamed(hostOfRoot!) : ({ kind: "here" } as const);
    argv = words;
    if (isKill(argv)) {
      const { stopDaemon } = await import("./client-stop-daemon.ts");
      const yes = argv.some((a) => YES.includes(a));
      const otherHosts = await addedHosts();
      // From a terminal, with tasks running, ask first (ui-confirm.ts); --yes or a script does not.
      const { askYesNo, wouldAsk } = await import("./ui-confirm.ts");
      const ask = !yes && wouldAsk() ? (running: number) => askYesNo(killQuestion(running, otherHosts)) : undefined;
      return await stopDaemon({ ask, otherHosts });
    }
    const { rest, detachKey } = takeDetachKey(argv);
    checkRootFlag(rest);
    const dashboard = dashboardRequest(rest);
    if (dashboard) {
      if (detachKey !== undefined) dashboard.detachKey = detachKey;
      const { openDashboard } = await import("./cmd-dashboard.ts");
      const nearCommand = dashboard.session === undefined ? null : meantCommand(dashboard.session);
      return await openDashboard({ ...dashboard, nearCommand, target: dashboardTarget });
    }
    const lazy = SUBCOMMANDS[argv[0]!];
    if (!lazy) {
      const meant = meantCommand(argv[0]!);
      throw new UserError(`unknown command '${argv[0]}' (${meant === null ? "" : `did you mean ${meant}? `}see fleetcom --help)`, EXIT.usage);
    }
    // Started beside this process's own loading, for a command bound for it whatever happens.
    if (hostOfRoot === null && needsDaemonHereAnyway(argv)) await (await import("./client-autostart.ts")).prestartDaemon();
    const def = await lazy();
    const hostsFile = argv.some((w) => w.includes(":")) ? await import("./client-hosts.ts") : null;
    const hostNames = () => hostsFile?.readHosts().map((h) => h.name) ?? [];
    const routed = routeCommand(argv[0]!, def, argv, { named, env: process.env.FLEETCOM_HOST, hostNames });
    argv = routed.words;
    if (routed.route.kind === "there") return await onHost(routed.route.host, argv, factsOf(def).quick === true);
    const target = routed.route.kind === "transport" ? await targetNamed(routed.route.host) : ({ kind: "here" } as const);
    const runs = factsOf(def).plain ? await plainRunner(def) : null;
    const plain = runs && plainArgs(argv, runs.args as ArgsDef | undefined);
    if (runs && plain && runs.run) {
      await runs.run({ args: plain as never, rawArgs: argv.slice(1), cmd: runs, target } as never);
      return typeof process.exitCode === "number" ? process.exitCode : 0;
    }
    const { dispatch } = await import("./cli-dispatch.ts");
    await dispatch(argv[0]!, def, argv.slice(1), target);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    return reportError(error);
  }
}

/** The names of the hosts added here (docs/remote.md); none without a `[hosts.…]` table. */
async function addedHosts(): Promise<string[]> {
  const { hostsMayBeAdded } = await import("./client-target.ts");
  return hostsMayBeAdded() ? (await import("./client-hosts.ts")).readHosts().map((h) => h.name) : [];
}

/** `--kill`'s question: with hosts added, whose tasks it leaves running, it says whose tasks it stops. */
function killQuestion(running: number, otherHosts: readonly string[]): string {
  const tasks = `${running} task${running === 1 ? "" : "s"}`;
  if (otherHosts.length === 0) return `stop ${tasks} and the daemon?`;
  return `stop this machine's ${tasks} and its daemon (the tasks on ${otherHosts.join(", ")} keep running)?`;
}

/** The command's connections go to that host's daemon, over ssh. */
async function targetNamed(name: string): Promise<Target> {
  const { findHost } = await import("./client-hosts.ts");
  return { kind: "host", host: findHost(name) };
}

/**
 * `--kill` and the commands that read or write the host's own files: the host's own fleetcom runs
 * them there, bounded until it answers (`quick`: the one-host bound, else a long one).
 */
async function onHost(name: string, words: string[], quick: boolean): Promise<number> {
  const [{ findHost }, { answerBoundMs, runOnHost }] = await Promise.all([import("./client-hosts.ts"), import("./client-host-command.ts")]);
  return await runOnHost(findHost(name), words, answerBoundMs(quick));
}

/** What a plain shape runs: the command itself, or its default subcommand (`sessions` is `sessions list`). */
async function plainRunner(def: CommandDef<any>): Promise<CommandDef<any>> {
  if (def.run || typeof def.default !== "string" || typeof def.subCommands !== "object") return def;
  return (def.subCommands as Record<string, Lazy>)[def.default]!();
}

/**
 * The dashboard's `--detach-key KEY` (or `--detach-key=KEY`), taken out of the words, wherever it
 * stands among them; a subcommand's own flag of that name is the subcommand's.
 */
function takeDetachKey(argv: string[]): { rest: string[]; detachKey?: string | undefined } {
  const word = argv.find((a) => !a.startsWith("-"));
  if (word !== undefined && SUBCOMMANDS[word] && argv[argv.indexOf(word) - 1] !== "--detach-key") return { rest: argv };
  const rest: string[] = [];
  let detachKey: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--detach-key=")) detachKey = a.slice("--detach-key=".length);
    else if (a === "--detach-key") {
      if (i + 1 >= argv.length) throw new UserError("--detach-key needs a KEY (e.g. ctrl-a)", EXIT.usage);
      detachKey = argv[++i];
    } else rest.push(a);
  }
  return { rest, detachKey };
}

// `fleetcom`, `fleetcom SESSION`, `fleetcom --foreground [SESSION]`: a word that is a subcommand is the
// subcommand, so a session named like one is loaded with `fleetcom load NAME`.
function dashboardRequest(argv: string[]): { session?: string | undefined; foreground?: boolean; detachKey?: string | undefined } | null {
  const foreground = argv[0] === "--foreground";
  const rest = foreground ? argv.slice(1) : argv;
  if (rest.length === 0) return { foreground };
  if (rest.length > 1 || rest[0]!.startsWith("-") || SUBCOMMANDS[rest[0]!]) {
    if (foreground) throw new UserError("--foreground takes at most one SESSION (see fleetcom --help)", EXIT.usage);
    return null;
  }
  return { session: rest[0], foreground };
}

// Every error message can carry what the user or a file typed (a TASK, a path, a command), so the one
// line is sanitised here, where it reaches the terminal, whatever built it.
function reportError(error: unknown): number {
  if (error instanceof UserError) {
    console.error(`fleetcom: ${printable(error.message)}`);
    return error.exitCode;
  }
  // citty raises CLIError for argument problems: a usage error, not a crash.
  if (error instanceof Error && error.name === "CLIError") {
    console.error(`fleetcom: ${printable(error.message)}`);
    return EXIT.usage;
  }
  console.error(`fleetcom: internal error: ${printable(errorMessage(error))}`);
  if (process.env.FLEETCOM_DEBUG) console.error(error);
  return EXIT.failure;
}
