// What subscribed clients hear about tasks, and when. A busy task changes its preview many times a
// second, so its `changed` events are batched (one per task per 250 ms); going idle is a change no
// output announces, so a sweep finds it, once per quiet spell. Nobody subscribed: no TaskInfo is built.
import type { Peer } from "./daemon-peers.ts";
import type { Task } from "./daemon-task.ts";
import type { TaskInfo } from "./wire-protocol.ts";

const CHANGE_EVENT_INTERVAL_MS = 250;
/** How often running tasks are checked for having turned idle (task-idle.ts). */
const IDLE_SWEEP_MS = 1_000;

/** The fleet as the events see it. */
export interface EventSource {
  peers(): Iterable<Peer>;
  tasks(): Iterable<Task>;
  holds(task: Task): boolean;
  /** A batch of output went by: an agent's store may have changed with it. */
  outputSettled(task: Task): void;
}

export class TaskEvents {
  private readonly changed = new Set<Task>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Running tasks whose turn to idle subscribers have been told of; output takes a task out. */
  private readonly reportedIdle = new Set<Task>();
  private readonly sweep = setInterval(() => this.sweepIdle(), IDLE_SWEEP_MS);

  constructor(private readonly fleet: EventSource) {}

  broadcast(event: "created" | "changed" | "exited" | "removed", task: TaskInfo): void {
    for (const peer of this.fleet.peers()) if (peer.subscribed) peer.conn.sendEvent({ type: "event", event, task });
  }

  output(task: Task): void {
    this.reportedIdle.delete(task);
    this.changed.add(task);
    this.timer ??= setTimeout(() => this.flush(), CHANGE_EVENT_INTERVAL_MS);
  }

  /** The idle threshold changed: a task told of as idle that no longer is goes out as changed; the sweep finds the newly idle. */
  idleRuleChanged(): void {
    const now = performance.now();
    for (const task of this.reportedIdle) {
      if (task.idle(now)) continue;
      this.reportedIdle.delete(task);
      this.changed.add(task);
    }
    if (this.changed.size > 0) this.timer ??= setTimeout(() => this.flush(), CHANGE_EVENT_INTERVAL_MS);
  }

  forget(task: Task): void {
    this.reportedIdle.delete(task);
  }

  stop(): void {
    clearInterval(this.sweep);
    if (this.timer) clearTimeout(this.timer);
  }

  private hasSubscribers(): boolean {
    for (const peer of this.fleet.peers()) if (peer.subscribed) return true;
    return false;
  }

  private sweepIdle(): void {
    if (!this.hasSubscribers()) return;
    const now = performance.now();
    for (const task of this.fleet.tasks()) {
      if (!task.idle(now) || this.reportedIdle.has(task)) continue;
      this.reportedIdle.add(task);
      this.broadcast("changed", task.info(now));
    }
  }

  private flush(): void {
    this.timer = null;
    if (this.hasSubscribers()) {
      const now = performance.now();
      for (const task of this.changed) if (this.fleet.holds(task)) this.broadcast("changed", task.info(now));
    }
    for (const task of this.changed) if (this.fleet.holds(task)) this.fleet.outputSettled(task);
    this.changed.clear();
  }
}
