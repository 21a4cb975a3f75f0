// What the dashboard draws, as pure functions of the fleet: a row per task, a host's heading, and
// the frame that fits them into the terminal. The sections, rows and header are view-fleet.ts, a
// task's glyph and state view-task.ts; the keys' own texts are in ui-dashboard-keys.ts.
import { label } from "./task-labels.ts";
import { age, glyph, restartNote, stateText, taskAge } from "./view-task.ts";
import { allTasks, blocks, type Block, type Grouping, header, type HostBlock, type Order, screenRows, type Section, taskKey } from "./view-fleet.ts";
import { changesCell } from "./text-changes.ts";
import { cut } from "./text-width.ts";
import { printable } from "./text-printable.ts";
import type { CrashNotice, SnapshotError, TaskInfo } from "./wire-protocol.ts";
import { crashNoticeText } from "./client.ts";
import { fit, type ListLine, paint, windowAround } from "./ui-render.ts";
import { textWidth } from "./text-width.ts";
import { FILTER_HINT, helpLines, hintLine } from "./ui-dashboard-keys.ts";
import { cpuCell, memCell, sampled, sparkline } from "./task-resources.ts";

/** How a row is marked besides its content. */
export interface RowMarks {
  /** The cursor is on it: `›`. */
  cursor?: boolean;
  /** Selected with `v`: `*`. */
  picked?: boolean;
  /** It just changed section, up or down the screen: `↑`/`↓` before the label, for a few seconds. */
  moved?: "up" | "down" | null;
  /** The state as a column this wide after the id (the `id` grouping, where no section says it). */
  stateWidth?: number;
}

/**
 * `›* glyph [◆] id label · preview · age`, cut to `columns` without wrapping. The label keeps at
 * least about half the room when the preview is long; the age is never cut.
 */
export function taskRow(task: TaskInfo, columns: number, idWidth: number, now: number, marks: RowMarks | boolean = {}): string {
  const { cursor = false, picked = false, moved = null, stateWidth = 0 } = typeof marks === "boolean" ? { cursor: marks } : marks;
  const mark = `${cursor ? "›" : " "}${picked ? "*" : " "}`;
  const state = stateWidth > 0 ? `${cut(stateText(task), stateWidth).padEnd(stateWidth)}  ` : "";
  const arrow = moved === "up" ? "↑ " : moved === "down" ? "↓ " : "";
  const prefix = `${mark}${glyph(task)} ${task.tagged ? "◆" : " "} ${String(task.id).padStart(idWidth)} ${arrow}${state}`;
  // Its CPU and memory while they are sampled (a running task on a daemon that samples them).
  const use = sampled(task) ? ` · ${cpuCell(task.cpu)} ${memCell(task.rss)}` : "";
  // What the task changed in its repository (`+120 −14`), on rows of tasks with changes.
  const changes = changesCell(task.changes);
  const suffix = `${use}${restartNote(task, now)}${changes ? ` · ${changes}` : ""} · ${taskAge(task, now)}`;
  const room = Math.max(4, columns - 1 - textWidth(prefix) - textWidth(suffix));
  // A task in a worktree of its own (run --worktree) carries its branch.
  const name = printable(task.worktree ? `${label(task)} [${task.worktree.branch}]` : label(task));
  const preview = printable(task.preview.trim());
  let shownName = cut(name, room);
  let shownPreview = "";
  if (preview !== "" && room - textWidth(shownName) >= 3 + 4) {
    shownPreview = cut(preview, room - textWidth(shownName) - 3);
  } else if (preview !== "" && room >= 24) {
    shownName = cut(name, Math.ceil(room / 2));
    shownPreview = cut(preview, room - textWidth(shownName) - 3);
  }
  if (!paint.isColorSupported) return fit(`${prefix}${shownName}${shownPreview ? ` · ${shownPreview}` : ""}${suffix}`, columns);
  const styledMark = `${mark.slice(0, 1)}${paint.bold(paint.cyan(mark.slice(1)))}`;
  const styledPrefix = `${styledMark}${glyphColor(task)(glyph(task))} ${paint.magenta(task.tagged ? "◆" : " ")} ${paint.dim(String(task.id).padStart(idWidth))} ${paint.bold(paint.cyan(arrow))}${glyphColor(task)(state)}`;
  const body = `${cursor ? paint.bold(shownName) : shownName}${shownPreview ? paint.dim(` · ${shownPreview}`) : ""}`;
  return `${styledPrefix}${body}${paint.dim(suffix)}`;
}

/** The peek's title's part for what the task uses: ` · CPU ▁▃█ 97% · 212M`, its last minute of CPU as bars; "" when not sampled. */
export function useInTitle(task: TaskInfo): string {
  return sampled(task) ? ` · CPU ${sparkline(task.cpuRecent ?? [])} ${cpuCell(task.cpu)} · ${memCell(task.rss)}` : "";
}

