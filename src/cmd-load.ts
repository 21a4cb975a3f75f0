// `fleetcom load [NAME|FILE] [--dry-run] [--json]`, and `fleetcom NAME`. A dry run starts no daemon: it
// parses the recipe, resolves it against the current directory and prints what would start, asking
// the running daemon, if any, which entries it already runs (the real load skips those). A real
// load resolves the same way here, in the client, so relative keys and `~` follow the user's shell,
// and the daemon only starts the resolved entries. A key naming an added host (`gpu1:/srv/train`)
// is started by that host's daemon (docs/remote.md).
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { usageError } from "./errors.ts";
import { currentDirectory } from "./text-path.ts";

export default defineCommand({
  facts: { remote: "there", plain: true },
  meta: { name: "load", description: "Start the processes of a saved session or recipe file" },
  args: {
    target: { type: "positional", required: false, description: "Session name, a path ending in .json, a Procfile or a process-compose.yaml" },
    "dry-run": { type: "boolean", description: "Print what would start (and what is already running); starts no daemon" },
    again: { type: "boolean", description: "Start entries a running task already stands for (skipped by default)" },
    format: { type: "string", valueHint: "FORMAT", description: "procfile | process-compose | fleetcom (default: by the file's name; docs/services.md)" },
    json: {
      type: "boolean",
      description:
        "Print JSON: with --dry-run {name, file, entries, dropped}, else {name, file, started, couldNotStart, skipped, alreadyRunning, finished, dropped}",
    },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    if (!args.target) {
      if (args["dry-run"]) throw usageError("load: --dry-run needs a session NAME or a FILE.json");
      const { pickAndLoad } = await import("./ui-picker-sessions.ts");
      return pickAndLoad("saved", args.json === true, { again: args.again, target });
    }
    const [{ loadRecipe }, { loadAndDescribe, printDryRun, recipeHosts, sayProblems }, { withRunningDaemon }] = await Promise.all([
      import("./recipe-sessions.ts"),
      import("./client-recipes.ts"),
      import("./client-running-daemon.ts"),
    ]);
    const recipe = await readTarget(args.target, args.format, recipeHosts, loadRecipe);
    sayProblems(recipe);
    if (args["dry-run"]) await withRunningDaemon(target, (client) => printDryRun(recipe, args.json, { again: args.again, client }));
    else console.log(await loadAndDescribe(recipe, args.json === true, { again: args.again, reportFailures: true, target }));
  },
});

/** A session, a recipe file, or a Procfile or process-compose.yaml made into one (recipe-imports.ts), whose warning goes to stderr. */
async function readTarget(
  target: string,
  format: string | undefined,
  hosts: typeof import("./client-recipes.ts").recipeHosts,
  load: typeof import("./recipe-sessions.ts").loadRecipe,
) {
  const imports = await import("./recipe-imports.ts");
  const kind = imports.importFormatOf(target, format);
  if (kind === null) return load(target, currentDirectory(), process.env, await hosts());
  const { warning, ...recipe } = await imports.loadImported(target, kind, currentDirectory());
  if (warning) process.stderr.write(`fleetcom: warning: ${warning}\n`);
  return recipe;
}
