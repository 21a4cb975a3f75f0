// `fleetcom logs TASK… [--follow] [--lines N] [--since T] [--until T] [-t]`, `logs -g G`, `logs --all`:
// a task's log (everything it printed, kept on disk up to log_max: docs/logs.md) as lines,
// then, with --follow, each new line as the log's writer cuts it (daemon-logs.ts), until it exits; with
// no log kept (history = false), the scrollback and each line the terminal completes (term-lines.ts). Unlike
// `peek --follow` it is line based and safe to pipe into a file: every line once, in order, nothing a
// redraw drew over it. Several tasks (named, a group, all) are printed as `pm2 logs` does, each line
// after its task's id and label (`3 api | GET /`), and followed until every one has exited.
// A reader so slow that megabytes wait for it is told how many lines it missed, and exits 1.
// A reader that goes (`logs -f api | grep -m1 ready`) ends it quietly, with status 0 (client-stdout.ts);
// `-n 0 -f` prints only the lines completed from now on, as `tail -n 0 -f` does. Every line goes
// through the sanitiser: another host's daemon may send escape sequences.
// `--follow` ends with the task's exit code (of several, the first non-zero), as `wait --for exit`
// does; a daemon that stops under it is said in a line, exit 3.
import { defineCommand } from "./kit-define.ts";
import { wholeFlag } from "./kit-flags.ts";
import { selection, tasksOf } from "./client-select.ts";
import { DaemonClient } from "./client.ts";
import { OpenSlots } from "./client-open-slots.ts";
import { hostOf, type Target, targetIn } from "./client-target.ts";
import { printText, whenReaderGone } from "./client-stdout.ts";
import { EXIT, usageError } from "./errors.ts";
import { exitCodeOf } from "./task-exit.ts";
import { label } from "./task-labels.ts";
import { parseLogTime } from "./recipe-log.ts";
import { resolveTaskRef } from "./task-ref.ts";
import { printable, printableText } from "./text-printable.ts";
import { cut, textWidth } from "./text-width.ts";
import type { AttachEnd, OpArgs, TaskInfo, TaskRef } from "./wire-protocol.ts";

/** The widest label a prefix shows: the line itself is what is read. */
const PREFIX_LABEL_COLUMNS = 20;

