// `fleetcom rewind TASK N`: the task's working tree put back as it was at checkpoint N, in full or not at all.
import { defineCommand } from "./kit-define.ts";
import { rewindTask } from "./client-checkpoints.ts";
import { usageError } from "./errors.ts";
import { printable } from "./text-printable.ts";
import { writeStdout } from "./ui-format.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "there" },
  meta: { name: "rewind", description: "Put a task's files back as they were at checkpoint N (fleetcom checkpoints TASK); the conversation stays the agent's" },
  args: {
    task: { type: "positional", valueHint: "TASK", description: "The agent's task to take back to a checkpoint", required: true },
    n: { type: "positional", valueHint: "N", description: "The checkpoint's number, as fleetcom checkpoints lists it", required: true },
    "dry-run": { type: "boolean", description: "Say what would be restored and deleted; write nothing" },
    force: { type: "boolean", description: "Rewind even while the agent is working" },
  },
  async run({ args }) {
    if (!/^\d+$/.test(args.n)) throw usageError(`rewind: '${printable(args.n)}' is not a checkpoint number`);
    writeStdout(await rewindTask({ task: args.task, n: Number(args.n), dryRun: Boolean(args["dry-run"]), force: Boolean(args.force) }));
  },
});
