// `fleetcom kill TASK…`: TERM each task's process group, KILL after 2 s. Processes that left the
// group on their own (a daemon such as `codex app-server`) are out of its reach; the daemon lists
// them and they are printed, never signalled (docs/daemon.md).
import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";
import { escapeReport } from "./ui-format.ts";

export default defineCommand({
  meta: { name: "kill", description: "TERM the task's process group, KILL after 2 s" },
  args: {
    task: { type: "positional", valueHint: "TASK…", description: "One or more tasks: ids, exact names or commands, or unique prefixes", required: false },
  },
  async run({ args }) {
    if (args._.length === 0) throw usageError("kill: name at least one TASK");
    const reply = await withDaemon((c) => c.request("kill", { tasks: args._.map((typed) => ({ typed })) }));
    for (const line of escapeReport("killed", reply.killed, reply.escaped)) console.log(line);
  },
});
