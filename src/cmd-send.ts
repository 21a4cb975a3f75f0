// `fleetcom send TASK TEXT…`: type into the task's PTY, as if at its keyboard.
import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";

export default defineCommand({
  meta: { name: "send", description: "Type TEXT into the task (Enter appended unless --no-enter)" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    text: { type: "positional", description: "TEXT…", required: false },
    enter: { type: "boolean", default: true, description: "Append Enter (--no-enter to leave it out)" },
  },
  async run({ args }) {
    const text = args._.slice(1).join(" ") + (args.enter ? "\r" : "");
    await withDaemon((c) => c.request("send", { task: args.task, text }));
  },
});
