// The runner: parse, dispatch to the command's module (commands.ts), and turn every failure into
// one `fleetcom: …` line with the documented exit code.
import { runCommand, showUsage, type CommandDef } from "citty";
import { root, SUBCOMMANDS, type Lazy } from "./commands.ts";
import { EXIT, UserError, errorMessage } from "./errors.ts";
import { printable } from "./text-printable.ts";
import { VERSION } from "./version.ts";

function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf("--");
  const before = end === -1 ? argv : argv.slice(0, end);
  return before.includes("--help") || before.includes("-h");
}

async function resolveForHelp(argv: string[]): Promise<[CommandDef<any>, CommandDef<any>?]> {
  const name = argv.find((a) => !a.startsWith("-"));
  const lazy = name ? SUBCOMMANDS[name] : undefined;
  if (!lazy) return [root];
  const sub = await lazy();
  const rest = argv.slice(argv.indexOf(name!) + 1);
  const subSubs = typeof sub.subCommands === "object" ? (sub.subCommands as Record<string, Lazy>) : undefined;
  const nested = rest.find((a) => !a.startsWith("-"));
  if (subSubs && nested && subSubs[nested]) return [await (subSubs[nested] as Lazy)(), sub];
  return [sub, root];
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    if (wantsHelp(argv)) {
      await showUsage(...(await resolveForHelp(argv)));
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
    const dashboard = dashboardRequest(argv);
    if (dashboard) {
      const { openDashboard } = await import("./cmd-root.ts");
      return await openDashboard(dashboard);
    }
    if (!SUBCOMMANDS[argv[0]!]) {
      throw new UserError(`unknown command '${argv[0]}' (see fleetcom --help)`, EXIT.usage);
    }
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
