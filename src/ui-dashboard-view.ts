// What the dashboard shows, as pure functions of the fleet: the header, the sections of each
// grouping, a row per task, the hint line, and the frame that fits them into the terminal.
import { label } from "./recipe-labels.ts";
import { age, glyph, tildePath } from "./ui-format.ts";
import { cut } from "./text-width.ts";
import { NO_GROUP } from "./recipe-labels.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import { fit, paint } from "./ui-render.ts";
import { textWidth } from "./text-width.ts";

export const GROUPINGS = ["state", "directory", "group"] as const;
export type Grouping = (typeof GROUPINGS)[number];

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

const byName = (a: string, b: string) => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};

/** Sections in display order; tasks by id within each; a section without tasks is not shown. */
export function sections(tasks: TaskInfo[], grouping: Grouping, home: string | undefined): Section[] {
  const sorted = [...tasks].sort((a, b) => a.id - b.id);
  const buckets = new Map<string, TaskInfo[]>();
  const add = (title: string, task: TaskInfo) => buckets.set(title, [...(buckets.get(title) ?? []), task]);
  if (grouping === "state") {
    for (const title of STATE_SECTIONS) buckets.set(title, []);
    for (const task of sorted) add(stateSection(task), task);
  } else if (grouping === "directory") {
    for (const task of sorted) add(tildePath(task.cwd, home), task);
  } else {
    const named = [...new Set(sorted.map((t) => t.group).filter((g): g is string => g !== null))].sort(byName);
    for (const title of named) buckets.set(title, []);
    for (const task of sorted) add(task.group ?? NO_GROUP, task);
  }
  const titles = grouping === "directory" ? [...buckets.keys()].sort() : [...buckets.keys()];
  return titles.map((title) => ({ title, tasks: buckets.get(title)! })).filter((s) => s.tasks.length > 0);
}

/** Tasks in the order they appear on screen: what ↑/↓ walk through. */
export function screenOrder(all: Section[]): TaskInfo[] {
  return all.flatMap((s) => s.tasks);
}

export function header(tasks: TaskInfo[], grouping: Grouping, foreground: boolean): string {
  const count = (test: (t: TaskInfo) => boolean) => tasks.filter(test).length;
  const counts: [number, string][] = [
    [count((t) => glyph(t) === "!"), "! waiting"],
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
  ];
  return parts.join(" · ");
}

/** Running tasks show how long they have run; finished ones how long ago they ended. */
function taskAge(task: TaskInfo, now: number): string {
  return age(task.endedAt ?? task.startedAt, now);
}

/**
 * `glyph [◆] id label · preview · age`, cut to `columns` without wrapping. The label keeps at least
 * about half the room when the preview is long; the age is never cut.
 */
export function taskRow(task: TaskInfo, columns: number, idWidth: number, now: number, selected: boolean): string {
  const mark = selected ? "›" : " ";
  const prefix = `${mark} ${glyph(task)} ${task.tagged ? "◆" : " "} ${String(task.id).padStart(idWidth)} `;
  const suffix = ` · ${taskAge(task, now)}`;
  const room = Math.max(4, columns - 1 - textWidth(prefix) - textWidth(suffix));
  const name = printable(label(task));
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
  const styledPrefix = `${mark} ${glyphColor(task)(glyph(task))} ${paint.magenta(task.tagged ? "◆" : " ")} ${paint.dim(String(task.id).padStart(idWidth))} `;
  const body = `${selected ? paint.bold(shownName) : shownName}${shownPreview ? paint.dim(` · ${shownPreview}`) : ""}`;
  return `${styledPrefix}${body}${paint.dim(suffix)}`;
}

function glyphColor(task: TaskInfo): (s: string) => string {
  const g = glyph(task);
  return g === "!" ? (s) => paint.bold(paint.magenta(s)) : g === "✻" ? paint.yellow : g === "∙" ? paint.dim : g === "✓" ? paint.green : paint.red;
}

