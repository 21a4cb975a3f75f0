// What a fleet looks like to a person, wherever it is shown (the dashboard, the web view): the
// sections of each grouping, the filter, the rows in screen order (each section's title, then its
// tasks; each added host's block after this machine's), and the header's counts. Pure functions of
// the tasks; the ui-* and web-* files both draw from here.
import type { FleetLink } from "./client-fleet.ts";
import { tildePath } from "./paths.ts";
import { NO_GROUP } from "./task-labels.ts";
import { byCodeUnits, byNameIgnoringCase } from "./text-order.ts";
import { glyph } from "./view-task.ts";
import type { TaskInfo } from "./wire-protocol.ts";

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

/** The task whose wait began first first: `since` is an ISO 8601 time in UTC, ordered by its code units. */
export const waitedLonger = (a: TaskInfo, b: TaskInfo): number => byCodeUnits(a.attention!.since, b.attention!.since);

/**
 * Sections in display order; tasks by id within each (or by `order`); a section without tasks is not shown. By
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
    const named = [...new Set(sorted.map((t) => t.group).filter((g): g is string => g !== null))].sort(byNameIgnoringCase);
    for (const title of named) buckets.set(title, []);
  }
  for (const task of sorted) add(sectionOf(task, grouping, home), task);
  // The longest waiting first, as the web view lists them.
  if (grouping === "state") buckets.get("Waiting")!.sort((a, b) => waitedLonger(a, b) || a.id - b.id);
  let titles = [...buckets.keys()];
  if (grouping === "directory") {
    const first = here === undefined ? null : tildePath(here, home);
    titles = titles.sort(byNameIgnoringCase).sort((a, b) => Number(b === first) - Number(a === first));
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
export type ListRow =
  | { key: string; host: string | null; section: Section; task: null }
  | { key: string; host: string | null; section: Section; task: TaskInfo };

/** A task's key: its id, qualified by its host's name when it is another host's (`remote1:3`, as a TASK is written). */
export const taskKey = (id: number, host: string | null = null) => `task ${host === null ? "" : `${host}:`}${id}`;
export const sectionKey = (title: string, host: string | null = null) => `section ${host === null ? "" : `${host}:`}${title}`;

/** An added host's fleet as the dashboard holds it: shown as a section of its own, after this machine's. */
export interface HostBlock {
  name: string;
  /** Its home there: `~` in its directories. */
  home: string;
  link: FleetLink;
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
  heading: { name: string; link: FleetLink; tasks: number } | null;
  rows: ListRow[];
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

function blockRows(layout: Layout, fleet: { name: string | null; home: string | undefined; here: string | undefined; tasks: TaskInfo[] }): ListRow[] {
  const shown = fleet.tasks.filter((t) => matchesFilter(t, layout.filter, fleet.home));
  const host = fleet.name;
  return sections(shown, layout.grouping, fleet.home, fleet.here, layout.order).flatMap((section) => [
    // By id there is one section, and no title: nothing for the cursor to rest on but tasks.
    ...(layout.grouping === "id" ? [] : [{ key: sectionKey(section.title, host), host, section, task: null }]),
    ...section.tasks.map((task) => ({ key: taskKey(task.id, host), host, section, task })),
  ]);
}

/** The rows in screen order: what ↑/↓, Home/End and PgUp/PgDn walk through. */
export function screenRows(layout: Layout): ListRow[] {
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