export default defineCommand({
  facts: { tasks: "first", remote: "transport", plain: true },
  meta: {
    name: "logs",
    description:
      "Print everything a task printed, kept on disk beyond the scrollback up to log_max per task (config.toml, default 100M; the oldest part goes first; none with history = false); --follow keeps printing each new line",
  },
  args: {
    task: { type: "positional", valueHint: "TASK…", description: "One or more tasks (several: each line after its task)", required: false },
    group: { type: "string", alias: "g", valueHint: "G", description: "Every task of group G, each line after its task" },
    all: { type: "boolean", description: "Every task, each line after its task" },
    follow: {
      type: "boolean",
      alias: "f",
      description:
        "After the log (-n, --since, -t apply), keep printing each new line until the task exits, then exit with its code (of several, the first non-zero; 3 if the daemon stops)",
    },
    lines: { type: "string", alias: "n", valueHint: "N", description: "Only the last N lines (0 with --follow: only new lines)" },
    since: { type: "string", valueHint: "T", description: "Lines printed since T: a duration back from now (10m), a clock time (12:00) or an RFC 3339 time" },
    until: { type: "string", valueHint: "T", description: "Lines printed before T (as --since)" },
    timestamps: { type: "boolean", alias: "t", description: "Each line after the time it was printed" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const chosen = selection("logs", args);
    const lines = wholeFlag("--lines", args.lines);
    if (lines === 0 && !args.follow) throw usageError("logs: --lines 0 prints only new lines, so it goes with --follow");
    const filter = logFilter(args, lines);
    const client = await DaemonClient.open(target);
    let outcome: Outcome = { missed: 0, code: 0 };
    try {
      if ("named" in chosen && chosen.named.length === 1) {
        const task = { typed: chosen.named[0]! };
        outcome = args.follow ? await follow(client, task, filter) : await history(client, task, filter);
      } else {
        const fleet = await client.request("ls");
        const tasks = "named" in chosen ? named(chosen.named, fleet) : tasksOf(fleet, chosen);
        outcome = args.follow ? await followEach(target, tasks, filter) : await historyOfEach(client, tasks, filter);
      }
    } finally {
      client.close();
    }
    if (outcome.code === EXIT.unreachable) process.stderr.write("fleetcom: logs: the daemon stopped; no more lines will come\n");
    process.exitCode = outcome.missed > 0 && outcome.code === 0 ? 1 : outcome.code;
  },
});

/** The tasks named, each once, in the order first named; an unknown or ambiguous one fails them all. */
function named(refs: string[], fleet: TaskInfo[]): TaskInfo[] {
  return [...new Set(refs.map((ref) => resolveTaskRef(ref, fleet)))];
}

/** How a follow ended: lines the reader missed, and the code to exit with. */
interface Outcome {
  missed: number;
  code: number;
}

/** The code a followed task's end gives: its exit code, 3 when the daemon stopped or went, 0 when the reader went. */
function codeOfEnd(end: AttachEnd | "closed" | "reader gone"): number {
  if (end === "reader gone") return 0;
  if (end === "closed" || end.reason === "shutdown") return EXIT.unreachable;
  return end.task.state === "exited" ? exitCodeOf(end.task) : 1;
}

const linesArg = (lines: number | undefined) => (lines === undefined ? {} : { lines });

type LogArgs = Pick<OpArgs<"log">, "lines" | "since" | "until" | "timestamps">;

function logFilter(args: { since?: string | undefined; until?: string | undefined; timestamps?: boolean | undefined }, lines: number | undefined): LogArgs {
  const now = new Date();
  return {
    ...linesArg(lines),
    ...(args.since !== undefined && { since: parseLogTime("--since", args.since, now) }),
    ...(args.until !== undefined && { until: parseLogTime("--until", args.until, now) }),
    ...(args.timestamps && { timestamps: true }),
  };
}

/** The task's log, a page at a time, each page through `print`; with no log kept (history off), says so once. */
async function eachLogPage(client: DaemonClient, task: TaskRef, filter: LogArgs, print: (text: string) => void): Promise<void> {
  let from: number | undefined;
  do {
    // A later page goes on where the last ended: the last N lines were chosen by the first.
    const { lines: _chosenByFirst, ...rest } = filter;
    const page = await client.request("log", from === undefined ? { task, ...filter } : { task, ...rest, from });
    if (!page.kept && from === undefined) process.stderr.write(`fleetcom: logs: history = false keeps no log: task ${page.info.id}'s scrollback only\n`);
    if (page.text.length) print(printableText(page.text));
    from = page.next ?? undefined;
  } while (from !== undefined);
}

async function history(client: DaemonClient, task: TaskRef, filter: LogArgs): Promise<Outcome> {
  await eachLogPage(client, task, filter, (text) => printText(text.endsWith("\n") ? text.slice(0, -1) : text));
  return { missed: 0, code: 0 };
}

/** `3 api    | `: each task's id and label, padded to the widest so the lines start in one column. */
function prefixes(tasks: readonly TaskInfo[]): Map<number, string> {
  const heads = tasks.map((t) => `${t.id} ${cut(printable(label(t)), PREFIX_LABEL_COLUMNS)}`);
  const width = Math.max(...heads.map(textWidth));
  return new Map(tasks.map((t, i) => [t.id, `${heads[i]}${" ".repeat(width - textWidth(heads[i]!))} | `]));
}

async function historyOfEach(client: DaemonClient, tasks: readonly TaskInfo[], filter: LogArgs): Promise<Outcome> {
  const prefix = prefixes(tasks);
  for (const task of tasks) {
    await eachLogPage(client, { id: task.id }, filter, (text) => printText(text.slice(0, -1).replace(/^/gm, prefix.get(task.id)!)));
  }
  return { missed: 0, code: 0 };
}

/** Followed without a kept log (history off), the lines are the terminal's: the scrollback, then each line completed. */
function saidIfNotKept(followed: { kept: boolean; info: TaskInfo }): void {
  if (!followed.kept) process.stderr.write(`fleetcom: logs: history = false keeps no log: task ${followed.info.id}'s scrollback, then its new lines\n`);
}

async function follow(client: DaemonClient, task: TaskRef, filter: LogArgs): Promise<Outcome> {
  let missed = 0;
  let stopWatching = () => {};
  const decoder = new TextDecoder();
  const ended = new Promise<number>((resolve) => {
    stopWatching = whenReaderGone(() => resolve(codeOfEnd("reader gone")));
    client.handlers = {
      // The lines come as UTF-8 text, written sanitised at the pace stdout takes them.
      data: (bytes) => {
        if (process.stdout.write(printableText(decoder.decode(bytes, { stream: true })))) return;
        client.pause();
        process.stdout.once("drain", () => client.resume());
      },
      skipped: (count) => (missed += skippedLines(count)),
      attachEnd: (end) => resolve(codeOfEnd(end)),
      closed: () => resolve(codeOfEnd("closed")),
    };
  });
  saidIfNotKept(await client.request("logs", { task, ...filter }));
  const code = await ended;
  stopWatching();
  return { missed, code };
}

function skippedLines(count: number): number {
  process.stderr.write(`fleetcom: logs: ${count} line(s) skipped: this reader fell too far behind\n`);
  return count;
}

/**
 * Each task's lines after its prefix, over a connection of its own (a connection follows one task),
 * until every task has exited or the reader has gone. Lines are cut apart here, so two tasks' lines
 * never mix within one; a slow reader holds every stream.
 */
async function followEach(target: Target, tasks: readonly TaskInfo[], filter: LogArgs): Promise<Outcome> {
  if (tasks.length === 0) return { missed: 0, code: 0 };
  const prefix = prefixes(tasks);
  const clients: DaemonClient[] = [];
  let missed = 0;
  let stopWatching = () => {};
  let held = false;
  /** Followed to the end (or failed): a connection still waiting for its slot is not opened. */
  let over = false;
  const write = (text: string) => {
    if (process.stdout.write(text) || held) return;
    held = true;
    for (const c of clients) c.pause();
    process.stdout.once("drain", () => {
      held = false;
      for (const c of clients) c.resume();
    });
  };
  // Each task's code in the order given, so "the first non-zero" does not depend on which ended first.
  const codes: number[] = tasks.map(() => 0);
  let readerGone = false;
  try {
    await new Promise<void>((resolve, reject) => {
      stopWatching = whenReaderGone(() => {
        readerGone = true;
        resolve();
      });
      let following = tasks.length;
      // Another host's connections are opened a few at a time, each until its daemon has answered (client-open-slots.ts).
      const host = hostOf(target);
      const slots = new OpenSlots();
      tasks.forEach((task, i) => {
        const head = prefix.get(task.id)!;
        const decoder = new TextDecoder();
        let partial = "";
        let done = false;
        const end = (how: AttachEnd | "closed") => {
          if (done) return;
          done = true;
          codes[i] = codeOfEnd(how);
          if (partial !== "") write(`${head}${printableText(partial)}\n`);
          if (--following === 0) resolve();
        };
        const follow = async () => {
          const client = await DaemonClient.open(target);
          clients.push(client);
          if (over) return client.close();
          if (held) client.pause();
          client.handlers = {
            data: (bytes) => {
              const parts = (partial + decoder.decode(bytes, { stream: true })).split("\n");
              partial = parts.pop()!;
              if (parts.length) write(parts.map((line) => `${head}${printableText(line)}\n`).join(""));
            },
            skipped: (count) => (missed += skippedLines(count)),
            attachEnd: end,
            closed: () => end("closed"),
          };
          saidIfNotKept(await client.request("logs", { task: { id: task.id }, ...filter }));
        };
        (host ? slots.run(host.name, () => over, follow) : follow()).catch(reject);
      });
    });
  } finally {
    over = true;
    stopWatching();
    for (const c of clients) c.close();
  }
  if (readerGone) return { missed, code: 0 };
  return { missed, code: codes.includes(EXIT.unreachable) ? EXIT.unreachable : (codes.find((c) => c !== 0) ?? 0) };
}
