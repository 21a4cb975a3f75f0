import { defineCommand } from "./cli-define.ts";
import { withDaemon } from "./client.ts";

export default defineCommand({
  meta: { name: "rename", description: "Set a task's display name; no NAME clears it" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    name: { type: "positional", description: "The new display name", required: false },
  },
  async run({ args }) {
    const name = args._.slice(1).join(" ");
    await withDaemon((c) => c.request("rename", { task: { typed: args.task }, name: name || null }));
  },
});