function glyphColor(task: TaskInfo): (s: string) => string {
  const g = glyph(task);
  return g === "!" ? (s) => paint.bold(paint.magenta(s)) : g === "✻" || g === "◌" ? paint.yellow : g === "∙" ? paint.dim : g === "✓" ? paint.green : paint.red;
}

/** A section's title row; `›` when the cursor is on it, `*` when all its tasks are selected. */
function sectionRow(section: Section, columns: number, cursor: boolean, picked: boolean): string {
  const text = `${printable(section.title)} (${section.tasks.length})`;
  if (!cursor && !picked) return paint.bold(fit(text, columns));
  return paint.bold(fit(`${cursor ? "›" : " "}${picked ? "*" : " "}${text}`, columns));
}

export interface View {
  /** This machine's fleet (with `--host`, that host's). */
  tasks: TaskInfo[];
  /** The added hosts' fleets, when shown (Layout). */
  hosts?: readonly HostBlock[] | undefined;
  /** Lines under the header that stay until their cause goes (ui-dashboard.ts): a lost connection, a lost fleet, failing snapshots. */
  notices?: { text: string; error: boolean }[];
  grouping: Grouping;
  order?: Order | undefined;
  /** The key of the row under the cursor (taskKey, sectionKey). */
  cursor: string | null;
  /** Tasks selected with `v`, by taskKey. */
  picked: ReadonlySet<string>;
  /** Tasks that just changed section (by taskKey), and which way they went on the screen. */
  moved: ReadonlyMap<string, "up" | "down">;
  /** The filter's text ("" for none), and whether it is being typed. */
  filter: string;
  filtering: boolean;
  /** Digits typed to jump to a task id, or null. */
  jump: string | null;
  foreground: boolean;
  status: { text: string; error: boolean } | null;
  peek: { title: string; text: string } | null;
  /** The `?` screen, with the detach key as the user set it, scrolled this many lines down. */
  help: { detach: string; scroll: number } | null;
  home: string | undefined;
  here?: string | undefined;
  now: number;
}

/** Every line of the dashboard, at most `maxLines` of them, each narrower than `columns`. */
export function dashboardLines(view: View, columns: number, maxLines: number): string[] {
  const top = [paint.bold(fit(header(allTasks(view), view.grouping, view.foreground, view.picked.size), columns))];
  for (const notice of view.notices ?? []) top.push((notice.error ? paint.red : paint.yellow)(fit(printable(notice.text), columns)));
  if (view.help) {
    const help = helpLines(view.help.detach, columns, helpRows(view, maxLines), { scroll: view.help.scroll, foreground: view.foreground });
    return [...top, ...help].slice(0, Math.max(1, maxLines));
  }
  const bottom: string[] = [];
  const color = view.status?.error ? paint.red : paint.green;
  for (const line of view.status?.text.split("\n") ?? []) bottom.push(color(fit(printable(line), columns)));
  const line = filterLine(view);
  if (line !== null) bottom.push(paint.cyan(fit(line, columns)));
  bottom.push(paint.dim(view.peek ? fit("h pages the whole history · any key returns to the list", columns) : footHint(view, columns)));
  const room = Math.max(1, maxLines - top.length - bottom.length);
  const peekLines = view.peek ? peekBlock(view.peek, columns, Math.max(2, room - Math.max(3, Math.floor(room / 2)))) : [];
  const list = listLines(view, columns, Math.max(1, room - peekLines.length));
  return [...top, ...list, ...peekLines, ...bottom];
}

/** The rows the `?` screen has under the header and its notices. */
export function helpRows(view: Pick<View, "notices">, maxLines: number): number {
  return Math.max(2, maxLines - 1 - (view.notices?.length ?? 0));
}

function footHint(view: View, columns: number): string {
  if (view.filtering) return fit(FILTER_HINT, columns);
  if (view.jump !== null) return fit("⏎ go to the task with that id · esc cancel", columns);
  // A sort other than by id is named first, so the list's order is never a puzzle.
  if (view.order === undefined || view.order === "id") return hintLine(columns, view.foreground);
  const named = `sorted by ${view.order} · `;
  return fit(`${named}${hintLine(Math.max(10, columns - textWidth(named)), view.foreground)}`, columns);
}

/** The filter being typed or kept, or digits being typed; null when there is neither. */
export function filterLine(view: View): string | null {
  if (view.jump !== null) return `go to task ${view.jump}`;
  if (!view.filtering && view.filter === "") return null;
  const shown = screenRows(view).filter((r) => r.task !== null).length;
  const counts = `(${shown} of ${allTasks(view).length} tasks)`;
  return view.filtering ? `/${printable(view.filter)}  ${counts}` : `filter: ${printable(view.filter)} ${counts} · / edits · esc clears`;
}

