// Where the dashboard's cursor rests, what is selected, the filter, and `12⏎` jumps: pure state over
// the rows the view lays out (view-fleet.ts), so every rule here is tested without a terminal.
// The cursor rests on a row by its key (a task's id, a section's title), never by its position: a
// task that changes section takes the cursor along when it is the one under it and leaves it alone
// otherwise. When the cursor's row goes away, or a key moves it on by itself (`v`), it goes to a
// task, never a section's title: a title is only where ↑↓ and Home put it on purpose.
import type { TaskInfo } from "./wire-protocol.ts";
import type { Key } from "./ui-keys.ts";
import { taskKey, type ListRow } from "./view-fleet.ts";

export class ListCursor {
  /** The key of the row under the cursor; null until the first frame puts it on the first task. */
  key: string | null = null;
  /** Where the cursor's row was, for when that row goes away (its task removed or filtered out). */
  private index = 0;
  /**
   * Home or End was the last key: the cursor stays on the first or the last row while rows come and
   * go (tasks turning idle push a new last row every second), until the next key. What the user
   * pressed wins over keeping the cursor on its task.
   */
  pinned: "first" | "last" | null = null;
  /** Selected tasks, by taskKey. */
  readonly picked = new Set<string>();
  /** The filter's text; "" for none. */
  filter = "";

  /**
   * Where the cursor is among `rows`: on its row, or at the end Home or End pinned it to. When its
   * row went away it is on the task now nearest where it was; at first, on the first task.
   */
  at(rows: readonly ListRow[]): number {
    const at = this.pinned === "first" ? 0 : this.pinned === "last" ? rows.length - 1 : rows.findIndex((r) => r.key === this.key);
    if (at !== -1) return at;
    return nearestTask(rows, this.key === null ? 0 : Math.min(this.index, rows.length - 1));
  }

  row(rows: readonly ListRow[]): ListRow | undefined {
    return rows[this.at(rows)];
  }

  /** Each frame keeps the cursor on the row it is drawn on, so it stays there while rows come and go. */
  settle(rows: readonly ListRow[]): void {
    const at = this.at(rows);
    this.key = rows[at]?.key ?? null;
    this.index = Math.max(0, at);
  }

  /** ↑↓, PgUp/PgDn: `by` rows, titles included, stopping at the ends. */
  move(by: number, rows: readonly ListRow[]): void {
    this.moveTo(this.at(rows) + by, rows);
  }

  moveTo(index: number, rows: readonly ListRow[]): void {
    const row = rows[Math.min(rows.length - 1, Math.max(0, index))];
    if (row) this.key = row.key;
  }

  /** The next task after the cursor, past any title; stays when there is none. */
  nextTask(rows: readonly ListRow[]): void {
    const next = rows.findIndex((r, i) => i > this.at(rows) && r.task !== null);
    if (next !== -1) this.key = rows[next]!.key;
  }

  /** `v`: a task in or out of the selection, then the next task (so a run of rows is v v v); a title: its section. */
  toggle(row: ListRow, rows: readonly ListRow[]): void {
    const keys = row.task ? [row.key] : row.section.tasks.map((t) => taskKey(t.id, row.host));
    const all = keys.every((key) => this.picked.has(key));
    for (const key of keys) {
      if (all) this.picked.delete(key);
      else this.picked.add(key);
    }
    if (row.task) this.nextTask(rows);
  }

  /** `V`: every task shown selected, or, when they all are, none. */
  toggleAll(rows: readonly ListRow[]): void {
    const shown = rows.flatMap((r) => (r.task ? [r.key] : []));
    const all = shown.length > 0 && shown.every((key) => this.picked.has(key));
    this.picked.clear();
    if (!all) for (const key of shown) this.picked.add(key);
  }

  /** Esc: the selection goes first, then the filter. */
  escape(): void {
    if (this.picked.size > 0) this.picked.clear();
    else this.filter = "";
  }

