// `fleetcom merge TASK`: a `run --worktree` task's branch merged into the main checkout's branch;
// refused, with nothing changed, rather than left half done.
import { defineCommand } from "./kit-define.ts";
import { mergeTask } from "./client-merge.ts";
import { writeStdout } from "./ui-format.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "there" },
  meta: { name: "merge", description: "Merge a --worktree task's branch into the main checkout's branch; refused with nothing changed when it cannot finish" },
  args: {
    task: { type: "positional", valueHint: "TASK", description: "The --worktree task whose branch to merge", required: true },
    into: { type: "string", valueHint: "BRANCH", description: "The branch to merge into (the main checkout must be on it); by default the one it is on" },
    squash: { type: "boolean", description: "One commit on the branch merged into, not a merge commit" },
    commit: { type: "string", valueHint: "MSG", description: "Commit the worktree's uncommitted changes with MSG first" },
  },
  async run({ args }) {
    const said = await mergeTask({ task: args.task, into: args.into ?? null, squash: Boolean(args.squash), commit: args.commit ?? null });
    writeStdout(`${said}\n`);
  },
});
