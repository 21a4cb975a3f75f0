// The fleets the dashboard lists: this machine's (with `--host`, that host's), then each added
// host's (client-host-fleet.ts), each task known by its key (taskKey), and each shown as the list
// shows it: a flip between Running and Idle held a moment (ui-dashboard-moves.ts).
import type { DaemonClient } from "./client.ts";
import { type FleetEvent, FleetModel } from "./client-fleet.ts";
import { HostFleet, type HostListener } from "./client-host-fleet.ts";
import { hostsMayBeAdded, type Target } from "./client-target.ts";
import { EXIT, UserError } from "./errors.ts";
import { SectionMoves, type Where } from "./ui-dashboard-moves.ts";
import { ORDERS, screenRows, taskKey, type Grouping, type HostBlock, type ListRow, type Order } from "./view-fleet.ts";
import type { TaskInfo } from "./wire-protocol.ts";

export class Fleets {
  /** This machine's fleet (with `--host`, that host's), as its subscription tells it. */
  readonly local: FleetModel;
  /** The added hosts' fleets, each through a kept link of its own; none with `--host`. */
  hosts: HostFleet[] = [];
  /** The order of tasks within each section (`u`): by id, or the busiest first. */
  order: Order = "id";
  /** Tasks that just changed section, and flips between Running and Idle held a moment. */
  readonly moves = new SectionMoves();

  constructor(
    private readonly grouping: () => Grouping,
    private readonly here: string,
    onLocalEvent: FleetEvent,
  ) {
    this.local = new FleetModel(onLocalEvent);
  }

  /**
   * Links the added hosts, each in the background; not with `--host` (that host's fleet is the one
   * shown). Whether it did: not once the dashboard has left (`wanted` false), so nothing is left to close.
   */
  async linkHosts(target: Target, listener: HostListener, wanted: () => boolean): Promise<boolean> {
    if (target.kind === "host" || !hostsMayBeAdded()) return false;
    const { hostAnswerBoundMs, readHosts } = await import("./client-hosts.ts");
    if (!wanted()) return false;
    this.hosts = readHosts().map((host) => new HostFleet(host, listener, hostAnswerBoundMs()));
    for (const fleet of this.hosts) void fleet.connect();
    return true;
  }

  /** `u`: the next order. */
  nextOrder(): void {
    this.order = ORDERS[(ORDERS.indexOf(this.order) + 1) % ORDERS.length]!;
  }

  get hostNames(): string[] {
    return this.hosts.map((f) => f.name);
  }

  /** The host `task` was heard from; null for this machine's fleet. */
  fleetOf(task: TaskInfo): HostFleet | null {
    return this.hosts.find((f) => f.owns(task)) ?? null;
  }

  /** The connection to `host`'s daemon (null: `local`, this machine's); throws while it is unreachable. */
  clientOn(host: string | null, local: DaemonClient): DaemonClient {
    if (host === null) return local;
    const fleet = this.hosts.find((f) => f.name === host);
    if (fleet?.client) return fleet.client;
    throw new UserError(`${host} is unreachable${fleet?.link.kind === "lost" ? ` (${fleet.link.reason})` : ""}`, EXIT.unreachable);
  }

  /** The task as a TASK is written: `3` here, `gpu1:3` on another host. */
  ref(task: TaskInfo): string {
    const host = this.fleetOf(task)?.name;
    return host ? `${host}:${task.id}` : String(task.id);
  }

  keyOf(task: TaskInfo): string {
    return taskKey(task.id, this.fleetOf(task)?.name ?? null);
  }

  /** Where a task of `host` (null: this machine's) is listed, for the order of its sections. */
  whereOf(host: string | null): Where {
    const fleet = host === null ? null : this.hosts.find((f) => f.name === host);
    const grouping = this.grouping();
    if (!fleet) return { grouping, home: process.env.HOME, here: this.here };
    return { grouping, home: fleet.host.home };
  }

  /** This machine's tasks as the list shows them. */
  shownLocal(now = Date.now()): TaskInfo[] {
    const where = this.whereOf(null);
    return [...this.local.tasks.values()].map((task) => this.moves.show(taskKey(task.id), task, now, where));
  }

  /** The added hosts' blocks for the view, their tasks as the list shows them; undefined when none is shown. */
  hostBlocks(now = Date.now()): HostBlock[] | undefined {
    if (!this.hosts.length) return undefined;
    return this.hosts.map((f) => {
      const where = this.whereOf(f.name);
      const tasks = [...f.tasks.values()].map((task) => this.moves.show(taskKey(task.id, f.name), task, now, where));
      return { name: f.name, home: f.host.home, link: f.link, tasks };
    });
  }

  /** The rows in screen order, the filter applied (view-fleet.ts screenRows). */
  rows(filter: string): ListRow[] {
    const now = Date.now();
    return screenRows({
      tasks: this.shownLocal(now),
      grouping: this.grouping(),
      order: this.order,
      filter,
      home: process.env.HOME,
      here: this.here,
      hosts: this.hostBlocks(now),
    });
  }

  /** Every task, this machine's first, each with its key. */
  everyTask(): { key: string; task: TaskInfo }[] {
    const byId = (a: TaskInfo, b: TaskInfo) => a.id - b.id;
    const local = [...this.local.tasks.values()].sort(byId).map((task) => ({ key: taskKey(task.id), task }));
    const remote = this.hosts.flatMap((f) => [...f.tasks.values()].sort(byId).map((task) => ({ key: taskKey(task.id, f.name), task })));
    return [...local, ...remote];
  }

  /**
   * A task event, its fleet already updated: a task that changes section moves on screen (rare:
   * output alone never does it) and is marked, unless it is a flip held a moment (SectionMoves.show).
   */
  changed(key: string, host: string | null, task: TaskInfo, removed: boolean): void {
    const shown = this.moves.last(key);
    if (removed) return this.moves.forget(key);
    const now = Date.now();
    const where = this.whereOf(host);
    const after = this.moves.show(key, task, now, where);
    if (shown) this.moves.mark(key, shown, after, now, where);
  }
}
