// What the dashboard shows, as pure functions of the fleet: the header, the sections of each
// grouping, the rows the cursor walks (each section's title, then its tasks), a row per task, and
// the frame that fits them into the terminal. The keys' own texts are in ui-dashboard-keys.ts.
import { label } from "./task-labels.ts";
import { age, glyph, restartNote, stateText } from "./ui-format.ts";
import { tildePath } from "./paths.ts";
import { cut } from "./text-width.ts";
import { NO_GROUP } from "./task-labels.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import { fit, paint, windowAround } from "./ui-render.ts";
import { textWidth } from "./text-width.ts";
import { FILTER_HINT, helpLines, hintLine } from "./ui-dashboard-keys.ts";
import { cpuCell, memCell, sampled, sparkline } from "./task-resources.ts";

/** `id`: no sections, every task in id order with its state as a column, so no row ever moves (as process-compose lists). */
export const GROUPINGS = ["state", "directory", "group", "id"] as const;
export type Grouping = (typeof GROUPINGS)[number];

/** The order of tasks within a section (`u`): by id, or the busiest first by CPU or by memory. */
export const ORDERS = ["id", "CPU", "memory"] as const;
export type Order = (typeof ORDERS)[number];

function byOrder(order: Order): (a: TaskInfo, b: TaskInfo) => number {
  const use = (t: TaskInfo) => (order === "CPU" ? t.cpu : t.rss) ?? -1;
  return order === "id" ? (a, b) => a.id - b.id : (a, b) => use(b) - use(a) || a.id - b.id;
}

export interface Section {
  title: string;
  tasks: TaskInfo[];
}

const STATE_SECTIONS = ["Waiting", "In use", "Running", "Idle", "Completed"] as const;

function stateSection(task: TaskInfo): (typeof STATE_SECTIONS)[number] {
  if (task.attention) return "Waiting";
  if (task.tagged) return "In use";
  if (task.state === "exited") return "Completed";
  return task.idle ? "Idle" : "Running";
}

/** The title of the section `task` is in under `grouping`. */
export function sectionOf(task: TaskInfo, grouping: Grouping, home: string | undefined): string {
  if (grouping === "state") return stateSection(task);
  if (grouping === "directory") return tildePath(task.cwd, home);
  if (grouping === "id") return "Tasks";
  return task.group ?? NO_GROUP;
}

const byName = (a: string, b: string) => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};

/**
 * Sections in display order; tasks by id within each; a section without tasks is not shown. By
 * directory, the directory the dashboard runs in (`here`) comes first, as the one the user most
 * likely cares about, then the others ignoring case (conformance 12.16).
 */
export function sections(tasks: TaskInfo[], grouping: Grouping, home: string | undefined, here?: string, order: Order = "id"): Section[] {
  const sorted = [...tasks].sort(byOrder(order));
  const buckets = new Map<string, TaskInfo[]>();
  const add = (title: string, task: TaskInfo) => {
    const bucket = buckets.get(title);
    if (bucket) bucket.push(task);
    else buckets.set(title, [task]);
  };
  if (grouping === "state") for (const title of STATE_SECTIONS) buckets.set(title, []);
  if (grouping === "group") {
    const named = [...new Set(sorted.map((t) => t.group).filter((g): g is string => g !== null))].sort(byName);
    for (const title of named) buckets.set(title, []);
  }
  for (const task of sorted) add(sectionOf(task, grouping, home), task);
  // The longest waiting first, as the web view lists them.
  if (grouping === "state") buckets.get("Waiting")!.sort((a, b) => a.attention!.since.localeCompare(b.attention!.since) || a.id - b.id);
  let titles = [...buckets.keys()];
  if (grouping === "directory") {
    const first = here === undefined ? null : tildePath(here, home);
    titles = titles.sort(byName).sort((a, b) => Number(b === first) - Number(a === first));
  }
  return titles.map((title) => ({ title, tasks: buckets.get(title)! })).filter((s) => s.tasks.length > 0);
}

/** Whether the filter (any case) is in the task's name, command, directory (as typed or tilded) or group. */
export function matchesFilter(task: TaskInfo, filter: string, home: string | undefined): boolean {
  const needle = filter.trim().toLowerCase();
  if (needle === "") return true;
  const fields = [task.name ?? "", task.command, task.cwd, tildePath(task.cwd, home), task.group ?? ""];
  return fields.some((field) => field.toLowerCase().includes(needle));
}

/**
 * A row the cursor can rest on: a section's title or a task, of this machine's fleet (host null) or
 * an added host's. Keys name rows across redraws.
 */
export type Row = { key: string; host: string | null; section: Section; task: null } | { key: string; host: string | null; section: Section; task: TaskInfo };

/** A task's key: its id, qualified by its host's name when it is another host's (`remote1:3`, as a TASK is written). */
export const taskKey = (id: number, host: string | null = null) => `task ${host === null ? "" : `${host}:`}${id}`;
export const sectionKey = (title: string, host: string | null = null) => `section ${host === null ? "" : `${host}:`}${title}`;

/** How the dashboard's link to an added host stands (ui-dashboard-hosts.ts). */
/** An added host's link: `reason` is ssh's short (`Connection refused`), `said` the whole line (`gpu1 is unreachable: ssh: …`). */
export type HostLink = { kind: "connecting" } | { kind: "up" } | { kind: "unreachable"; reason: string; said: string; retryAt: number };

