// The local daemon's links to the added hosts, for their pushes (docs/notify.md, Every host's waits):
// the same client link the dashboard keeps (ssh to the host's `bridge`, subscribed to its events),
// made from the daemon's process, so a waiting agent on gpu1 reaches the phone through this
// machine's `notify`. A host is linked while it has tasks; one with none (or no daemon answering) is
// asked again after a while. A link that drops is made again after 1, 2, 4, then every 8 s, and
// what happened meanwhile is told once when it comes back, if it is still true. A host whose daemon
// has destinations of its own pushes for itself: its news is not told twice.
import { targetOf } from "./client-target.ts";
import { DaemonClient } from "./client.ts";
import { FleetModel, retryDelay } from "./client-fleet.ts";
import { hostAnswerBoundMs } from "./client-hosts.ts";
import type { RemoteHost } from "./client-ssh.ts";
import { errorMessage } from "./errors.ts";
import type { TaskEvent, TaskInfo } from "./wire-protocol.ts";

/** How often a host with no tasks (or no answer) is asked again: each ask is an ssh connection. */
export const IDLE_RECHECK_MS = 60_000;

/** Where a host's news goes: the daemon's push (daemon.ts hostNews). */
export interface HostNewsSink {
  /** `task` on `host` has news (a wait, an end) not told before; `current` reads the task as the link knows it now, null once gone. */
  news(host: string, task: TaskInfo, before: TaskInfo | null, current: () => TaskInfo | null): void;
  log(message: string): void;
}

/** The fact about a task worth telling once: the wait it is in (since when), or the run that ended. */
function factOf(task: TaskInfo): string | null {
  if (task.state === "exited") return `ended ${task.run} ${task.endedAt}`;
  return task.attention ? `waits ${task.attention.state} ${task.attention.since}` : null;
}

class HostLink {
  /** The host's fleet while linked (client-fleet.ts, the client's one model of a fleet). */
  private readonly fleet = new FleetModel((event, before) => this.onEvent(event, before ?? null));
  /** Per task, the last fact told (or found already told by the host's own notify). */
  private readonly told = new Map<number, string>();
  private client: DaemonClient | null = null;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  /** The host's daemon pushes for itself. */
  private ownNotify = false;

  constructor(
    readonly host: RemoteHost,
    private readonly sink: HostNewsSink,
    private readonly idleMs: number,
  ) {}

  async connect(): Promise<void> {
    this.timer = null;
    if (this.closed) return;
    let client: DaemonClient | null = null;
    const bound = setTimeout(() => client?.destroy(), hostAnswerBoundMs());
    try {
      client = await DaemonClient.open(targetOf(this.host), { notices: false });
      const opened = client;
      opened.handlers = { closed: () => this.onLost(opened), linkLost: true };
      // Asked before the subscription, so that no event is heard before it is known who pushes it.
      const ownNotify = (await opened.request("status")).push.length > 0;
      if (ownNotify !== this.ownNotify && ownNotify)
        this.sink.log(`host ${this.host.name} has notify destinations of its own: its waits and ends are pushed there, not from here`);
      this.ownNotify = ownNotify;
      const tasks = await this.fleet.follow(opened);
      clearTimeout(bound);
      if (this.closed) return opened.close();
      this.client = opened;
      this.failures = 0;
      // What was told of a task removed meanwhile is not kept.
      for (const id of this.told.keys()) if (!tasks.some((t) => t.id === id)) this.told.delete(id);
      for (const task of tasks) this.heard(task, null);
      this.idleIfEmpty();
    } catch (error) {
      clearTimeout(bound);
      client?.destroy();
      this.down(client?.lostLink ?? errorMessage(error));
    }
  }

  /** A task event, the fleet already updated. */
  private onEvent(event: TaskEvent, before: TaskInfo | null): void {
    if (event.event === "removed") {
      this.told.delete(event.task.id);
      this.idleIfEmpty();
      return;
    }
    this.heard(event.task, before);
  }

  /** Keeps the task; tells its fact when it is new (the host's own notify told it already otherwise). */
  private heard(task: TaskInfo, before: TaskInfo | null): void {
    const fact = factOf(task);
    if (fact === null || this.told.get(task.id) === fact) return;
    this.told.set(task.id, fact);
    if (!this.ownNotify) this.sink.news(this.host.name, task, before, () => (this.client ? (this.fleet.tasks.get(task.id) ?? null) : null));
  }

  /** A host with no tasks needs no link: let it go, and ask again after a while. */
  private idleIfEmpty(): void {
    if (this.fleet.tasks.size > 0 || !this.client) return;
    const client = this.client;
    this.client = null;
    client.close();
    this.later(this.idleMs);
  }

  private onLost(client: DaemonClient): void {
    if (client !== this.client || this.closed) return;
    this.client = null;
    this.down(client.lostLink ?? "lost the connection to its daemon");
  }

  /** Dropped while it had tasks: again soon, backing off; never linked, or with none: after a while. */
  private down(why: string): void {
    if (this.closed) return;
    const hadTasks = this.fleet.tasks.size > 0;
    this.fleet.clear();
    if (!hadTasks && this.failures === 0 && this.told.size === 0) {
      this.sink.log(`host ${this.host.name}: no link for its pushes (${why}); asking again in ${this.idleMs / 1000} s`);
      return this.later(this.idleMs);
    }
    const delay = retryDelay(this.failures++);
    if (hadTasks) this.sink.log(`host ${this.host.name}: the link for its pushes dropped (${why}); trying again in ${delay / 1000} s`);
    this.later(delay);
  }

  private later(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.connect(), ms);
    this.timer.unref?.();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.client?.close();
    this.client = null;
  }
}

/** The links to every added host, for the daemon's pushes; `close()` ends them all. */
export class HostNews {
  private links: HostLink[] = [];

  constructor(
    private readonly sink: HostNewsSink,
    private readonly idleMs = IDLE_RECHECK_MS,
  ) {}

  /**
   * Links the hosts as the config file lists them now (again after a reload): a host kept as it was
   * keeps its link and what it told, so a reload pushes nothing twice; one removed or changed is let go.
   */
  watch(hosts: readonly RemoteHost[]): void {
    const same = (a: RemoteHost, b: RemoteHost) => a.name === b.name && a.ssh === b.ssh && a.home === b.home && a.share === b.share;
    const kept = this.links.filter((link) => hosts.some((host) => same(host, link.host)));
    for (const link of this.links) if (!kept.includes(link)) link.close();
    const added = hosts.filter((host) => !kept.some((link) => same(host, link.host))).map((host) => new HostLink(host, this.sink, this.idleMs));
    this.links = [...kept, ...added];
    for (const link of added) void link.connect();
  }

  close(): void {
    for (const link of this.links) link.close();
    this.links = [];
  }
}
