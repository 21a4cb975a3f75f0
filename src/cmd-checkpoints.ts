// `fleetcom checkpoints TASK`: the task's checkpoints, newest first: number, age, files changed, the prompt.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { checkpointsOf, checkpointsTable } from "./client-checkpoints.ts";
import { writeStdout } from "./ui-format.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "transport" },
  meta: { name: "checkpoints", description: "List a task's checkpoints (one at its start and one per prompt): number, age, files changed, the prompt" },
  args: {
    task: { type: "positional", valueHint: "TASK", description: "The agent's task whose checkpoints to list", required: true },
    json: { type: "boolean", description: "Print a JSON object: the task's id, the repository's top, whether paused, and the checkpoints" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const listed = await checkpointsOf(target, args.task);
    if (args.json)
      writeStdout(`${JSON.stringify({ task: listed.task.id, top: listed.top, paused: listed.paused, checkpoints: listed.checkpoints }, null, 2)}\n`);
    else writeStdout(checkpointsTable(listed));
  },
});
