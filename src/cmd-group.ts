import { defineCommand } from "./cli-define.ts";
import { withDaemon } from "./client.ts";

export default defineCommand({
  meta: { name: "group", description: "Assign a task to a group; no GROUP clears it" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    group: { type: "positional", description: "The group to put the task in", required: false },
  },
  async run({ args }) {
    const group = args._.slice(1).join(" ");
    await withDaemon((c) => c.request("group", { task: { typed: args.task }, group: group || null }));
  },
});
