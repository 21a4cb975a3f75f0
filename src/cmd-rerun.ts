// `fleetcom rerun TASK`: run a finished task again in place. An agent resumes its conversation when
// its store holds one; the daemon's notice (a resume form that failed at once, so the program runs as
// typed) is printed.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "transport", plain: true },
  meta: { name: "rerun", description: "Rerun a finished task in place (same id, tag, group, name)" },
  args: { task: { type: "positional", description: "TASK", required: true } },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const reply = await withDaemon(target, (c) => c.request("rerun", { task: { typed: args.task } }));
    if (reply.notice) console.log(`task ${reply.id}: ${reply.notice}`);
  },
});
