// The dashboard's keys as the user reads about them: the hint line under the list and the `?` screen.
// One table each, so the two say the same thing; the keys themselves are handled in ui-dashboard.ts.
// The hint must fit one line at any width: the long form when it fits, else the compact form, else
// the most-used keys in compact form, always ending with `?:help` so the rest can be found.
import { fit } from "./ui-render.ts";
import { textWidth } from "./text-width.ts";
import { chordEntries } from "./ui-attach-chords.ts";
import { keyEntry, type KeyId } from "./ui-keys.ts";

interface Hint {
  /** The key in the long form (`enter`) and the compact one (`⏎`). */
  key: string;
  short: string;
  word: string;
  /** A shorter word for the compact form. */
  shortWord?: string;
  /** 1 is kept longest as the terminal narrows. */
  rank: number;
}

// In the order they are shown. Ranks: how to leave and attach, then finding a row, then the rest.
const HINTS: Hint[] = [
  { key: "↑↓", short: "↑↓", word: "move", rank: 2 },
  { key: "enter", short: "⏎", word: "attach", rank: 1 },
  { key: "space", short: "␣", word: "peek", rank: 4 },
  { key: "/", short: "/", word: "filter", rank: 2 },
  { key: "v", short: "v", word: "select", rank: 6 },
  { key: "n", short: "n", word: "new", rank: 5 },
  { key: "r", short: "r", word: "rerun", rank: 7 },
  { key: "R", short: "R", word: "rename", shortWord: "name", rank: 8 },
  { key: "g", short: "g", word: "group", rank: 7 },
  { key: "m", short: "m", word: "tag", rank: 8 },
  { key: "X", short: "X", word: "kill/rm", rank: 3 },
  { key: "s", short: "s", word: "grouping", rank: 9 },
  { key: "w", short: "w", word: "save", rank: 9 },
  { key: "o", short: "o", word: "sessions", shortWord: "open", rank: 7 },
  { key: "d", short: "d", word: "diff", rank: 9 },
  { key: "q", short: "q", word: "detach", rank: 1 },
  { key: "Q", short: "Q", word: "stop all", rank: 9 },
  { key: "?", short: "?", word: "help", rank: 0 },
];

const longForm = (hints: Hint[]) => hints.map((h) => `${h.key} ${h.word}`).join(" · ");

const compactOne = (h: Hint) => (h.short === "↑↓" ? h.short : `${h.short}:${h.shortWord ?? h.word}`);

/** Compact form: how to leave first (it matters most on a narrow terminal), help last. */
function compactForm(hints: Hint[]): string {
  const first = hints.filter((h) => h.key === "q");
  const last = hints.filter((h) => h.key === "?");
  const middle = hints.filter((h) => h.key !== "q" && h.key !== "?");
  return [...first, ...middle, ...last].map(compactOne).join(" ");
}

/** In foreground mode the supervisor is this process: `q` stops it, and says so. */
const FOREGROUND_Q: Partial<Hint> = { word: "stop (foreground)", shortWord: "stop" };

/** The hint for a terminal `columns` wide: never wider than a line may be, and `?:help` always in it. */
export function hintLine(columns: number, foreground = false): string {
  const hints = foreground ? HINTS.map((h) => (h.key === "q" ? { ...h, ...FOREGROUND_Q } : h)) : HINTS;
  const fits = (line: string) => textWidth(line) < columns;
  const long = longForm(hints);
  if (fits(long)) return long;
  const compact = compactForm(hints);
  if (fits(compact)) return compact;
  // The most-used keys that fit; a key too long for the room left may still let a shorter one in.
  const kept = new Set<Hint>(hints.filter((h) => h.key === "?"));
  for (const hint of [...hints].sort((a, b) => a.rank - b.rank)) {
    if (kept.has(hint)) continue;
    const trial = new Set([...kept, hint]);
    if (fits(compactForm(hints.filter((h) => trial.has(h))))) kept.add(hint);
  }
  return fit(compactForm(hints.filter((h) => kept.has(h))), columns);
}

/** The hint while the filter is being typed. */
export const FILTER_HINT = "type to filter (name, command, dir, group) · ⏎ keep · esc clear · ↑↓ move";

