import { defineCommand } from "./cli-define.ts";
import { withDaemon } from "./client.ts";

export default defineCommand({
  meta: { name: "tag", description: 'Toggle a task\'s "in use" tag' },
  args: { task: { type: "positional", description: "TASK", required: true } },
  async run({ args }) {
    const info = await withDaemon((c) => c.request("tag", { task: { typed: args.task } }));
    console.log(info.tagged ? `tagged ${info.id}` : `untagged ${info.id}`);
  },
});
