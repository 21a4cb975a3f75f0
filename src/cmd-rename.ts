// `fleetcom rename TASK NAME`: names are what scripts and aliases send to (`send dev rs`), so none
// is lost by accident: clearing one is asked for (`--clear` or ""), a name another running task
// holds is refused with the holder named (`--force` moves it), and a name past 64 characters is
// refused, not cut (the daemon's checks).
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";
import { printable } from "./text-printable.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "transport", plain: true },
  meta: { name: "rename", description: "Set a task's display name (--clear removes it)" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    name: { type: "positional", description: 'The new display name, at most 64 characters ("" removes it, as --clear does)', required: false },
    clear: { type: "boolean", description: "Remove the task's display name" },
    force: { type: "boolean", description: "Take a name another running task holds (that task is left without one)" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const words = args._.slice(1);
    if (args.clear && words.length > 0) throw usageError("rename: give a NAME or --clear, not both");
    if (!args.clear && words.length === 0) throw usageError(`rename: give a NAME, or --clear to remove ${printable(args.task)}'s name`);
    const name = args.clear ? null : words.join(" ").trim() || null;
    const info = await withDaemon(target, (c) => c.request("rename", { task: { typed: args.task }, name, ...(args.force && { force: true }) }));
    console.log(info.name === null ? `task ${info.id} has no name now` : `task ${info.id} is now named '${printable(info.name)}'`);
  },
});
