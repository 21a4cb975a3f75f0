// `fleetcom logs TASK [--follow] [--lines N]`: the task's history as lines, then, with --follow, each
// line as the task completes it (term-lines.ts), until it exits. Unlike `peek --follow` it is line
// based and safe to pipe into a file: every line once, in order, nothing a redraw drew over it.
// A reader so slow that megabytes wait for it is told how many lines it missed, and exits 1.
// A reader that goes (`logs -f api | grep -m1 ready`) ends it quietly, with status 0 (client-stdout.ts);
// `-n 0 -f` prints only the lines completed from now on, as `tail -n 0 -f` does.
import { defineCommand } from "citty";
import { wholeFlag } from "./cli-flags.ts";
import { DaemonClient } from "./client.ts";
import { whenReaderGone } from "./client-stdout.ts";
import { usageError } from "./errors.ts";
import type { TaskRef } from "./wire-protocol.ts";

export default defineCommand({
  meta: { name: "logs", description: "Print a task's history as lines; --follow keeps printing each new line" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    follow: { type: "boolean", alias: "f", description: "Keep printing each line the task completes, until it exits" },
    lines: { type: "string", alias: "n", valueHint: "N", description: "Start with the last N lines of the history (0 with --follow: only new lines)" },
  },
  async run({ args }) {
    const lines = wholeFlag("--lines", args.lines);
    if (lines === 0 && !args.follow) throw usageError("logs: --lines 0 prints only new lines, so it goes with --follow");
    const client = await DaemonClient.open();
    try {
      const missed = args.follow ? await follow(client, { typed: args.task }, lines) : await history(client, { typed: args.task }, lines);
      if (missed > 0) process.exitCode = 1;
    } finally {
      client.close();
    }
  },
});

async function history(client: DaemonClient, task: TaskRef, lines: number | undefined): Promise<number> {
  const { text } = await client.request("peek", { task, history: true, ...(lines === undefined ? {} : { lines }) });
  process.stdout.write(text.length ? `${text}\n` : "");
  return 0;
}

/** Returns how many lines the daemon could not send. */
async function follow(client: DaemonClient, task: TaskRef, lines: number | undefined): Promise<number> {
  let missed = 0;
  let stopWatching = () => {};
  const ended = new Promise<void>((resolve) => {
    stopWatching = whenReaderGone(resolve);
    client.handlers = {
      // The lines come as UTF-8 text already: written as they are, at the pace stdout takes them.
      data: (bytes) => {
        if (process.stdout.write(bytes)) return;
        client.pause();
        process.stdout.once("drain", () => client.resume());
      },
      skipped: (count) => {
        missed += count;
        process.stderr.write(`fleetcom: logs: ${count} line(s) skipped: this reader fell too far behind\n`);
      },
      attachEnd: () => resolve(),
      closed: () => resolve(),
    };
  });
  await client.request("logs", { task, ...(lines === undefined ? {} : { lines }) });
  await ended;
  stopWatching();
  return missed;
}