/** An added host's fleet as the dashboard holds it: shown as a section of its own, after this machine's. */
export interface HostBlock {
  name: string;
  /** Its home there: `~` in its directories. */
  home: string;
  link: HostLink;
  tasks: TaskInfo[];
}

/** What decides which rows there are and in which order. */
export interface Layout {
  /** This machine's fleet (or, with `--host`, that host's alone). */
  tasks: TaskInfo[];
  grouping: Grouping;
  /** Within each section (absent: by id). */
  order?: Order | undefined;
  filter: string;
  home: string | undefined;
  here?: string | undefined;
  /** The added hosts, when the dashboard shows them (none added, or `--host`: absent). */
  hosts?: readonly HostBlock[] | undefined;
}

/** One host's part of the list: its heading (none when no host is added) and its rows. */
export interface Block {
  heading: { name: string; link: HostLink; tasks: number } | null;
  rows: Row[];
}

/** The list's blocks, this machine's first, then each added host's in the order they were added. */
export function blocks(layout: Layout): Block[] {
  const here = { name: null, home: layout.home, here: layout.here, tasks: layout.tasks };
  if (!layout.hosts?.length) return [{ heading: null, rows: blockRows(layout, here) }];
  const local = { heading: { name: "local", link: { kind: "up" } as const, tasks: layout.tasks.length }, rows: blockRows(layout, here) };
  return [
    local,
    ...layout.hosts.map((h) => ({
      heading: { name: h.name, link: h.link, tasks: h.tasks.length },
      rows: blockRows(layout, { name: h.name, home: h.home, here: undefined, tasks: h.tasks }),
    })),
  ];
}

function blockRows(layout: Layout, fleet: { name: string | null; home: string | undefined; here: string | undefined; tasks: TaskInfo[] }): Row[] {
  const shown = fleet.tasks.filter((t) => matchesFilter(t, layout.filter, fleet.home));
  const host = fleet.name;
  return sections(shown, layout.grouping, fleet.home, fleet.here, layout.order).flatMap((section) => [
    // By id there is one section, and no title: nothing for the cursor to rest on but tasks.
    ...(layout.grouping === "id" ? [] : [{ key: sectionKey(section.title, host), host, section, task: null }]),
    ...section.tasks.map((task) => ({ key: taskKey(task.id, host), host, section, task })),
  ]);
}

/** The rows in screen order: what ↑/↓, Home/End and PgUp/PgDn walk through. */
export function screenRows(layout: Layout): Row[] {
  return blocks(layout).flatMap((b) => b.rows);
}

/** Every task shown: this machine's, then each host's. */
export function allTasks(layout: Pick<Layout, "tasks" | "hosts">): TaskInfo[] {
  return [...layout.tasks, ...(layout.hosts ?? []).flatMap((h) => h.tasks)];
}

export function header(tasks: TaskInfo[], grouping: Grouping, foreground: boolean, picked = 0): string {
  const count = (test: (t: TaskInfo) => boolean) => tasks.filter(test).length;
  const counts: [number, string][] = [
    [count((t) => glyph(t) === "!"), "! waiting"],
    [count((t) => glyph(t) === "◌"), "◌ starting"],
    [count((t) => glyph(t) === "✻"), "✻ running"],
    [count((t) => glyph(t) === "∙"), "∙ idle"],
    [count((t) => glyph(t) === "✓"), "✓ done"],
    [count((t) => glyph(t) === "✗"), "✗ failed"],
    [count((t) => t.tagged), "◆ in use"],
  ];
  const parts = [
    `fleetcom${foreground ? " (foreground)" : ""}`,
    `${tasks.length} task${tasks.length === 1 ? "" : "s"}`,
    ...counts.filter(([n]) => n > 0).map(([n, what]) => `${what.slice(0, 1)} ${n} ${what.slice(2)}`),
    `by ${grouping}`,
    ...(picked > 0 ? [`* ${picked} selected`] : []),
  ];
  return parts.join(" · ");
}

/** Running tasks show how long they have run; finished ones how long ago they ended; waiting ones how long they have waited. */
function taskAge(task: TaskInfo, now: number): string {
  if (task.attention) return `waited ${age(task.attention.since, now)}`;
  return age(task.endedAt ?? task.startedAt, now);
}

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
  const suffix = `${use}${restartNote(task, now)} · ${taskAge(task, now)}`;
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
  const lines = parts.flatMap((block) => [
    ...(block.heading ? [{ text: hostRow(block.heading, columns, view.now), cursor: false, counted: false }] : []),
    ...block.rows.map((row) => {
      const cursor = row.key === view.cursor;
      if (row.task === null) {
        const picked = row.section.tasks.every((t) => view.picked.has(taskKey(t.id, row.host)));
        return { text: sectionRow(row.section, columns, cursor, picked), cursor, counted: false };
      }
      const key = taskKey(row.task.id, row.host);
      const marks = { cursor, picked: view.picked.has(key), moved: view.moved.get(key) ?? null, stateWidth };
      return { text: taskRow(row.task, columns, idWidth, view.now, marks), cursor, counted: true };
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
  return link.kind === "unreachable" ? paint.red(text) : paint.bold(text);
}
