// `fleetcom ls`: the fleet as a table (with --verbose, the command that runs as well as the one typed),
// or as the documented JSON array.
import { defineCommand } from "./cli-define.ts";
import { withDaemon } from "./client.ts";
import { lsTable, terminalColumns, writeStdout } from "./ui-format.ts";

export default defineCommand({
  meta: { name: "ls", description: "List tasks" },
  args: {
    json: { type: "boolean", description: "Print a JSON array, one object per task" },
    verbose: { type: "boolean", alias: "v", description: "Add the COMMAND that runs (an agent's resume form) beside the TASK as typed" },
  },
  async run({ args }) {
    const tasks = await withDaemon((c) => c.request("ls"));
    const table = () => lsTable(tasks, process.env.HOME, Date.now(), terminalColumns(), Boolean(args.verbose));
    writeStdout(args.json ? `${JSON.stringify(tasks, null, 2)}\n` : table());
  },
});
