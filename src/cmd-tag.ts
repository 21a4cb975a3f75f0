// `fleetcom tag TASK`: the "in use" tag. A bare `tag` toggles, as the dashboard's `m` does; a script
// that must end in one state says which (`--on`, `--off`), so running it twice changes nothing.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { usageError } from "./errors.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "transport", plain: true },
  meta: { name: "tag", description: 'Toggle a task\'s "in use" tag, or set it with --on or --off' },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    on: { type: "boolean", description: "Tag it, whether or not it was" },
    off: { type: "boolean", description: "Untag it, whether or not it was" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    if (args.on && args.off) throw usageError("tag: give --on or --off, not both");
    const on = args.on ? { on: true } : args.off ? { on: false } : {};
    const info = await withDaemon(target, (c) => c.request("tag", { task: { typed: args.task }, ...on }));
    console.log(info.tagged ? `tagged ${info.id}` : `untagged ${info.id}`);
  },
});
