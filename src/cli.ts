// The command table and the runner: parse, dispatch to the command's module, and turn every failure
// into one `fleetcom: …` line with the documented exit code.
import { defineCommand, runCommand, type CommandDef } from "citty";
import { checkFlags, unknownFlagError } from "./cli-flags.ts";
import { EXIT, UserError, errorMessage } from "./errors.ts";
import { nearest } from "./text-nearest.ts";
import { printable } from "./text-printable.ts";
import { VERSION } from "./version.ts";

type Lazy = () => Promise<CommandDef<any>>;

// Each subcommand lives in its own cmd-<name>.ts and is imported only when it runs.
export const SUBCOMMANDS: Record<string, Lazy> = {
  daemon: () => import("./cmd-daemon.ts").then((m) => m.default),
  attach: () => import("./cmd-attach.ts").then((m) => m.default),
  run: () => import("./cmd-run.ts").then((m) => m.default),
  ls: () => import("./cmd-ls.ts").then((m) => m.default),
  peek: () => import("./cmd-peek.ts").then((m) => m.default),
  send: () => import("./cmd-send.ts").then((m) => m.default),
  wait: () => import("./cmd-wait.ts").then((m) => m.default),
  kill: () => import("./cmd-kill.ts").then((m) => m.default),
  rm: () => import("./cmd-rm.ts").then((m) => m.default),
  rerun: () => import("./cmd-rerun.ts").then((m) => m.default),
  rename: () => import("./cmd-rename.ts").then((m) => m.default),
  group: () => import("./cmd-group.ts").then((m) => m.default),
  tag: () => import("./cmd-tag.ts").then((m) => m.default),
  load: () => import("./cmd-load.ts").then((m) => m.default),
  sessions: () => import("./cmd-sessions.ts").then((m) => m.default),
  status: () => import("./cmd-status.ts").then((m) => m.default),
  save: () => import("./cmd-save.ts").then((m) => m.default),
  recover: () => import("./cmd-recover.ts").then((m) => m.default),
  completions: () => import("./cmd-completions.ts").then((m) => m.default),
};

export const root = defineCommand({
  meta: { name: "fleetcom", version: VERSION, description: "Supervise a fleet of terminal commands and AI coding agents" },
  args: {
    session: { type: "positional", required: false, description: "Load this saved session, then open the dashboard; without SESSION or COMMAND, fleetcom opens the dashboard" },
    version: { type: "boolean", alias: "V", description: "Print the version" },
    kill: { type: "boolean", description: "Stop the daemon and every task it owns" },
    foreground: { type: "boolean", description: "Run the supervisor in this process with the dashboard; its tasks end when you quit" },
  },
  subCommands: SUBCOMMANDS,
});

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
const ROOT_FLAGS = ["foreground", "kill", "version", "help"];

function checkRootFlag(argv: string[]): void {
  const first = argv[0];
  if (first === undefined || !first.startsWith("-") || first === "--foreground") return;
  if (first === "--kill" || first === "--version" || first === "-V") {
    throw new UserError(`${first} takes no arguments (see fleetcom --help)`, EXIT.usage);
  }
  const flag = first.split("=")[0]!;
  const near = flag.startsWith("--") ? nearest(flag.slice(2), ROOT_FLAGS) : null;
  throw unknownFlagError([], flag, near === null ? null : `--${near}`);
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
    if (argv.length === 1 && argv[0] === "--kill") {
      const { stopDaemon } = await import("./client-stop-daemon.ts");
      return await stopDaemon();
    }
    checkRootFlag(argv);
    const dashboard = dashboardRequest(argv);
    if (dashboard) {
      const { openDashboard } = await import("./client-open-dashboard.ts");
      const nearCommand = dashboard.session === undefined ? null : nearest(dashboard.session, Object.keys(SUBCOMMANDS));
      return await openDashboard({ ...dashboard, nearCommand });
    }
    const lazy = SUBCOMMANDS[argv[0]!];
    if (!lazy) throw new UserError(`unknown command '${argv[0]}' (see fleetcom --help)`, EXIT.usage);
    await checkFlags([argv[0]!], await lazy(), argv.slice(1));
    await runCommand(root, { rawArgs: argv });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    return reportError(error);
  }
}

// `fleetcom`, `fleetcom SESSION`, `fleetcom --foreground [SESSION]`: a word that is a subcommand is the
// subcommand, so a session named like one is loaded with `fleetcom load NAME`.
function dashboardRequest(argv: string[]): { session?: string; foreground?: boolean } | null {
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
