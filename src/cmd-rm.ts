import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";

export default defineCommand({
  meta: { name: "rm", description: "Remove finished tasks (sweeping what is left in their process group)" },
  args: { task: { type: "positional", description: "TASK… (id, name or unique prefix)", required: false } },
  async run({ args }) {
    if (args._.length === 0) throw usageError("rm: name at least one TASK");
    await withDaemon((c) => c.request("rm", { tasks: args._ }));
  },
});
