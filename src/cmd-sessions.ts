// `fleetcom sessions [--json]`, `sessions rm NAME`, `sessions mv OLD NEW`: the saved recipes, no
// daemon needed. Listing is the `list` default subcommand because citty would otherwise run a parent
// `run` after every subcommand too.
import { defineCommand } from "./kit-define.ts";
import { table, terminalColumns, writeStdout } from "./ui-format.ts";
import { age } from "./view-task.ts";
import { printable } from "./text-printable.ts";
import { UserError } from "./errors.ts";
import { sessionDir } from "./paths.ts";
import type { SessionInfo } from "./recipe-sessions.ts";

// The session directory's code loads the recipe schemas: only a run pays for it, not `--help`.
const sessions = () => import("./recipe-sessions.ts");

const list = defineCommand({
  meta: { name: "list", description: "List saved sessions: name, task count, directories, modified time" },
  args: { json: { type: "boolean", description: "Print {dir, sessions: [...]} as JSON" } },
  async run({ args }) {
    const [{ listSessions }, { recipeHosts }] = await Promise.all([sessions(), import("./client-recipes.ts")]);
    const listed = listSessions(process.env, process.cwd(), await recipeHosts());
    writeStdout(`${args.json ? JSON.stringify({ dir: sessionDir(), sessions: listed }) : formatTable(listed)}\n`);
  },
});

const rm = defineCommand({
  meta: { name: "rm", description: "Delete a saved session (on a terminal, asks y/N first, as the picker's Ctrl-D does)" },
  args: {
    name: { type: "positional", required: true, description: "Session name" },
    yes: { type: "boolean", alias: "y", description: "Do not ask" },
  },
  async run({ args }) {
    const { existingSession } = await sessions();
    const { confirmed } = await import("./ui-confirm.ts");
    if (!(await confirmed(`delete session '${printable(args.name.trim())}' (${printable(existingSession(args.name))})?`, Boolean(args.yes)))) {
      throw new UserError(`nothing deleted: session '${printable(args.name.trim())}' is kept`);
    }
    const file = (await sessions()).removeSession(args.name);
    console.log(`removed session '${printable(args.name.trim())}' (${printable(file)})`);
  },
});

const mv = defineCommand({
  meta: { name: "mv", description: "Rename a saved session (rewrites its name and file, refusing a collision)" },
  args: {
    old: { type: "positional", required: true, description: "Current session name" },
    new: { type: "positional", required: true, description: "New session name" },
  },
  async run({ args }) {
    const file = (await sessions()).renameSession(args.old, args.new);
    console.log(`renamed '${printable(args.old.trim())}' to '${printable(args.new.trim())}' (${printable(file)})`);
  },
});

export default defineCommand({
  facts: { remote: "there", quick: true, plain: true },
  meta: { name: "sessions", description: "List, remove or rename saved sessions" },
  args: { json: { type: "boolean", description: "Print JSON" } },
  default: "list",
  subCommands: { list: async () => list, rm: async () => rm, mv: async () => mv },
});

function formatTable(sessions: SessionInfo[]): string {
  if (sessions.length === 0) return `no saved sessions (in ${printable(sessionDir())})`;
  const rows = sessions.map((s) => [
    printable(s.name),
    s.damaged ? "-" : String(s.tasks),
    // An age, as `ls` shows a task's: a local clock time would cost every listing JavaScriptCore's
    // set-up of the time zone (a large share of the command: docs/benchmarks.md); --json keeps the exact UTC time.
    `${age(s.modified)} ago`,
    s.damaged ? `damaged: ${printable(s.damaged)}` : s.dirs.map(printable).join(", "),
  ]);
  // On a terminal the directories are cut first, then the name; piped, nothing is.
  return table(["NAME", "TASKS", "MODIFIED", "DIRECTORIES"], rows, terminalColumns(), [3, 0]).trimEnd();
}
