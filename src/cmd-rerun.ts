import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";

export default defineCommand({
  meta: { name: "rerun", description: "Rerun a finished task in place (same id, tag, group, name)" },
  args: { task: { type: "positional", description: "TASK", required: true } },
  async run({ args }) {
    await withDaemon((c) => c.request("rerun", { task: args.task }));
  },
});
