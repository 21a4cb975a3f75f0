// While attached to one task, a one-line notice when a *different* task starts waiting (agents.md,
// Attention). It goes in the terminal's title, never on the screen: the attached screen belongs to
// the task, and any cell written over it (or a saved cursor, which tasks use too) could corrupt what
// the task drew. The title in place before is pushed on the terminal's title stack (XTWINOPS 22)
// and popped back (23) when no other task waits any more or when the client detaches.
// Bytes are only inserted where the task's output stream stands between escape sequences and
// characters, so a sequence split across chunks is never cut in two.
import { type Attention, isNewAttention } from "./task-attention.ts";
import { label } from "./task-labels.ts";
import { cut } from "./text-width.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import { TerminalScan } from "./text-scan.ts";
import { POP_TITLE, PUSH_TITLE, windowTitle } from "./text-ansi.ts";

const TITLE_MAX = 120;

export function noticeText(task: TaskInfo, attention: Attention): string {
  const why = attention.state === "bell" ? "rang the bell" : attention.state === "crash-loop" ? "is not restarted again" : `waits for ${attention.state}`;
  const message = attention.message ? `: ${attention.message}` : "";
  return cut(printable(`fleetcom ! task ${task.id} ${label(task)} ${why}${message}`), TITLE_MAX);
}

export class AttachNotice {
  private readonly waiting = new Map<number, Attention>();
  private readonly scan = new TerminalScan();
  /** The title we would like shown: a notice, or null to give the old title back. */
  private wanted: string | null = null;
  private shown: string | null = null;
  private pushed = false;
  private attachedId: number | null = null;

  constructor(private readonly write: (bytes: string) => void) {}

  /** The attached task and the fleet as it was then: tasks already waiting are not news. */
  attached(id: number, tasks: readonly TaskInfo[]): void {
    this.attachedId = id;
    for (const task of tasks) if (task.attention && task.id !== id) this.waiting.set(task.id, task.attention);
  }

  /** Attached mode moved to another task (a chord): that one is no longer news, the one left may be. */
  switched(id: number, tasks: readonly TaskInfo[]): void {
    this.attachedId = id;
    this.waiting.delete(id);
    for (const task of tasks) if (task.attention && task.id !== id && !this.waiting.has(task.id)) this.waiting.set(task.id, task.attention);
    if (this.waiting.size === 0) this.wanted = null;
    this.flush();
  }

  /** A task event: a different task that starts waiting (or waits in a new way) is news. */
  taskChanged(task: TaskInfo, removed = false): void {
    if (this.attachedId === null || task.id === this.attachedId) return;
    const before = this.waiting.get(task.id) ?? null;
    const after = removed ? null : task.attention;
    if (after) this.waiting.set(task.id, after);
    else this.waiting.delete(task.id);
    if (after && isNewAttention(before, after)) this.wanted = noticeText(task, after);
    else if (this.waiting.size === 0) this.wanted = null;
    this.flush();
  }

  /** The task's output, as it is written to the terminal: it decides when a title may go in. */
  output(chunk: Uint8Array): void {
    this.scan.push(chunk);
    this.flush();
  }

  /** What to write before leaving: the old title back. */
  end(): string {
    return this.pushed ? POP_TITLE : "";
  }

  private flush(): void {
    if (this.wanted === this.shown || !this.scan.atBoundary) return;
    if (this.wanted === null) {
      this.write(POP_TITLE);
      this.pushed = false;
    } else {
      this.write(`${this.pushed ? "" : PUSH_TITLE}${windowTitle(this.wanted)}`);
      this.pushed = true;
    }
    this.shown = this.wanted;
  }
}
