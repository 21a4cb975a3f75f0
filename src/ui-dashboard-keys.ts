// The dashboard's keys as the user reads about them: the hint line under the list and the `?` screen.
// One table each, so the two say the same thing; the keys themselves are handled in ui-dashboard.ts.
// The hint must fit one line at any width: the long form when it fits, else the compact form, else
// the most-used keys in compact form, always ending with `?:help` so the rest can be found.
import { fit } from "./ui-render.ts";
import { textWidth } from "./text-width.ts";
import { chordEntries } from "./ui-attach-chords.ts";

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
  { key: "s", short: "s", word: "grouping", shortWord: "sort", rank: 9 },
  { key: "w", short: "w", word: "save", rank: 9 },
  { key: "o", short: "o", word: "sessions", shortWord: "open", rank: 7 },
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

/** The hint for a terminal `columns` wide: never wider than a line may be, and `?:help` always in it. */
export function hintLine(columns: number): string {
  const fits = (line: string) => textWidth(line) < columns;
  const long = longForm(HINTS);
  if (fits(long)) return long;
  const compact = compactForm(HINTS);
  if (fits(compact)) return compact;
  // The most-used keys that fit; a key too long for the room left may still let a shorter one in.
  const kept = new Set<Hint>(HINTS.filter((h) => h.key === "?"));
  for (const hint of [...HINTS].sort((a, b) => a.rank - b.rank)) {
    if (kept.has(hint)) continue;
    const trial = new Set([...kept, hint]);
    if (fits(compactForm(HINTS.filter((h) => trial.has(h))))) kept.add(hint);
  }
  return fit(compactForm(HINTS.filter((h) => kept.has(h))), columns);
}

/** The hint while the filter is being typed. */
export const FILTER_HINT = "type to filter (name, command, dir, group) · ⏎ keep · esc clear · ↑↓ move";

/** Every key, for the `?` screen. `detach` is the detach key as the user set it (`Ctrl-\`). */
export function helpEntries(detach: string): [string, string][] {
  return [
    ["↑ ↓  k j", "move; a section's title is a row too"],
    ["Home End", "first / last row"],
    ["PgUp PgDn", "a page up / down"],
    ["12 ⏎", "go to task 12 (digits, then Enter)"],
    ["/", "filter by name, command, directory, group"],
    ["Esc", "clear the selection, then the filter"],
    ["Enter", `attach; ${detach} d comes back`],
    ["Space", "peek at the task's screen"],
    ["v", "select or unselect (on a title: its section)"],
    ["V", "select every task shown, or none"],
    ["X", "kill if running, remove if finished *"],
    ["r", "rerun finished tasks *"],
    ["g", "set the group *"],
    ["m", "toggle the in-use tag *"],
    ["R", "rename the task"],
    ["n", "new command here (by group: in that group)"],
    ["s", "group by state, directory, group"],
    ["w", "save the fleet as a session"],
    ["o", "open a saved session or a snapshot"],
    ["q Ctrl-C", "detach, leaving everything running"],
    ["Q", "stop every task and the daemon"],
    ["*", "acts on the selection, else the section under the cursor, else the task"],
    // Attached, from the chord table (ui-attach-chords.ts), one chord a line.
    ...chordEntries(detach),
  ];
}

/**
 * The `?` screen in at most `rows` lines: one key a line, in two columns when one does not fit the
 * height and the width allows it; cut with `⋮` as a last resort.
 */
export function helpLines(detach: string, columns: number, rows: number): string[] {
  const entries = helpEntries(detach);
  const keyWidth = Math.max(...entries.map(([key]) => textWidth(key)));
  const cell = ([key, what]: [string, string]) => `${key}${" ".repeat(keyWidth - textWidth(key))}  ${what}`;
  const title = "Keys (any key returns)";
  const room = Math.max(1, rows - 1);
  if (entries.length <= room) return [title, ...entries.map((e) => fit(`  ${cell(e)}`, columns))];
  const half = Math.ceil(entries.length / 2);
  const left = entries.slice(0, half).map(cell);
  const leftWidth = Math.max(...left.map(textWidth));
  if (half <= room && columns >= leftWidth + 40) {
    const right = entries.slice(half).map(cell);
    return [title, ...left.map((l, i) => fit(`  ${l}${" ".repeat(leftWidth - textWidth(l))}   ${right[i] ?? ""}`.trimEnd(), columns))];
  }
  return [
    title,
    ...entries.slice(0, room - 1).map((e) => fit(`  ${cell(e)}`, columns)),
    fit(`  ⋮ ${entries.length - room + 1} more (a taller terminal shows them)`, columns),
  ];
}
