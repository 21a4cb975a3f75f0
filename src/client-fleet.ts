// The client's one live fleet model: what a daemon says its tasks are, taken from its one
// subscription and kept by its events, applied here and nowhere else; and the link that keeps it,
// made again after 1, 2, 4, then every 8 s while the daemon is `lost`. The dashboard, attach, the
// web view and `wait` hold their fleet through this module; client-host-fleet.ts adds what an
// added host's link says besides (its notices, its answer bound).
import type { ClientHandlers, DaemonClient } from "./client.ts";
import { errorMessage } from "./errors.ts";
import type { TaskEvent, TaskInfo } from "./wire-protocol.ts";

export const RETRY_FIRST_MS = 1_000;
export const RETRY_MAX_MS = 8_000;

/** The one reconnect policy: how long to wait after `failures` failed tries in a row. */
export function retryDelay(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** failures);
}

/** The one reconnect policy as a timer: after each failure, `again` runs at the policy's next delay. */
export class Retrying {
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly again: () => void) {}

  /** A try failed: the next one is set; answers when it runs. */
  after(): number {
    this.stop();
    const delay = retryDelay(this.failures++);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.again();
    }, delay);
    return Date.now() + delay;
  }

  /** A try succeeded: nothing is set, and the next failure waits the first delay again. */
  reset(): void {
    this.stop();
    this.failures = 0;
  }

  /** No longer wanted: nothing runs (a timer left set would keep the process). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** Where a daemon's link stands: being made, up, or lost (why, said whole, and when it is tried again). */
export type FleetLink = { kind: "connecting" } | { kind: "up" } | { kind: "lost"; reason: string; said: string; retryAt: number };

/** A task event, with the task as it was before it (undefined: new to this fleet). */
export type FleetEvent = (event: TaskEvent, before: TaskInfo | undefined) => void;

/** One daemon's fleet, as its subscription and then its events tell it. */
export class FleetModel {
  readonly tasks = new Map<number, TaskInfo>();
  /** Every task object this fleet was told of: how a row's task is known to be this fleet's. */
  private readonly heard = new WeakSet<TaskInfo>();

  constructor(private readonly onEvent: FleetEvent = () => {}) {}

  /**
   * The client's one subscribe site: the daemon's fleet replaces what was held (`first` sees it
   * before any event behind it), and from then on `client`'s events are applied here.
   */
  follow(client: DaemonClient, first?: (tasks: TaskInfo[]) => void, showsUse = false): Promise<TaskInfo[]> {
    client.handlers.event = (event) => this.onEvent(event, this.apply(event));
    // `resources`: the daemon samples the tasks' CPU and memory while a subscriber shows them.
    return client.subscribe(
      (tasks) => {
        this.reset(tasks);
        first?.(tasks);
      },
      { resources: showsUse },
    );
  }

  /** The whole fleet, as a subscription answers it. */
  reset(tasks: readonly TaskInfo[]): void {
    this.tasks.clear();
    for (const task of tasks) this.keep(task);
  }

  /** Applies one event; answers the task as it was before it. */
  apply(event: TaskEvent): TaskInfo | undefined {
    const before = this.tasks.get(event.task.id);
    if (event.event === "removed") this.tasks.delete(event.task.id);
    else this.keep(event.task);
    return before;
  }

  clear(): void {
    this.tasks.clear();
  }

  /** Whether `task` came from this fleet. */
  owns(task: TaskInfo): boolean {
    return this.heard.has(task);
  }

  private keep(task: TaskInfo): void {
    this.heard.add(task);
    this.tasks.set(task.id, task);
  }
}

/** What a kept link tells its holder. */
export interface FleetListener {
  event: FleetEvent;
  /** The link came up, went down or is being made again: its rows change. */
  linkChanged(): void;
}

/**
 * A daemon's fleet and the link that keeps it: made, lost, and made again by the one policy. A
 * subclass says how its daemon is reached and what its link says beyond its tasks.
 */
export abstract class LinkedFleet {
  readonly fleet: FleetModel;
  link: FleetLink = { kind: "connecting" };
  /** The connection while the link stands; null while it is being made or is down. */
  client: DaemonClient | null = null;
  private readonly retrying = new Retrying(() => void this.connect());
  /** The connection being made, and its bound: close() ends them too, or a daemon that never answers would keep the process. */
  private making: { client: DaemonClient | null; bound: ReturnType<typeof setTimeout> | null } | null = null;
  private closed = false;
  /**
   * Whether the tasks' CPU and memory are shown, so the daemon samples them: always for the
   * dashboard; for the web view, only while a page is open (setShowsUse).
   */
  private showsUse = true;

