// `fleetcom rm TASK…`: remove finished tasks, sweeping what is left in their process groups; what
// left the group on its own is printed, as for kill.
import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";
import { escapeReport } from "./ui-format.ts";

export default defineCommand({
  meta: { name: "rm", description: "Remove finished tasks (sweeping what is left in their process group)" },
  args: {
    task: {
      type: "positional",
      valueHint: "TASK…",
      description: "One or more finished tasks: ids, exact names or commands, or unique prefixes",
      required: false,
    },
  },
  async run({ args }) {
    if (args._.length === 0) throw usageError("rm: name at least one TASK");
    const reply = await withDaemon((c) => c.request("rm", { tasks: args._.map((typed) => ({ typed })) }));
    for (const line of escapeReport("removed", reply.removed, reply.escaped)) console.log(line);
  },
});
