// Rows that move, and rows that stay put. A task that changes section (turns waiting, idle,
// finished; is tagged or regrouped) is marked `↑`/`↓` for a few seconds, the way it went in the
// order of the sections. A task flipping between Running and Idle (a watcher that prints every few
// seconds) would move every row below it each time: a flip that comes within HOLD_MS of the task's
// last move waits until that much has passed, so a task moves the rows under the cursor at most
// once per HOLD_MS. Pure state with the time passed in; the dashboard's age tick redraws it, which
// shows a held flip once it is due.
import { sectionOf, sections, type Grouping } from "./view-fleet.ts";
import type { TaskInfo } from "./wire-protocol.ts";

/** How long a task that changed section keeps its ↑/↓ mark. */
const MOVED_MS = 5_000;
/** A task moves between Running and Idle at most this often. */
export const HOLD_MS = 1_000;

/** Where a task is listed: how its fleet is grouped, and what orders the sections (the home, the dashboard's directory). */
export interface Where {
  grouping: Grouping;
  home: string | undefined;
  here?: string | undefined;
}

export class SectionMoves {
  private readonly marks = new Map<string, { way: "up" | "down"; until: number }>();
  /** Each task as the list showed it last, and when its idleness last changed there. */
  private readonly shown = new Map<string, { task: TaskInfo; since: number }>();

  constructor(private readonly holdMs = HOLD_MS) {}

  /**
   * `task` as the list shows it at `now`: its idleness held as it was shown while its last flip is
   * under HOLD_MS old. A flip that shows now is marked as a move.
   */
  show(key: string, task: TaskInfo, now: number, where: Where): TaskInfo {
    const last = this.shown.get(key);
    if (!last) {
      this.shown.set(key, { task, since: Number.NEGATIVE_INFINITY });
      return task;
    }
    const flips = task.state === "running" && task.idle !== last.task.idle;
    if (flips && now - last.since < this.holdMs) {
      const held = { ...task, idle: last.task.idle };
      this.shown.set(key, { task: held, since: last.since });
      return held;
    }
    this.shown.set(key, { task, since: flips ? now : last.since });
    this.mark(key, last.task, task, now, where);
    return task;
  }

  /** The task as the list showed it last, if it did. */
  last(key: string): TaskInfo | undefined {
    return this.shown.get(key)?.task;
  }

  /** A task is gone: it is neither marked nor held any more. */
  forget(key: string): void {
    this.shown.delete(key);
    this.marks.delete(key);
  }

  /** `before` → `after` changed section: mark it, with the way it went, the section it left counted as still there. */
  mark(key: string, before: TaskInfo, after: TaskInfo, now: number, where: Where): void {
    const from = sectionOf(before, where.grouping, where.home);
    const to = sectionOf(after, where.grouping, where.home);
    if (from === to) return;
    // The sections' order depends on their titles alone, never on what else they hold: the two
    // the task left and entered are ordered as the whole list orders them.
    const order = sections([before, after], where.grouping, where.home, where.here).map((s) => s.title);
    this.marks.set(key, { way: order.indexOf(to) < order.indexOf(from) ? "up" : "down", until: now + MOVED_MS });
  }

  /** The marks still shown at `now`. */
  ways(now: number): Map<string, "up" | "down"> {
    for (const [key, mark] of this.marks) if (mark.until <= now) this.marks.delete(key);
    return new Map([...this.marks].map(([key, mark]) => [key, mark.way]));
  }

  /** Another grouping: the marks said where tasks went in the old one. */
  regrouped(): void {
    this.marks.clear();
  }
}
