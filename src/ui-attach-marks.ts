// What attached mode draws over the task's last row by itself, in reverse video, the task's screen
// in the daemon untouched: how a finished task ended, and that this terminal shows a part.
//
// Two clients of different sizes on one task: the last to attach or resize sets the task's size
// (docs/dashboard.md, Attached mode), so a smaller terminal shows only a part of the task's screen, its last
// rows and right columns cut off. It says so, as tmux marks what a window does not cover: a marker
// in reverse video on the terminal's last row (in the status line when that shows), redrawn after
// the task's output, until the sizes agree again (this terminal attaches again or is resized, or
// the other one leaves the task smaller). Following the smallest client instead (tmux's
// `window-size smallest`) would shrink the task under the user at the bigger terminal whenever a
// phone looks in; see docs/dashboard.md, Two terminals of different sizes.
import { cut } from "./text-width.ts";
import { stateText } from "./view-task.ts";
import { label } from "./task-labels.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import { cursorTo, ERASE_LINE, RESTORE_CURSOR, REVERSE_VIDEO, SAVE_CURSOR, SGR_RESET } from "./text-ansi.ts";
import { StatusRowGuard } from "./ui-attach-status.ts";

/**
 * How a finished task ended, drawn over the last row of its screen by the client alone: a redraw or
 * a detach takes it away. DECSC/DECRC put the cursor and pen back; a finished task has no output
 * left that could have saved its own.
 */
export function finishedNotice(task: TaskInfo, size: Size, detach: string, asking = false): string {
  const then = asking ? `rerun ${printable(label(task))}? y/N` : `r rerun · ${detach} back`;
  return lastRow(`[task ${task.id} ${stateText(task)} · ${then}]`, size.rows, size.cols);
}

/**
 * A key on a finished task's screen: `r` reruns it, but a one-off (started by `run` or `n`, not by
 * a load) only after `y`, as the dashboard's `r` (`confirm`: questions are on). "notice": the plain
 * notice again (the question answered no); "none": nothing to do.
 */
export function finishedKey(bytes: Uint8Array, task: TaskInfo, asked: boolean, confirm: boolean): "rerun" | "ask" | "notice" | "none" {
  if (asked) return bytes.includes(YES_KEY) || bytes.includes(YES_KEY_UPPER) ? "rerun" : "notice";
  if (!bytes.includes(RERUN_KEY)) return "none";
  return task.loaded || !confirm ? "rerun" : "ask";
}

const RERUN_KEY = 0x72; // r
const YES_KEY = 0x79; // y
const YES_KEY_UPPER = 0x59; // Y

function lastRow(text: string, rows: number, cols: number): string {
  return `${SAVE_CURSOR}${cursorTo(rows)}${REVERSE_VIDEO}${ERASE_LINE}${cut(text, Math.max(1, cols - 1))}${SGR_RESET}${RESTORE_CURSOR}`;
}

export interface Size {
  cols: number;
  rows: number;
}

/** The marker's words: this terminal shows a part of a task `task` big. */
export function partText(task: Size, shown: Size): string {
  return `part shown: the task is ${task.cols}×${task.rows}, this terminal ${shown.cols}×${shown.rows} · attach again to fit`;
}

export class PartMarker {
  /** The task's size while it is bigger than what this terminal gives it; null when it fits. */
  private bigger: Size | null = null;
  private shown: Size = { cols: 0, rows: 0 };
  /** Watches for a cursor the task saved: the marker saves and restores the cursor, and that slot is the task's then. */
  private watch = new StatusRowGuard(false);

  /** The task's size (from its events) against what this terminal gives it; true when the marker appears or goes. */
  update(task: Size, shown: Size): boolean {
    const was = this.bigger !== null;
    this.shown = shown;
    this.bigger = task.cols > shown.cols || task.rows > shown.rows ? { cols: task.cols, rows: task.rows } : null;
    if (this.bigger && !was) this.watch = new StatusRowGuard(false);
    return was !== (this.bigger !== null);
  }

  /** The marker's words while a part is shown, else null. */
  text(): string | null {
    return this.bigger && partText(this.bigger, this.shown);
  }

  /** The task's output, followed while the marker shows (or a sequence is held): what to write of it. */
  follow(bytes: Uint8Array, taskRows: number): Uint8Array {
    if (!this.bigger && !this.watch.holding) return bytes;
    return this.watch.push(bytes, taskRows).bytes;
  }

  /** The bytes that draw the marker on the terminal's last row (`rows`), or "" when none shows or it may not be drawn now. */
  bytes(rows: number, cols: number, atBoundary: boolean): string {
    const text = this.text();
    if (text === null || !atBoundary || this.watch.savedCursor) return "";
    return lastRow(text, rows, cols);
  }
}