// The longest form that fits; the most compact one is cut like any line.
const KEYS: [string, string, string][] = [
  ["↑↓", "select", "↑↓"],
  ["enter", "attach", "⏎"],
  ["space", "peek", "␣"],
  ["n", "new", "n"],
  ["r", "rerun", "r"],
  ["R", "rename", "R"],
  ["g", "group", "g"],
  ["m", "tag", "m"],
  ["X", "kill/rm", "X"],
  ["s", "grouping", "s"],
  ["w", "save", "w"],
  ["o", "sessions", "o"],
  ["q", "detach", "q"],
  ["Q", "stop all", "Q"],
];
const HINTS = [
  KEYS.map(([key, what]) => `${key} ${what}`).join(" · "),
  KEYS.map(([, what, short]) => `${short} ${what}`).join("  "),
  // Narrow terminals: how to leave first, shorter words.
  "q:detach Q:stop-all ↑↓ ⏎:attach ␣:peek n:new r:rerun R:name g:group m:tag X:kill/rm s:sort w:save o:open",
];

export function hintLine(columns: number): string {
  return HINTS.find((hint) => textWidth(hint) < columns) ?? fit(HINTS[HINTS.length - 1]!, columns);
}

export interface View {
  tasks: TaskInfo[];
  /** Lines under the header that stay until their cause goes (ui-dashboard.ts): a lost connection, a lost fleet, failing snapshots. */
  notices?: { text: string; error: boolean }[];
  grouping: Grouping;
  selected: number | null;
  foreground: boolean;
  status: { text: string; error: boolean } | null;
  peek: { title: string; text: string } | null;
  home: string | undefined;
  now: number;
}

/** Every line of the dashboard, at most `maxLines` of them, each narrower than `columns`. */
export function dashboardLines(view: View, columns: number, maxLines: number): string[] {
  const top = [paint.bold(fit(header(view.tasks, view.grouping, view.foreground), columns))];
  for (const notice of view.notices ?? []) top.push((notice.error ? paint.red : paint.yellow)(fit(printable(notice.text), columns)));
  const bottom: string[] = [];
  const color = view.status?.error ? paint.red : paint.green;
  for (const line of view.status?.text.split("\n") ?? []) bottom.push(color(fit(printable(line), columns)));
  bottom.push(paint.dim(view.peek ? fit("any key returns to the list", columns) : hintLine(columns)));
  const room = Math.max(1, maxLines - top.length - bottom.length);
  const peekLines = view.peek ? peekBlock(view.peek, columns, Math.max(2, room - Math.max(3, Math.floor(room / 2)))) : [];
  const list = listLines(view, columns, Math.max(1, room - peekLines.length));
  return [...top, ...list, ...peekLines, ...bottom];
}

function peekBlock(peek: { title: string; text: string }, columns: number, rows: number): string[] {
  const screen = peek.text === "" ? ["(the screen is empty)"] : peek.text.split("\n");
  const shown = screen.slice(Math.max(0, screen.length - (rows - 1)));
  return [paint.cyan(fit(`── peek ${peek.title} ${"─".repeat(columns)}`, columns)), ...shown.map((line) => fit(printable(line), columns))];
}

function listLines(view: View, columns: number, rows: number): string[] {
  if (view.tasks.length === 0) return [paint.dim(fit("  no tasks: n starts a command here, o loads a saved session", columns))];
  const idWidth = Math.max(...view.tasks.map((t) => String(t.id).length));
  const lines: { text: string; selected: boolean }[] = [];
  for (const section of sections(view.tasks, view.grouping, view.home)) {
    lines.push({ text: paint.bold(fit(`${printable(section.title)} (${section.tasks.length})`, columns)), selected: false });
    for (const task of section.tasks) {
      const selected = task.id === view.selected;
      lines.push({ text: taskRow(task, columns, idWidth, view.now, selected), selected });
    }
  }
  return window(lines, rows, columns);
}

/** The rows that fit, keeping the selected one in view; `⋮ N more` stands for what is cut off. */
function window(lines: { text: string; selected: boolean }[], rows: number, columns: number): string[] {
  if (lines.length <= rows) return lines.map((l) => l.text);
  const at = Math.max(0, lines.findIndex((l) => l.selected));
  const inner = Math.max(1, rows - 2);
  const start = Math.max(0, Math.min(at - Math.floor(inner / 2), lines.length - inner));
  const shown = lines.slice(start, start + inner).map((l) => l.text);
  const more = (n: number) => paint.dim(fit(`  ⋮ ${n} more`, columns));
  const above = start;
  const below = lines.length - start - shown.length;
  return [...(above > 0 ? [more(above)] : []), ...shown, ...(below > 0 ? [more(below)] : [])].slice(0, rows);
}
