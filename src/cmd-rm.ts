import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";

export default defineCommand({
  meta: { name: "rm", description: "Remove finished tasks (sweeping what is left in their process group)" },
  args: { task: { type: "positional", valueHint: "TASK…", description: "One or more finished tasks: ids, exact names or commands, or unique prefixes", required: false } },
  async run({ args }) {
    if (args._.length === 0) throw usageError("rm: name at least one TASK");
    await withDaemon((c) => c.request("rm", { tasks: args._ }));
  },
});
