// The dashboard sits under the shell's prompt and takes one key per action, so a command line typed
// or pasted into it by mistake would be a string of actions (`r` reruns, `/` swallows the rest).
// Keys that come faster than a person presses them are not the dashboard's: a paste, bracketed (the
// dashboard asks the terminal to mark pastes) or not, and several printable keys in one read (a
// terminal hands each key pressed over on its own; only a paste, `tmux send-keys` or keys typed
// while the dashboard was busy come together). Such a read is dropped whole (a long paste comes in
// several reads, each of them a burst). Keys that only move the cursor are no burst: `j`, `k` and
// the arrows held down, and a task's id with or without its Enter (`57⏎`, a jump): moving does
// nothing that needs undoing.
// Keys read one at a time are never judged by how soon they follow each other: a person reacting to
// the screen is slow, a script driving the dashboard key by key (a test, tmux send-keys) is not, and
// must not be taken for a paste. What this misses: an unbracketed paste whose last read holds a
// single key.
import { CSI } from "./text-ansi.ts";
import type { Key } from "./ui-keys.ts";

/** Bracketed paste: the terminal marks pasted text, which the dashboard then takes for no key. */
export const PASTE_MARKS_ON = `${CSI}?2004h`;
export const PASTE_MARKS_OFF = `${CSI}?2004l`;

/** What the dashboard says when it drops a burst. */
export const BURST_NOTICE = "this is the fleetcom dashboard: q leaves";

const MOVING = new Set(["up", "down", "pageup", "pagedown", "j", "k"]);

const printable = (key: Key) => key.name === "char" || key.name === "space";
const moving = (key: Key) => MOVING.has(key.name === "char" ? key.text : key.name);
const digit = (key: Key) => key.name === "char" && /^[0-9]$/.test(key.text);
/** `57` or `57⏎`: a jump to a task by its id. */
const isJump = (read: readonly Key[]) => read.every((key, i) => digit(key) || (key.name === "enter" && i === read.length - 1 && i > 0));

export class BurstGuard {
  /** Inside a bracketed paste, which may span several reads. */
  private pasting = false;
  /** Whether the last read was dropped as a burst's. */
  private lastDropped = false;
  /** The read last judged: every key of a read is judged as the read is, once. */
  private judged: readonly Key[] | null = null;

  /**
   * `dropped` for the read a key came in, judged at its first key (`fresh`). While text is typed
   * (`text`: the filter) keys that come together are text: only a bracketed paste is a burst.
   */
  judge(read: readonly Key[], text = false): { dropped: boolean; fresh: boolean } {
    if (this.judged === read) return { dropped: this.lastDropped, fresh: false };
    this.judged = read;
    return { dropped: this.dropped(read, text), fresh: true };
  }

  /** One read of keys: true when its keys are a burst's, to be dropped. */
  dropped(read: readonly Key[], text = false): boolean {
    const pasted = this.pasting || read.some((k) => k.name === "paste-start");
    const burst = pasted || (!text && this.looksPasted(read));
    for (const key of read) {
      if (key.name === "paste-start") this.pasting = true;
      else if (key.name === "paste-end") this.pasting = false;
    }
    this.lastDropped = burst;
    return burst;
  }

  /** Several printable keys in one read: nobody types two keys within one read of the terminal. */
  private looksPasted(read: readonly Key[]): boolean {
    return read.filter(printable).length > 1 && !read.every(moving) && !isJump(read);
  }
}
