// What the command line prints: the ls table and other tables fitted to the terminal, counts and
// reports, and stdout written whole. How one task looks (its glyph, its state) is view-task.ts.
import { writeSync } from "node:fs";
import { stdoutTerminalSize } from "./files.ts";
import { tildePath } from "./paths.ts";
import type { SnapshotInfo } from "./recipe-snapshots.ts";
import type { Escapee, TaskInfo } from "./wire-protocol.ts";
import { label } from "./task-labels.ts";
import { printable } from "./text-printable.ts";
import { cut, textWidth } from "./text-width.ts";
import { age } from "./text-age.ts";
import { usageCell } from "./task-usage.ts";
import { cpuCell, memCell, sampled } from "./task-resources.ts";
import { glyph, stateSince } from "./view-task.ts";
import { changesCell } from "./text-changes.ts";
import { errnoCode } from "./errors.ts";
import type { PushStatus } from "./wire-protocol.ts";

/**
 * The task table. `columns` is the terminal's width: rows are fitted to it, the preview cut first,
 * then the task, then the directory; without it (stdout is not a terminal) nothing is cut. Every
 * cell that came from a task passes printable() before any cut, so a cut can never keep the start of
 * an escape sequence and lose its end.
 */
export function lsTable(
  tasks: TaskInfo[],
  home: string | undefined,
  now = Date.now(),
  columns?: number,
  verbose = false,
  /** With hosts added: each task's host, first column (`-` for this machine's). */
  hostOf?: (task: TaskInfo) => string,
): string {
  if (tasks.length === 0) return "no tasks\n";
  // Only a daemon that sampled (Linux, a task running) has CPU and memory to show; a terminal too
  // narrow for them even with the rest cut loses them rather than a cell cut to a wrong figure.
  const anySampled = tasks.some(sampled);
  const withUse = lsColumns(tasks, home, now, columns, verbose, hostOf, anySampled);
  const fits = columns === undefined || !anySampled || columnWidths(withUse.header, withUse.rows, columns, withUse.shrink).excess <= 0;
  const chosen = fits ? withUse : lsColumns(tasks, home, now, columns, verbose, hostOf, false);
  return table(chosen.header, chosen.rows, columns, chosen.shrink);
}

function lsColumns(
  tasks: TaskInfo[],
  home: string | undefined,
  now: number,
  columns: number | undefined,
  verbose: boolean,
  hostOf: ((task: TaskInfo) => string) | undefined,
  use: boolean,
): { header: string[]; rows: string[][]; shrink: number[] } {
  const long = (text: string) => (columns === undefined ? printable(text) : cut(printable(text), 40));
  // Only a fleet with an agent in it has tokens to show.
  const tokens = tasks.some((t) => t.agent !== null);
  const counts = (n: number | null | undefined) => (n == null ? "" : String(n));
  // Only a fleet with a task that changed its repository has changes to show.
  const changed = tasks.some((t) => changesCell(t.changes) !== "");
  const rows = tasks.map((t) => [
    ...(hostOf ? [hostOf(t)] : []),
    String(t.id),
    `${glyph(t)}${t.tagged ? "◆" : ""}`,
    long(label(t)),
    ...(verbose ? [printable(t.command)] : []),
    printable(t.worktree ? `${tildePath(t.cwd, home)} [${t.worktree.branch}]` : tildePath(t.cwd, home)),
    printable(t.group ?? ""),
    stateSince(t, now),
    age(t.startedAt, now),
    ...(use ? [cpuCell(t.cpu), memCell(t.rss)] : []),
    ...(use && verbose ? [counts(t.threads), counts(t.processes)] : []),
    ...(tokens ? [usageCell(t)] : []),
    ...(changed ? [changesCell(t.changes)] : []),
    printable(t.preview),
  ]);
  const header = [
    ...(hostOf ? ["HOST"] : []),
    "ID",
    "",
    "TASK",
    ...(verbose ? ["COMMAND"] : []),
    "DIR",
    "GROUP",
    "STATE",
    "AGE",
    ...(use ? ["CPU", "MEM"] : []),
    ...(use && verbose ? ["THREADS", "PROCS"] : []),
    ...(tokens ? ["TOKENS"] : []),
    ...(changed ? ["CHANGES"] : []),
    "PREVIEW",
  ];
  // Cut first: the preview, then the task, then (verbose) the command, then the directory.
  const shift = hostOf ? 1 : 0;
  const preview = header.length - 1;
  return { header, rows, shrink: [preview, ...(verbose ? [2, 3, 4] : [2, 3]).map((i) => i + shift)] };
}

/** The width of the terminal stdout is, or undefined when it is not one (a pipe, a file). */
export function terminalColumns(): number | undefined {
  const size = stdoutTerminalSize();
  return size ? size.cols || 80 : undefined;
}

