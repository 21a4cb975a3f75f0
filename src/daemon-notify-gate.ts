// Whether a task's news goes to notify at all (docs/notify.md, When nothing is sent): not for a task
// muted (`run --no-notify`, a recipe's `"notify": false`, `fleetcom notify off`), nor for one a person
// is attending to, attached to it (in a terminal or the web view) and typing into it: they are looking
// at what a push would tell them, and a buzz per answer is noise.
import type { Task } from "./daemon-task.ts";
import { DEFAULT_NOTIFY_IDLE, DEFAULT_NOTIFY_MIN_RUNTIME, type Settings } from "./settings.ts";

export class PushGate {
  /** When an attached client last typed into each task (monotonic). */
  private readonly typedAt = new Map<number, number>();
  /** Typing this recently into a task one is attached to counts as attending to it (`notify_idle`). */
  idleMs = DEFAULT_NOTIFY_IDLE * 1000;

  typed(taskId: number, now = performance.now()): void {
    this.typedAt.set(taskId, now);
  }

  forget(taskId: number): void {
    this.typedAt.delete(taskId);
  }

  /** Nothing goes out about this task now: it is muted, or someone attached to it typed into it lately. */
  silent(task: { id: number; notify: boolean }, attached: boolean, now = performance.now()): boolean {
    if (!task.notify) return true;
    const typed = this.typedAt.get(task.id);
    return attached && typed !== undefined && now - typed < this.idleMs;
  }
}

/** `notify_min_runtime` and `notify_idle` in milliseconds; their defaults for a daemon handed no settings. */
export function pushRules(settings: Settings | undefined): { minRuntimeMs: number; idleMs: number } {
  return {
    minRuntimeMs: (settings?.notifyMinRuntime.value ?? DEFAULT_NOTIFY_MIN_RUNTIME) * 1000,
    idleMs: (settings?.notifyIdle.value ?? DEFAULT_NOTIFY_IDLE) * 1000,
  };
}

/** How long the task's run that just ended lasted: `finished` is pushed only past notify_min_runtime. */
export function ranMs(task: Pick<Task, "startedAt" | "endedAt">): number {
  return (task.endedAt?.getTime() ?? Date.now()) - task.startedAt.getTime();
}

/** A recipe keeps `"notify": false` only: a task that pushes writes nothing, so its recipe stays as it was. */
export function mutedOf(task: Pick<Task, "notify">): { notify?: false } {
  return task.notify ? {} : { notify: false };
}