  /** What X, r, g and m act on: the selection, else the section under the cursor, else the task (ui-dashboard-actions.ts). */
  targets(row: ListRow, every: readonly { key: string; task: TaskInfo }[]): TaskInfo[] {
    if (this.picked.size > 0) return every.flatMap(({ key, task }) => (this.picked.has(key) ? [task] : []));
    return row.task ? [row.task] : row.section.tasks;
  }

  /**
   * A key while the filter is typed: the rows narrow with each key; Enter (or Tab) keeps it, Esc
   * clears it. "typing" while it is still being typed, "done" when the keys go back to the list,
   * "moving" for a key that moves the cursor meanwhile.
   */
  filterKey(key: Key): "typing" | "done" | "moving" {
    if (key.name === "escape" || key.name === "ctrl-c") {
      this.filter = "";
      return "done";
    }
    if (key.name === "enter" || key.name === "tab") return "done";
    if (key.name === "backspace") this.filter = [...this.filter].slice(0, -1).join("");
    else if (key.name === "ctrl-u") this.filter = "";
    else if ((key.name === "char" || key.name === "space") && key.text) this.filter += key.text;
    else if (MOVING_KEYS.has(key.name)) return "moving";
    return "typing";
  }
}

/** The keys that still move the cursor while the filter is typed. */
const MOVING_KEYS = new Set<string>(["up", "down", "pageup", "pagedown", "home", "end"]);

/** The task row at or after `index`, else the last one before it; `index` itself when there is no task. */
function nearestTask(rows: readonly ListRow[], index: number): number {
  const after = rows.findIndex((r, i) => i >= index && r.task !== null);
  if (after !== -1) return after;
  const before = rows.findLastIndex((r, i) => i < index && r.task !== null);
  return before !== -1 ? before : Math.max(0, index);
}

/** `12⏎` (digits only) or `:gpu1:12⏎` (a reference: a host's name, `:`, digits), as typed so far. */
export interface Jump {
  typed: string;
  takes: "digits" | "reference";
}

/**
 * A key while a jump is typed. Begun with a digit it takes digits only, so a letter after them is
 * that letter's key; begun with `:` it takes a host's name and `:` too. Returns the jump as it goes
 * on, "go" (Enter), "cancel" (Esc, or Backspace over the last character), or "not mine" (the key
 * ends the jump and then acts).
 */
export function jumpKey({ typed, takes }: Jump, key: Key): Jump | "go" | "cancel" | "not mine" {
  const char = key.name === "char" ? key.text : "";
  if (/^[0-9]$/.test(char) || (takes === "reference" && /^[A-Za-z_:-]$/.test(char))) return { typed: typed + char, takes };
  if (key.name === "backspace") return typed.length > 1 ? { typed: typed.slice(0, -1), takes } : "cancel";
  if (key.name === "enter") return "go";
  if (key.name === "escape") return "cancel";
  return "not mine";
}

/**
 * The task `typed` names among `tasks` (`12`: this machine's task 12, else the first host's that has
 * one; `gpu1:12`, `local:12`), or why none.
 */
export function taskAt(
  typed: string,
  tasks: readonly { key: string; task: TaskInfo }[],
  hostNames: readonly string[],
): { key: string; task: TaskInfo } | string {
  const at = typed.lastIndexOf(":");
  const id = typed.slice(at + 1);
  if (!/^[0-9]+$/.test(id)) return `'${typed}' is not a task id (12, or HOST:12)`;
  if (at < 0) return tasks.find(({ task }) => task.id === Number(id)) ?? `no task ${id}`;
  const host = typed.slice(0, at);
  if (host !== "local" && !hostNames.includes(host)) return `no host '${host}' (${["local", ...hostNames].join(", ")})`;
  const key = taskKey(Number(id), host === "local" ? null : host);
  return tasks.find((t) => t.key === key) ?? `no task ${typed}`;
}