/**
 * Writes a one-shot command's output straight to fd 1: process.stdout costs a short-lived client
 * several milliseconds to build. A reader that has gone (EPIPE) ends the output quietly; a
 * non-blocking stdout that is full gets the rest through process.stdout, which waits for it.
 */
export function writeStdout(text: string): void {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(1, bytes, at);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EAGAIN") process.stdout.write(bytes.subarray(at));
    else if (code !== "EPIPE") throw error;
  }
}

/**
 * Rows in columns two spaces apart, aligned by terminal columns (text-width.ts: CJK and emoji take
 * two). With `columns`, the columns listed in `shrink` are cut with … in that order, none below its
 * header or 10, until the rows fit; if they still do not, each line is cut at `columns`.
 */
export function table(header: string[], rows: string[][], columns?: number, shrink: number[] = []): string {
  const all = [header, ...rows];
  const { widths, excess } = columnWidths(header, rows, columns, shrink);
  const line = (row: string[]) =>
    row
      .map((cell, i) => {
        const shown = columns === undefined ? cell : cut(cell, widths[i]!);
        return i === row.length - 1 ? shown : shown + " ".repeat(widths[i]! - textWidth(shown));
      })
      .join("  ")
      .trimEnd();
  // Still too wide with every column cut to its floor (a narrow pane): each line is cut at the
  // terminal's edge, so no row wraps onto the next and the columns stay under their headers.
  const fitted = columns !== undefined && excess > 0 ? (row: string[]) => cut(line(row), columns) : line;
  return `${all.map(fitted).join("\n")}\n`;
}

/** Each column's width, cut as table() cuts them to `columns`; `excess`: the columns still too many after every cut. */
function columnWidths(header: string[], rows: string[][], columns: number | undefined, shrink: number[]): { widths: number[]; excess: number } {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => textWidth(row[i]!))));
  if (columns === undefined) return { widths, excess: 0 };
  let excess = widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1) - columns;
  for (const i of shrink) {
    if (excess <= 0) break;
    const floor = Math.min(widths[i]!, Math.max(textWidth(header[i]!), 10));
    const by = Math.min(excess, widths[i]! - floor);
    widths[i]! -= by;
    excess -= by;
  }
  return { widths, excess };
}

/** Said after a snapshot was loaded: the next prune may delete it. */
export const SAVE_HINT = "to keep this fleet under a permanent name: fleetcom save NAME";

/** `1 task`, `5 tasks`. */
export function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/**
 * A recovery snapshot as `recover --list` and the picker show it, told apart by what it holds:
 * `3m ago · 5 tasks · api, web, claude, … · autosaved …`; the running supervisor's own is marked
 * `this fleet, running` before anything a narrow picker would cut.
 */
export function snapshotListRow(s: SnapshotInfo, now = Date.now()): string {
  const when = `${age(s.written, now)} ago`;
  if (s.damaged !== null) return `${when} · damaged · ${printable(s.damaged)}`;
  const names = s.labels.map((l) => printable(cut(l, 24)));
  const more = s.tasks > names.length ? ", …" : "";
  const parts = [
    when,
    ...(s.thisFleet ? ["this fleet, running"] : []),
    s.finished > 0 ? `${count(s.tasks, "task")} (+${s.finished} finished)` : count(s.tasks, "task"),
    ...(names.length > 0 ? [`${names.join(", ")}${more}`] : []),
    printable(s.label ?? ""),
  ];
  return parts.join(" · ");
}

/** `killed task 3; 1 process escaped its group: pid 123 codex app-server`, one line per task that had any. */
export function escapeReport(done: "killed" | "removed" | "restarted", tasks: readonly number[], escapees: readonly Escapee[]): string[] {
  return tasks.flatMap((task) => {
    const mine = escapees.filter((e) => e.task === task);
    if (mine.length === 0) return [];
    const what = `${mine.length} ${mine.length === 1 ? "process" : "processes"} escaped its group`;
    return [`${done} task ${task}; ${what}: ${mine.map((e) => `pid ${e.pid} ${e.command}`).join(", ")}`];
  });
}

/** How sending to one of notify's destinations goes, for `status` and `fleetcom config` (docs/notify.md). */
export function pushStatusText(p: PushStatus): string {
  const failing = p.lastError !== null && (p.lastSent === null || p.lastError.at > p.lastSent);
  const counts = [`${p.sent} sent`, ...(p.failed ? [`${p.failed} given up`] : []), ...(p.queued ? [`${p.queued} queued`] : [])].join(", ");
  if (failing) return `${p.destination}  FAILING: ${p.lastError!.message} at ${p.lastError!.at}; ${counts}`;
  if (p.lastSent === null) return `${p.destination}  nothing sent yet`;
  return `${p.destination}  ok: ${counts}, the last at ${p.lastSent}`;
}
