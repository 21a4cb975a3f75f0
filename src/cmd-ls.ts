// `fleetcom ls`: the fleet as a table, or as the documented JSON array.
import { defineCommand } from "./cli-define.ts";
import { withDaemon } from "./client.ts";
import { lsTable, terminalColumns, writeStdout } from "./ui-format.ts";

export default defineCommand({
  meta: { name: "ls", description: "List tasks" },
  args: { json: { type: "boolean", description: "Print a JSON array, one object per task" } },
  async run({ args }) {
    const tasks = await withDaemon((c) => c.request("ls"));
    writeStdout(args.json ? `${JSON.stringify(tasks, null, 2)}\n` : lsTable(tasks, process.env.HOME, Date.now(), terminalColumns()));
  },
});