/** Every key, for the `?` screen. `detach` is the detach key as the user set it (`Ctrl-\`). */
export function helpEntries(detach: string, foreground = false): [string, string][] {
  return [
    ["↑ ↓  k j", "move; a section's title is a row too"],
    ["Home End", "first / last row"],
    ["PgUp PgDn", "a page up / down"],
    ["12 ⏎", "go to task 12; :gpu1:12 ⏎ a host's task 12"],
    ["/", "filter by name, command, directory, group"],
    ["Esc", "clear the selection, then the filter"],
    ["Enter", `attach; ${detach} d comes back`],
    // One line for the three: the ? screen must fit 16 rows in two columns.
    ["Space · d · c", "peek at the screen · its diff · its checkpoints"],
    ["v", "select or unselect (on a title: its section)"],
    ["V", "select every task shown, or none"],
    ["X", "kill if running, remove if finished *"],
    ["r", "rerun finished tasks *"],
    ["g", "set the group *"],
    ["m", "toggle the in-use tag *"],
    ["R", "rename the task"],
    ["n", "new command here (by group: in that group)"],
    ["s  u", "group by state, directory, group, none (by id) · sort by CPU, memory, id"],
    ["w", "save the fleet as a session"],
    ["o", "open a saved session or a snapshot"],
    ["q Ctrl-C", foreground ? "stop (foreground): every task and the supervisor, after y/N" : "detach, leaving everything running"],
    ["Q", "stop every task and the daemon"],
    ["*", "acts on the selection, else the section under the cursor, else the task"],
    // Attached, from the chord table (ui-attach-chords.ts), one chord a line.
    ...chordEntries(detach),
  ];
}

/**
 * The `?` screen in at most `rows` lines: one key a line, in two columns when one does not fit the
 * height and the width allows it; else one column that scrolls, `scroll` lines down (at most
 * helpScrollMax()), with `⋮ N more` where lines are cut off above and below.
 */
export function helpLines(detach: string, columns: number, rows: number, { scroll = 0, foreground = false } = {}): string[] {
  const { cells, room, layout } = helpLayout(helpEntries(detach, foreground), columns, rows);
  if (layout === "one column") return ["Keys (any key returns)", ...cells.map((c) => fit(`  ${c}`, columns))];
  if (layout === "two columns") {
    const half = Math.ceil(cells.length / 2);
    const [left, right] = [cells.slice(0, half), cells.slice(half)];
    const leftWidth = Math.max(...left.map(textWidth));
    const lines = left.map((l, i) => fit(`  ${l}${" ".repeat(leftWidth - textWidth(l))}   ${right[i] ?? ""}`.trimEnd(), columns));
    return ["Keys (any key returns)", ...lines];
  }
  const lines = cells.map((c) => fit(`  ${c}`, columns));
  return [fit(HELP_SCROLL_TITLE, columns), ...scrolled(lines, room, Math.min(scroll, lastScroll(lines.length, room)), columns)];
}

/** The `?` screen's title while it scrolls: the keys that scroll it, and that any other key returns. */
const HELP_SCROLL_TITLE = "Keys (↑↓ PgUp PgDn Home End scroll · any other key returns)";

/** How far the `?` screen scrolls at most in `rows` lines: 0 when everything shows at once. */
export function helpScrollMax(detach: string, columns: number, rows: number, foreground = false): number {
  const { cells, room, layout } = helpLayout(helpEntries(detach, foreground), columns, rows);
  return layout === "scrolls" ? lastScroll(cells.length, room) : 0;
}

/** Where a key leaves the `?` screen scrolled (`max` at most, `page` lines a page); null when it closes it (any key but the scrolling ones, or nothing to scroll). */
export function helpScrolled(scroll: number, name: string, max: number, page: number): number | null {
  const by: Partial<Record<KeyId, number>> = { up: -1, k: -1, down: 1, j: 1, pageup: -page, pagedown: page, home: -max, end: max };
  const step = keyEntry(by, name);
  return max === 0 || step === undefined ? null : Math.min(max, Math.max(0, scroll + step));
}

/** Each key's line (`key  what`, the keys padded to one width), the room under the title, and how they fit it. */
function helpLayout(
  entries: [string, string][],
  columns: number,
  rows: number,
): { cells: string[]; room: number; layout: "one column" | "two columns" | "scrolls" } {
  const keyWidth = Math.max(...entries.map(([key]) => textWidth(key)));
  const cells = entries.map(([key, what]) => `${key}${" ".repeat(keyWidth - textWidth(key))}  ${what}`);
  const room = Math.max(1, rows - 1);
  if (cells.length <= room) return { cells, room, layout: "one column" };
  const half = Math.ceil(cells.length / 2);
  const leftWidth = Math.max(...cells.slice(0, half).map(textWidth));
  return { cells, room, layout: half <= room && columns >= leftWidth + 40 ? "two columns" : "scrolls" };
}

/** The first line shown when scrolled to the end: everything after it fits under the `⋮` above. */
function lastScroll(count: number, room: number): number {
  return Math.max(0, room < 3 ? count - room : count - (room - 1));
}

/** `room` lines of `lines` from `from`, a `⋮ N more` line standing for what is cut off above and below. */
function scrolled(lines: string[], room: number, from: number, columns: number): string[] {
  if (room < 3) return lines.slice(from, from + room);
  const more = (n: number) => fit(`  ⋮ ${n} more`, columns);
  const above = from > 0 ? [more(from)] : [];
  const left = room - above.length;
  if (lines.length - from <= left) return [...above, ...lines.slice(from)];
  return [...above, ...lines.slice(from, from + left - 1), more(lines.length - from - (left - 1))];
}
