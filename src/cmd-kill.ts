import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";

export default defineCommand({
  meta: { name: "kill", description: "TERM the task's process group, KILL after 2 s" },
  args: { task: { type: "positional", valueHint: "TASK…", description: "One or more tasks: ids, exact names or commands, or unique prefixes", required: false } },
  async run({ args }) {
    if (args._.length === 0) throw usageError("kill: name at least one TASK");
    await withDaemon((c) => c.request("kill", { tasks: args._ }));
  },
});
