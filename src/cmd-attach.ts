import { defineCommand } from "citty";
import { attachTo } from "./attach.ts";
import { usageError } from "./errors.ts";

export default defineCommand({
  meta: { name: "attach", description: "Attach this terminal to TASK (Ctrl-\\ detaches)" },
  args: { task: { type: "positional", description: "TASK (id, name or unique prefix)", required: false } },
  async run({ args }) {
    if (!args.task) throw usageError("attach: name a TASK (the picker comes with the dashboard)");
    process.exitCode = await attachTo(args.task);
  },
});
