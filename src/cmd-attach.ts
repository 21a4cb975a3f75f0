import { defineCommand } from "citty";
import { attachTo, requireTerminal } from "./ui-attach.ts";

export default defineCommand({
  meta: { name: "attach", description: "Attach this terminal to TASK (Ctrl-\\ detaches); without TASK, pick one" },
  args: { task: { type: "positional", description: "TASK (id, name or unique prefix)", required: false } },
  async run({ args }) {
    if (args.task) {
      process.exitCode = await attachTo(args.task);
      return;
    }
    requireTerminal("attach");
    const { pickTask } = await import("./ui-picker-tasks.ts");
    const id = await pickTask();
    if (id !== null) process.exitCode = await attachTo(String(id));
  },
});
