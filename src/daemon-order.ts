// Start and stop order (docs/services.md). A loaded entry with `after` waits here, in the daemon, so
// it starts when its conditions hold even once the loading client has gone; one whose dependency
// fails is never started and says why. A stop ends dependents before what they depend on, each with
// its own signal and timeout. The rules are task-order.ts's.
import type { Task } from "./daemon-task.ts";
import { conditionsOf, type DependencyState, notStartedText, stopWaves, verdict } from "./task-order.ts";

/** An entry waiting on others: started by `start` once every condition holds. */
interface Held {
  name: string | null;
  after: Parameters<typeof conditionsOf>[0];
  start(): Task;
  settle(outcome: { task: Task } | { notStarted: string }): void;
}

export class StartOrder {
  private readonly held = new Set<Held>();
  private looking = false;

  /** `tasks`: the fleet's; `stopping`: a daemon on its way out starts nothing more (its snapshot keeps what waited). */
  constructor(
    private readonly tasks: () => Iterable<Task>,
    private readonly stopping: () => boolean,
  ) {}

  /** Waits until `after` holds and starts the entry then, or never, and says why. */
  hold(name: string | null, after: Held["after"], start: () => Task): Promise<{ task: Task } | { notStarted: string }> {
    return new Promise((settle) => {
      this.held.add({ name, after, start, settle });
      this.look();
    });
  }

  /** Something changed (a run started or ended, a probe settled): each waiting entry is looked at again, soon. */
  look(): void {
    if (this.looking || this.held.size === 0) return;
    this.looking = true;
    queueMicrotask(() => {
      this.looking = false;
      this.decide();
    });
  }

  /** Until nothing more changes: an entry that fails may leave another without its dependency. */
  private decide(): void {
    if (this.stopping()) return;
    for (let changed = true; changed; ) {
      changed = false;
      for (const held of [...this.held]) {
        const outcome = this.outcome(held);
        if (outcome === "wait") continue;
        this.held.delete(held);
        changed = true;
        if (outcome === "met") held.settle({ task: held.start() });
        else held.settle({ notStarted: outcome.notStarted });
      }
    }
  }

  private outcome(held: Held): "met" | "wait" | { notStarted: string } {
    let waits = false;
    for (const { name, form } of conditionsOf(held.after)) {
      const task = this.newest(name);
      // Not in the fleet yet but itself waiting: wait with it.
      if (task === null && [...this.held].some((h) => h.name === name)) {
        waits = true;
        continue;
      }
      const said = verdict(form, task && dependencyState(task));
      if (said === "wait") waits = true;
      else if (said !== "met") return { notStarted: notStartedText(held.name ?? "an entry", name, said.failed) };
    }
    return waits ? "wait" : "met";
  }

  /** The task called `name`: the newest, as a load just started it. */
  private newest(name: string): Task | null {
    let found: Task | null = null;
    for (const task of this.tasks()) if (task.name === name && (found === null || task.id > found.id)) found = task;
    return found;
  }
}

function dependencyState(task: Task): DependencyState {
  return {
    running: task.running,
    exitCode: task.exitCode,
    signal: task.signal,
    ready: task.readiness?.state ?? null,
    readyTimeoutSeconds: task.readiness?.timeoutSeconds ?? null,
    restarting: task.nextRestartAt !== null || (task.running && task.readiness?.state === "not-ready" && task.restartState.rule.policy !== "no"),
  };
}

/** Ends `tasks`, dependents first, a wave at a time; each with its own stop signal and timeout (Task.terminate). */
export async function stopInOrder(tasks: readonly Task[]): Promise<void> {
  const byName = (name: string) => tasks.filter((t) => t.name === name);
  const waves = stopWaves(tasks, (task) => conditionsOf(task.service.after).flatMap((c) => byName(c.name)));
  for (const wave of waves) await Promise.all(wave.map((t) => t.terminate()));
}
