// `fleetcom diff TASK`: everything the task changed since it started, through git's own diff.
import { defineCommand } from "./kit-define.ts";
import { showDiff } from "./client-diff.ts";
import { usageError } from "./errors.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "there" },
  meta: { name: "diff", description: "Show what a task changed since it started: commits, staged, unstaged and new files (PATHs from the repository's top)" },
  args: {
    task: { type: "positional", valueHint: "TASK", description: "The task whose changes since its baseline to show", required: true },
    stat: { type: "boolean", description: "Only the files changed and their counts" },
    "name-only": { type: "boolean", description: "Only the names of the files changed" },
    base: { type: "string", valueHint: "BRANCH", description: "From the merge base with BRANCH (the whole branch's work) instead of the task's start" },
  },
  async run({ args }) {
    if (args.stat && args["name-only"]) throw usageError("diff: --stat and --name-only do not go together");
    const paths = args._.slice(1);
    process.exitCode = await showDiff({
      task: args.task,
      format: args.stat ? "stat" : args["name-only"] ? "name-only" : "patch",
      base: args.base ?? null,
      paths,
    });
  },
});
