// The restart policies at work (docs/services.md): when a run ends, task-restart.ts decides; this
// file keeps the backoff's timers, starts the task again in place when one fires, and gives up on a
// crash loop. A task the user stopped, or one ended by the daemon's own stop, is never restarted.
import { stopOverMemory } from "./daemon-resources.ts";
import type { Task } from "./daemon-task.ts";
import { DEFAULT_MAX_RESTARTS, decide, type RestartPolicy, type RestartState, restartState } from "./task-restart.ts";
import type { RecipeEntry } from "./wire-protocol.ts";

/** What the restarts ask of the fleet (daemon.ts). */
export interface RestartFleet {
  /** Whether this very task is still in the fleet. */
  holds(task: Task): boolean;
  stopping(): boolean;
  scrollback(): number;
  /** The task changed in a way a snapshot keeps (its count, its wait, its new run). */
  changed(task: Task): void;
  log(message: string): void;
}

export class Restarts {
  private readonly timers = new Map<Task, ReturnType<typeof setTimeout>>();

  constructor(private readonly fleet: RestartFleet) {}

  /**
   * A run ended: its policy restarts it after the backoff, or gives up on a crash loop. True when
   * the policy answered the ending, so nobody is told the task ended (the crash loop tells once).
   */
  ended(task: Task): boolean {
    const at = task.endedAt?.getTime() ?? Date.now();
    const decision = decide(task.restartState, {
      exitCode: task.exitCode,
      signal: task.signal,
      upMs: at - task.startedAt.getTime(),
      at,
      stoppedOnPurpose: task.stoppedOnPurpose || this.fleet.stopping(),
      notReady: task.readiness?.state === "not-ready",
      overMemory: task.stopReason !== null,
    });
    if (decision.kind === "none") return false;
    task.restartState = decision.state;
    if (decision.kind === "crash-loop") {
      this.fleet.log(`task ${task.id}: ${decision.text}; not restarted again`);
      task.crashLooped(decision.text);
      return true;
    }
    task.nextRestartAt = Date.now() + decision.delayMs;
    const timer = setTimeout(() => void this.fire(task), decision.delayMs);
    this.timers.set(task, timer);
    this.fleet.changed(task);
    return true;
  }

  /**
   * Its readiness probe gave up on the running run: under a policy, the run is stopped (with its own
   * stop signal and timeout) and its end counts as a failure, which the policy answers as any other.
   * Without one it keeps running, not ready, for its user to look at.
   */
  notReady(task: Task): void {
    if (task.restartState.rule.policy === "no" || !task.running || this.fleet.stopping()) return;
    this.fleet.log(`task ${task.id}: not ready; stopped for its restart policy`);
    void task.terminate();
  }

  /**
   * Its group passed its --max-memory: the run is stopped, saying why (daemon-resources.ts), and its
   * end counts as a failure, which a policy answers as any other, starting it again. False when it
   * was already being stopped, or the daemon is stopping.
   */
  overMemory(task: Task, reason: string): boolean {
    if (this.fleet.stopping()) return false;
    return stopOverMemory(task, reason, this.fleet.log);
  }

  private async fire(task: Task): Promise<void> {
    this.timers.delete(task);
    await task.readable();
    if (task.nextRestartAt === null || task.running || !this.fleet.holds(task) || this.fleet.stopping()) return;
    task.restartByPolicy(this.fleet.scrollback());
    this.fleet.changed(task);
  }

  /** The user stopped the task (kill, restart, rm): this run is not restarted, and a restart it waits for is called off. */
  stoppedByUser(task: Task): void {
    task.stoppedOnPurpose = true;
    this.cancel(task);
  }

  /** A restart it waits for is called off (the task is rerun, removed or killed). */
  cancel(task: Task): void {
    const timer = this.timers.get(task);
    if (timer) clearTimeout(timer);
    this.timers.delete(task);
    task.nextRestartAt = null;
  }

  /** The user runs it again (rerun, restart): a wait is called off and the streak starts again. */
  freshStart(task: Task): void {
    this.cancel(task);
    task.restartState = { ...task.restartState, streak: 0, streakSince: null };
  }

  /** The daemon stops: no restart is started any more. */
  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/** What a recipe keeps of a task's policy: only what differs from the default, so a recipe without one stays as it was; a snapshot keeps the count too. */
export function restartFieldsOf(task: Task, snapshot: boolean): Pick<RecipeEntry, "restart" | "max_restarts" | "restarts"> {
  const { rule, restarts } = task.restartState;
  return {
    ...(rule.policy !== "no" && { restart: rule.policy }),
    ...(rule.maxRestarts !== DEFAULT_MAX_RESTARTS && { max_restarts: rule.maxRestarts }),
    ...(snapshot && restarts > 0 && { restarts }),
  };
}

/** The policy and count a recipe entry or `run` gives a task. */
export function restartOf(policy: RestartPolicy | undefined, maxRestarts: number | undefined, restarts = 0): RestartState {
  return restartState({ policy: policy ?? "no", maxRestarts: maxRestarts ?? DEFAULT_MAX_RESTARTS }, restarts);
}

/** A task that runs, or will again once its backoff is over: what a snapshot starts on recovery. */
export function meantToRun(task: Task): boolean {
  return task.running || task.nextRestartAt !== null;
}
