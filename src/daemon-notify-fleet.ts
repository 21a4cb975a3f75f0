// Which of the fleet's news goes to notify's destinations: a task's end and each new wait, unless the
// task is muted or a person is typing into it (daemon-notify-gate.ts), and a push held back by the
// rate window only if it is still true when its turn comes. The destinations and their formats are
// daemon-notify.ts; an added host's news comes in through daemon-notify-hosts.ts.
import type { NotifyTarget } from "./config-notify.ts";
import type { Task } from "./daemon-task.ts";
import { PushGate, pushRules, ranMs } from "./daemon-notify-gate.ts";
import { pushHostNews } from "./daemon-notify-hosts.ts";
import { Push, type PushBody, pushState, pushTask, pushTiming, screenLines } from "./daemon-notify.ts";
import type { Settings } from "./settings.ts";
import type { Attention } from "./task-attention.ts";
import type { OpResult, PushStatus, TaskInfo } from "./wire-protocol.ts";

/** What the notify side reads back from the fleet. */
export interface NotifiedFleet {
  task(id: number): Task | undefined;
  /** A client is attached to the task (typing into it then silences its news). */
  isAttached(task: Task): boolean;
  log(message: string): void;
}

export class FleetNotify {
  private readonly push: Push;
  private readonly gate = new PushGate();

  constructor(
    private readonly fleet: NotifiedFleet,
    targets: NotifyTarget[],
    settings: Settings | undefined,
  ) {
    this.push = new Push({ timing: pushTiming(process.env, fleet.log), log: fleet.log, stillTrue: (body) => this.stillTrue(body) });
    this.configure(targets, settings);
  }

  /** At start and after every reload: the destinations, the minimum runtime and the idle spell. */
  configure(targets: NotifyTarget[], settings: Settings | undefined): void {
    const { minRuntimeMs, idleMs } = pushRules(settings);
    this.push.configure(targets, minRuntimeMs);
    this.gate.idleMs = idleMs;
  }

  /** An attached client typed into the task. */
  typed(task: Task): void {
    this.gate.typed(task.id);
  }

  /** A run ended, and no restart policy answers for it. */
  ended(task: Task, info: TaskInfo): void {
    if (this.gate.silent(task, this.fleet.isAttached(task))) return;
    this.push.ended(pushTask(info), task, ranMs(task), () => screenLines(task));
  }

  /** The task's attention changed: a new wait is pushed. */
  raised(task: Task, before: Attention | null, info: TaskInfo, isNew: boolean): void {
    if (!info.attention || !isNew || this.gate.silent(task, this.fleet.isAttached(task))) return;
    this.push.raised(pushTask(info), before, info.attention, () => screenLines(task));
  }

  /** An added host's news, from the link the daemon's process keeps to it: pushed from here, named by host. */
  hostNews(host: string, task: TaskInfo, before: TaskInfo | null, current: () => TaskInfo | null): void {
    pushHostNews(this.push, host, task, before, current);
  }

  forget(taskId: number): void {
    this.push.forget(taskId);
    this.gate.forget(taskId);
  }

  status(): PushStatus[] {
    return this.push.status();
  }

  test(): Promise<OpResult<"notifyTest">> {
    return this.push.test();
  }

  /** A push the rate window held back is sent when its turn comes only if it still says what is true. */
  private stillTrue(body: PushBody): boolean {
    const task = this.fleet.task(body.task.id);
    if (!task) return false;
    if (body.state === "finished" || body.state === "failed") return !task.running;
    return task.attention !== null && pushState(task.attention) === body.state;
  }
}
