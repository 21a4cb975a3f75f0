// `fleetcom group TASK GROUP`: clearing a task's group is asked for (`--clear` or ""), never what
// a forgotten argument does.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";
import { printable } from "./text-printable.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "transport", plain: true },
  meta: { name: "group", description: "Put a task in a group (--clear takes it out)" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    group: { type: "positional", description: 'The group to put the task in, at most 64 characters ("" takes it out, as --clear does)', required: false },
    clear: { type: "boolean", description: "Take the task out of its group" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const words = args._.slice(1);
    if (args.clear && words.length > 0) throw usageError("group: give a GROUP or --clear, not both");
    if (!args.clear && words.length === 0) throw usageError(`group: give a GROUP, or --clear to take ${printable(args.task)} out of its group`);
    const group = args.clear ? null : words.join(" ").trim() || null;
    const info = await withDaemon(target, (c) => c.request("group", { task: { typed: args.task }, group }));
    console.log(info.group === null ? `task ${info.id} is in no group now` : `task ${info.id} is in group '${printable(info.group)}'`);
  },
});
