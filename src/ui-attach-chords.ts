// Attached mode's chords in one table: the keys that may follow the detach key (Ctrl-\ unless set
// otherwise), what each does, and every way they are listed: the chord list while attached
// (`Ctrl-\ ?`), the armed marker, the status line, the dashboard's `?` screen, `attach --help` and
// docs/dashboard.md. test/unit/attach-keys.test.ts checks that each listing names every chord.
// ui-attach.ts does what an action says; ui-attach-input.ts tells the detach key and its chord apart.
//
// After the detach key fleetcom waits for the next key with no time limit, as tmux's prefix does:
// a chord key does its chord, the detach key again sends one to the task, Esc (or any escape
// sequence: an arrow, a function key) stays, and any other key detaches. So the detach key still
// detaches (the spec's `Ctrl-\ detaches`) once any key follows it, and a chord key typed late is
// never typed into the dashboard or the shell behind.

import type { KeyId } from "./ui-keys.ts";

export type ChordAction = "detach" | "next" | "previous" | "waiting" | "history" | "status" | "help";

export interface Chord {
  /** The keys, first the one shown in short listings; `[` is tmux's key for its copy mode. */
  keys: readonly KeyId[];
  action: ChordAction;
  /** What it does, for the chord list and the dashboard's `?` screen. */
  help: string;
  /** One word for the status line and the armed marker. */
  word: string;
}

export const CHORDS: readonly Chord[] = [
  { keys: ["d"], action: "detach", help: "detach (so does any key not listed; Esc stays)", word: "detach" },
  { keys: ["n"], action: "next", help: "next task", word: "next" },
  { keys: ["p"], action: "previous", help: "previous task", word: "prev" },
  { keys: ["w"], action: "waiting", help: "next task that waits for you", word: "waiting" },
  { keys: ["h", "["], action: "history", help: "scroll back: the whole history in $PAGER", word: "history" },
  { keys: ["s"], action: "status", help: "status line on or off", word: "status" },
  { keys: ["?"], action: "help", help: "these keys, over the task's screen (any key closes them)", word: "help" },
];

/** The chord a key after the detach key names: `ctrl-n` is `n` when it has no entry of its own, so Ctrl may stay held. */
export function chordFor(key: string): Chord | undefined {
  const bare = key.startsWith("ctrl-") ? key.slice(5) : null;
  const named = (name: string) => CHORDS.find((c) => c.keys.some((k) => k === name));
  return named(key) ?? (bare === null ? undefined : named(bare));
}

/** Every line of the chord list, as [keys, what]: the chords, then the detach key twice. */
export function chordEntries(detach: string): [string, string][] {
  return [...CHORDS.map((c): [string, string] => [`${detach} ${c.keys.join("/")}`, c.help]), [`${detach} ${detach}`, `send ${detach} to the task`]];
}

/** `n next · p prev · …`: the chords in one line, for the status line and the armed marker. */
export function chordWords(): string {
  return CHORDS.map((c) => `${c.keys.join("/")} ${c.word}`).join(" · ");
}

/** The chords in one sentence, for `attach --help`. */
export function chordSummary(detach: string): string {
  return `${detach} then ${chordWords()}; ${detach} twice sends it to the task, ${detach} Esc stays, any other key after ${detach} detaches`;
}

/** The marker shown while the detach key waits for its chord key. */
export function armedText(detach: string): string {
  return `${detach} … ${chordWords()} · Esc stay`;
}

/** The chord list drawn over the task's screen by `Ctrl-\ ?`: a title, then one chord a line. */
export function chordListLines(detach: string): string[] {
  const entries = chordEntries(detach);
  const width = Math.max(...entries.map(([keys]) => keys.length));
  return [`Attached mode: ${detach} then a key`, ...entries.map(([keys, what]) => `  ${keys.padEnd(width)}  ${what}`)];
}

/** The chords as a Markdown table, as docs/dashboard.md shows them. */
export function chordMarkdown(detach: string): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  return ["| keys | does |", "|---|---|", ...chordEntries(detach).map(([keys, what]) => `| \`${keys}\` | ${cell(what)} |`)].join("\n");
}