  constructor(
    protected readonly listener: FleetListener,
    /** How long making the link may take before it counts as lost; null: as long as it takes. */
    private readonly boundMs: number | null,
  ) {
    this.fleet = new FleetModel((event, before) => listener.event(event, before));
  }

  /** Opens a connection; `first` is the first try of this link (this machine's may start a daemon then). */
  protected abstract open(first: boolean): Promise<DaemonClient>;

  /** What is said of the lost link: its short reason, and the whole sentence. */
  protected abstract lostWords(why: string): { reason: string; said: string };

  /** Handlers beyond the events and the end (a host's crash notice). */
  protected handlers(): ClientHandlers {
    return {};
  }

  /** Asked once subscribed, before the link counts as up (a host's lost fleet, from its status). */
  protected async ready(_client: DaemonClient): Promise<void> {}

  get tasks(): ReadonlyMap<number, TaskInfo> {
    return this.fleet.tasks;
  }

  /** Whether `task` came from this link's daemon. */
  owns(task: TaskInfo): boolean {
    return this.fleet.owns(task);
  }

  /** The daemon samples the figures only while they are shown: told on the link, when it stands, and on every link made after. */
  setShowsUse(shows: boolean): void {
    if (shows === this.showsUse) return;
    this.showsUse = shows;
    if (this.client) this.fleet.follow(this.client, undefined, shows).catch(() => {});
  }

  /** Makes the link once, throwing what went wrong; on success it is kept, and made again when lost. */
  async start(): Promise<void> {
    await this.attempt(true);
  }

  /** Makes the link; on failure, tries again later. */
  async connect(): Promise<void> {
    try {
      await this.attempt(false);
    } catch (error) {
      this.down(errorMessage(error));
    }
  }

  private async attempt(first: boolean): Promise<void> {
    if (this.closed) return;
    // A daemon tried again keeps its lost line (its reason) until the new answer, not a flicker of "connecting…".
    if (this.link.kind !== "lost") this.setLink({ kind: "connecting" });
    let client: DaemonClient | null = null;
    let timedOut = false;
    const bound =
      this.boundMs === null
        ? null
        : setTimeout(() => {
            timedOut = true;
            client?.destroy();
          }, this.boundMs);
    const making: NonNullable<typeof this.making> = { client: null, bound };
    this.making = making;
    try {
      client = await this.open(first);
      making.client = client;
      if (timedOut || this.closed) throw new Error("no longer wanted");
      const opened = client;
      // Its failures are this link's line, never words over the screen (client.ts onClosed).
      opened.handlers = { ...this.handlers(), closed: () => this.onLost(opened), linkLost: true };
      await this.fleet.follow(opened, undefined, this.showsUse);
      await this.ready(opened);
      if (bound) clearTimeout(bound);
      this.making = null;
      if (this.closed) return opened.close();
      this.client = opened;
      this.retrying.reset();
      this.setLink({ kind: "up" });
    } catch (error) {
      if (bound) clearTimeout(bound);
      this.making = null;
      client?.destroy();
      if (first) throw error;
      throw new Error(timedOut ? `no answer within ${this.boundMs! / 1000} s` : (client?.lostLink ?? errorMessage(error)));
    }
  }

  /** The kept connection ended (the link dropped, the daemon stopped): its rows go, and it is made again. */
  private onLost(client: DaemonClient): void {
    if (client !== this.client || this.closed) return;
    this.client = null;
    this.down(client.lostLink ?? "lost the connection to its daemon");
  }

  private down(why: string): void {
    if (this.closed) return;
    this.fleet.clear();
    const retryAt = this.retrying.after();
    this.setLink({ kind: "lost", ...this.lostWords(why), retryAt });
  }

  private setLink(link: FleetLink): void {
    this.link = link;
    this.listener.linkChanged();
  }

  close(): void {
    this.closed = true;
    this.retrying.stop();
    if (this.making) {
      if (this.making.bound) clearTimeout(this.making.bound);
      this.making.client?.destroy();
    }
    this.client?.close();
    this.client = null;
  }
}