/** Where the terminal's cursor goes while the filter or the digits are being typed: after them. */
export function filterCursor(view: View, lines: string[]): { row: number; col: number } | undefined {
  if (!view.filtering && view.jump === null) return undefined;
  const text = view.jump !== null ? `go to task ${view.jump}` : `/${printable(view.filter)}`;
  const row = lines.length - 2;
  return { row, col: textWidth(text) };
}

function peekBlock(peek: { title: string; text: string }, columns: number, rows: number): string[] {
  const screen = peek.text === "" ? ["(the screen is empty)"] : peek.text.split("\n");
  const shown = screen.slice(Math.max(0, screen.length - (rows - 1)));
  return [paint.cyan(fit(`── peek ${peek.title} ${"─".repeat(columns)}`, columns)), ...shown.map((line) => fit(printable(line), columns))];
}

/** The state column is cut to this (a signal's name can be long). */
const STATE_COLUMN_MAX = 20;

function listLines(view: View, columns: number, rows: number): string[] {
  const tasks = allTasks(view);
  const parts = blocks(view);
  if (!view.hosts?.length && tasks.length === 0) return [paint.dim(fit("  no tasks: n starts a command here, o loads a saved session", columns))];
  if (tasks.length > 0 && parts.every((b) => b.rows.length === 0)) return [paint.dim(fit("  nothing matches the filter (esc clears it)", columns))];
  const idWidth = Math.max(1, ...tasks.map((t) => String(t.id).length));
  const stateWidth = view.grouping === "id" ? Math.min(STATE_COLUMN_MAX, Math.max(...tasks.map((t) => textWidth(stateText(t))))) : 0;
  // Each line's text is made only if it is shown (windowAround): of 2,000 rows, about a screenful.
  const lines: ListLine[] = parts.flatMap((block) => [
    ...(block.heading ? [{ text: () => hostRow(block.heading!, columns, view.now), cursor: false, counted: false }] : []),
    ...block.rows.map((row) => {
      const cursor = row.key === view.cursor;
      const { task, section, host } = row;
      if (task === null) {
        const picked = () => section.tasks.every((t) => view.picked.has(taskKey(t.id, host)));
        return { text: () => sectionRow(section, columns, cursor, picked()), cursor, counted: false };
      }
      const key = taskKey(task.id, host);
      const marks = () => ({ cursor, picked: view.picked.has(key), moved: view.moved.get(key) ?? null, stateWidth });
      return { text: () => taskRow(task, columns, idWidth, view.now, marks()), cursor, counted: true };
    }),
  ]);
  return windowAround(lines, rows, columns);
}

/** `── remote1 · 2 tasks ───`; a host the dashboard cannot reach: `── gpu1 · unreachable (Connection refused) · retrying in 8 s ───`. */
export function hostRow(heading: NonNullable<Block["heading"]>, columns: number, now: number): string {
  const { link } = heading;
  const said =
    link.kind === "up"
      ? `${heading.tasks === 0 ? "no" : heading.tasks} task${heading.tasks === 1 ? "" : "s"}`
      : link.kind === "connecting"
        ? "connecting…"
        : `unreachable (${link.reason}) · retrying in ${Math.max(1, Math.ceil((link.retryAt - now) / 1000))} s`;
  const head = `── ${printable(heading.name)} · ${printable(said)} `;
  const text = fit(`${head}${"─".repeat(Math.max(0, columns - 1 - textWidth(head)))}`, columns);
  return link.kind === "lost" ? paint.red(text) : paint.bold(text);
}

/** What stays under the dashboard's header until its cause goes. */
export interface Troubles {
  /** The connection to the daemon is lost. */
  lost: boolean;
  crash: CrashNotice | null;
  snapshotError: SnapshotError | null;
  /** What stopped a task's log writes (a full disk). */
  logError: string | null;
  /** Each added host's own lines (client-host-fleet.ts noticeLines). */
  hostLines: string[];
}

/** The notice lines: a lost connection, a lost previous fleet, failing snapshots or log writes, then each host's. */
export function troubleNotices(troubles: Troubles, now: number): NonNullable<View["notices"]> {
  const { crash, snapshotError, logError } = troubles;
  const texts = [
    ...(troubles.lost ? ["lost the connection to the daemon — r reconnects (starting a daemon), q leaves"] : []),
    ...(crash ? [crashNoticeText(crash, now, "L recovers it")] : []),
    ...(snapshotError ? [`recovery snapshots failing for ${age(snapshotError.since, now)}: ${snapshotError.message}`] : []),
    ...(logError ? [`log writes stopped: ${logError} (the task runs on)`] : []),
    ...troubles.hostLines,
  ];
  return texts.map((text) => ({ text, error: true }));
}
