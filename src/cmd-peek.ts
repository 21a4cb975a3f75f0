// `fleetcom peek TASK`: the task's screen as plain text; `--follow` then streams what it prints,
// escape sequences (7-bit and C1) stripped, like `tail -f`. `--history` prints the whole history
// instead (scrollback and screen, wrapped lines joined; `--ansi` keeps its colours): the lines
// `grep` numbers and `logs` starts with. Whatever the daemon sends is shown through the sanitiser
// (another host's daemon may send escape sequences): only `attach` is raw.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { positiveWholeFlag } from "./kit-flags.ts";
import { DaemonClient } from "./client.ts";
import { printText, whenReaderGone } from "./client-stdout.ts";
import { usageError } from "./errors.ts";
import { PlainTextStream } from "./text-plain.ts";
import { printableText } from "./text-printable.ts";
import type { TaskRef } from "./wire-protocol.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "transport", plain: true },
  meta: { name: "peek", description: "Print a task's current screen as plain text" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    follow: { type: "boolean", alias: "f", description: "Keep printing new output" },
    lines: { type: "string", alias: "n", valueHint: "N", description: "Print the last N lines (scrollback included)" },
    history: { type: "boolean", alias: "H", description: "Print the whole history: scrollback and screen, wrapped lines joined" },
    ansi: { type: "boolean", description: "With --history: keep the colours" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const lines = positiveWholeFlag("--lines", args.lines);
    if (args.ansi && !args.history) throw usageError("peek: --ansi goes with --history");
    if (args.history && args.follow) throw usageError("peek: --history does not follow; fleetcom logs TASK --follow prints the history, then each new line");
    const client = await DaemonClient.open(target);
    // Closed on every path: an open socket would keep the process alive after an unknown TASK.
    try {
      if (args.history) await printHistory(client, { typed: args.task }, lines, args.ansi === true);
      else await peek(client, { typed: args.task }, lines, args.follow);
    } finally {
      client.close();
    }
  },
});

async function printHistory(client: DaemonClient, task: TaskRef, lines: number | undefined, ansi: boolean): Promise<void> {
  const { text, info } = await client.request("peek", { task, history: true, ansi, ...(lines ? { lines } : {}) });
  printText(printableText(text, { sgr: ansi }));
  // Said where a person reads it, never into a pipe: the history is the scrollback, the log all of it.
  if (process.stderr.isTTY) process.stderr.write(`fleetcom: the scrollback only: fleetcom logs ${info.id} prints all the task printed\n`);
}

async function peek(client: DaemonClient, task: TaskRef, lines: number | undefined, follow: boolean | undefined): Promise<void> {
  const only = lines ? { lines } : {};
  if (!follow) {
    const { text } = await client.request("peek", { task, ...only });
    printText(printableText(text));
    return;
  }
  // The daemon sends the screen as text taken at an exact point, then everything printed after it.
  const decoder = new TextDecoder();
  const plain = new PlainTextStream();
  let stopWatching = () => {};
  const ended = new Promise<void>((resolve) => {
    // A reader that goes (`peek -f api | grep -m1 GET`) ends it quietly (client-stdout.ts).
    stopWatching = whenReaderGone(resolve);
    client.handlers = {
      data: (bytes) => process.stdout.write(printableText(plain.push(decoder.decode(bytes, { stream: true })))),
      attachEnd: () => resolve(),
      closed: () => resolve(),
    };
  });
  await client.request("follow", { task, ...only });
  await ended;
  stopWatching();
}
