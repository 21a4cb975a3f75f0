// `fleetcom peek TASK`: the task's screen as plain text; `--follow` then streams what it prints,
// escape sequences stripped, like `tail -f`.
import { defineCommand } from "citty";
import { DaemonClient } from "./client.ts";
import { usageError } from "./errors.ts";
import type { TaskInfo } from "./messages.ts";

// CSI, OSC/DCS/APC strings, two-byte escapes, and lone carriage returns.
const TERMINAL_CONTROL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]P_^][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]|\r(?!\n)|[\x00-\x08\x0b-\x1f\x7f]/g;

export function plainText(output: string): string {
  return output.replace(/\r\n/g, "\n").replace(TERMINAL_CONTROL, "");
}

export default defineCommand({
  meta: { name: "peek", description: "Print a task's current screen as plain text" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    follow: { type: "boolean", alias: "f", description: "Keep printing new output" },
    lines: { type: "string", alias: "n", description: "Print the last N lines (scrollback included)" },
  },
  async run({ args }) {
    const lines = args.lines === undefined ? undefined : Number(args.lines);
    if (lines !== undefined && (!Number.isInteger(lines) || lines <= 0)) throw usageError(`--lines: expected a positive whole number, got '${args.lines}'`);
    const client = await DaemonClient.open();
    const only = lines ? { lines } : {};
    if (!args.follow) {
      const { text } = await client.request<{ text: string }>("peek", { task: args.task, ...only });
      process.stdout.write(text.length ? `${text}\n` : "");
      return client.close();
    }
    // The daemon sends the screen as text taken at an exact point, then everything printed after it.
    const decoder = new TextDecoder();
    const ended = new Promise<void>((resolve) => {
      client.handlers = {
        data: (bytes) => process.stdout.write(plainText(decoder.decode(bytes, { stream: true }))),
        attachEnd: () => resolve(),
        closed: () => resolve(),
      };
    });
    await client.request<TaskInfo>("follow", { task: args.task, ...only });
    await ended;
    client.close();
  },
});
