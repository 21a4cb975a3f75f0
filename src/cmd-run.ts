// `fleetcom run -- CMD…`: start a task and print its id. One word after `--` is a shell command
// line, typed as the user would type it at a prompt; several words are an argv (what `sh -c 'exit 7'`
// reaches us as), stored as the shell-quoted join that runs exactly that argv (cli.md).
import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";
import { shellJoin } from "./text-shell.ts";
import { currentDirectory, resolvePath } from "./text-path.ts";

/** The command line to store for the words after `--`. */
export function commandLine(words: readonly string[]): string {
  return words.length === 1 ? words[0]!.trim() : shellJoin(words);
}

export default defineCommand({
  meta: { name: "run", description: "Start a task; prints its id" },
  args: {
    command: {
      type: "positional",
      required: false,
      valueHint: "-- CMD…",
      description: "One word is a shell command line (run -- 'make dev | tee log'); several words are an argv, run exactly as given (run -- sh -c 'exit 7')",
    },
    cwd: { type: "string", valueHint: "DIR", description: "Working directory (default: here)" },
    group: { type: "string", valueHint: "GROUP", description: "Group" },
    name: { type: "string", valueHint: "NAME", description: "Display name" },
    attach: { type: "boolean", description: "Attach to it at once" },
    "detach-key": { type: "string", valueHint: "KEY", description: "With --attach: detach with KEY instead of Ctrl-\\ (ctrl-a, ^]…)" },
    json: { type: "boolean", description: 'Print {"id": N}' },
  },
  async run({ args, rawArgs }) {
    const dash = rawArgs.indexOf("--");
    const words = dash === -1 ? args._ : rawArgs.slice(dash + 1);
    const command = words.length === 0 ? "" : commandLine(words);
    if (!command) throw usageError("run: give the command after --, e.g. fleetcom run -- npm run dev");
    if (args["detach-key"] !== undefined && !args.attach) throw usageError("run: --detach-key goes with --attach");
    // Checked before the task starts: a mistyped key must not leave a task running unattached.
    const settings = args.attach ? await import("./ui-attach-settings.ts") : null;
    const detachKey = settings?.chosenDetachKey(args["detach-key"]);
    const { id } = await withDaemon((c) =>
      c.request("run", {
        command,
        ...(args.cwd ? { cwd: resolvePath(currentDirectory(), args.cwd) } : {}),
        ...(args.group !== undefined ? { group: args.group } : {}),
        ...(args.name !== undefined ? { name: args.name } : {}),
      }),
    );
    console.log(args.json ? JSON.stringify({ id }) : String(id));
    if (args.attach) {
      const { attachTo } = await import("./ui-attach.ts");
      // A command quicker than the attach has already ended: its exit code, not its frozen screen.
      process.exitCode = await attachTo({ id }, { whenFinished: "end", detachKey, status: settings?.attachStatusSetting() });
    }
  },
});
