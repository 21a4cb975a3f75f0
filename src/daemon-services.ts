// Keeping services up (docs/services.md), as one part of the fleet: the readiness probes
// (daemon-ready.ts), the start order of entries waiting on others (daemon-order.ts) and the restart
// policies (daemon-restarts.ts), and how each moves the others: a run that starts begins its probe,
// a probe that settles or a run that ends makes waiting entries look again, and a probe that gives
// up, or a run over its --max-memory, stops the run so that its restart policy, if it has one,
// starts it again.
import { ReadinessProbes } from "./daemon-ready.ts";
import { StartOrder, stopInOrder } from "./daemon-order.ts";
import { Restarts } from "./daemon-restarts.ts";
import type { Task } from "./daemon-task.ts";

/** What keeping services up asks of the fleet (daemon.ts). */
export interface ServiceFleet {
  tasks(): Iterable<Task>;
  /** Whether this very task is still in the fleet. */
  holds(task: Task): boolean;
  stopping(): boolean;
  scrollback(): number;
  /** Clients hear of the task again; `recipeChanged`: a snapshot keeps what changed. */
  changed(task: Task, recipeChanged: boolean): void;
  log(message: string): void;
}

export class Services {
  readonly restarts: Restarts;
  readonly order: StartOrder;
  private readonly readiness: ReadinessProbes;

  constructor(private readonly fleet: ServiceFleet) {
    this.order = new StartOrder(() => fleet.tasks(), fleet.stopping);
    this.restarts = new Restarts({
      holds: fleet.holds,
      stopping: fleet.stopping,
      scrollback: fleet.scrollback,
      changed: (task) => fleet.changed(task, true),
      log: fleet.log,
    });
    this.readiness = new ReadinessProbes({
      changed: (task) => {
        if (fleet.holds(task)) fleet.changed(task, false);
        this.order.look();
      },
      gaveUp: (task) => this.restarts.notReady(task),
    });
  }

  /** A run began: its readiness probe starts, and entries waiting for it to start look again. */
  started(task: Task): void {
    this.readiness.begin(task);
    this.order.look();
  }

  output(task: Task, chunk: Uint8Array): void {
    if (task.readiness?.state === "starting") this.readiness.output(task, chunk);
  }

  /**
   * A run ended: its policy answers first (true when it restarts the task or gives up on it, so the
   * end is not told as one), then its probe stops and waiting entries look again.
   */
  ended(task: Task): boolean {
    const answered = this.restarts.ended(task);
    this.readiness.end(task);
    this.order.look();
    return answered;
  }

  /** Its group passed its --max-memory: stopped, saying why, and restarted under its policy (Restarts.overMemory). */
  overMemory(task: Task, reason: string): void {
    if (this.restarts.overMemory(task, reason)) this.fleet.changed(task, false);
  }

  /** The task left the fleet: no probe, no restart. */
  removed(task: Task): void {
    this.readiness.end(task);
    this.restarts.cancel(task);
  }

  /** The daemon begins to stop: no restart starts any more. */
  stopping(): void {
    this.restarts.stop();
  }

  /** Ends every task, dependents first, each with its own stop; then no probe tries any more. */
  async stopAll(tasks: readonly Task[]): Promise<void> {
    await stopInOrder(tasks);
    this.readiness.dispose();
  }
}
