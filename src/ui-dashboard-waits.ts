// What the dashboard tells the host terminal about waits, so a dashboard left in a tmux window, a
// zellij pane or a terminal tab is noticed from elsewhere: the bell once per task that starts
// waiting (tmux's monitor-bell, zellij and terminal tabs flag the window on it; the `bell` setting
// turns it off), and the title with how many wait (`fleetcom ! 2 waiting`). A task already waiting
// when the dashboard opens is not news, and a redraw rings nothing. The title from before is kept
// on the terminal's title stack and given back on exit.
import { isNewAttention } from "./task-attention.ts";
import { BEL, POP_TITLE, PUSH_TITLE, windowTitle } from "./text-ansi.ts";
import type { TaskInfo } from "./wire-protocol.ts";

function waitsTitle(waiting: number): string {
  return waiting === 0 ? "fleetcom" : `fleetcom ! ${waiting} waiting`;
}

export class WaitSignals {
  /** The title written last; null before the first (nothing pushed yet) and after end(). */
  private shown: string | null = null;

  constructor(
    private readonly write: (bytes: string) => void,
    private readonly bell: boolean,
  ) {}

  /** A task event (`after` null: removed): the bell when the task starts waiting, or waits in a new way. */
  changed(before: TaskInfo | undefined, after: TaskInfo | null): void {
    if (this.bell && after && isNewAttention(before?.attention ?? null, after.attention)) this.write(BEL);
  }

  /** The title for the fleet as drawn: written only when it changes, the first time over the pushed old one. */
  title(tasks: Iterable<TaskInfo>): void {
    let waiting = 0;
    for (const task of tasks) if (task.attention) waiting++;
    const text = waitsTitle(waiting);
    if (text === this.shown) return;
    this.write(`${this.shown === null ? PUSH_TITLE : ""}${windowTitle(text)}`);
    this.shown = text;
  }

  /** Leaving: the title blanked (a terminal without a title stack keeps that), then the old one popped back. */
  end(): void {
    if (this.shown === null) return;
    this.write(`${windowTitle("")}${POP_TITLE}`);
    this.shown = null;
  }
}
