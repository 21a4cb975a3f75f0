// The links to the added hosts (docs/remote.md), the dashboard's and the web view's (web-server.ts):
// one kept connection per host, over its ssh transport, subscribed to that host's events. They are
// made in the background once this machine's fleet is drawn, and nothing of this machine's waits on
// them: a host that refuses, drops or never answers is one line (`gpu1 · unreachable (Connection
// refused) · retrying in 8 s`) and is tried again after 1, 2, 4, then every 8 s, as attach
// reconnects (ui-attach.ts). What a host's daemon has to say once (its previous fleet lost, its
// config's problems) and its lost fleet until recovered are kept here for the notice lines.
import { DaemonClient, noticeLines } from "./client.ts";
import type { RemoteHost } from "./client-ssh.ts";
import { errorMessage } from "./errors.ts";
import type { HostBlock, HostLink } from "./ui-dashboard-view.ts";
import type { CrashNotice, TaskEvent, TaskInfo } from "./wire-protocol.ts";

const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 8_000;

/** What a host's link tells the dashboard. */
export interface HostListener {
  /** A task event from that host, with the task as it was before it. */
  event(host: string, event: TaskEvent, before: TaskInfo | undefined): void;
  /** The link came up, went down or is being made again, or the host's notices changed: its lines and its rows change. */
  linkChanged(): void;
}

/**
 * ssh's own reason, short: `ssh: connect to host 127.0.0.1 port 22: Connection refused` says
 * `Connection refused`; anything else (`no answer within 2.5 s`, a version to install) as it is.
 */
export function shortReason(host: string, message: string): string {
  const why = message.startsWith(`${host} is unreachable: `) ? message.slice(`${host} is unreachable: `.length) : message;
  return why.startsWith("ssh: ") ? why.slice(why.lastIndexOf(": ") + 2) : why;
}

/** One added host: its link, and its fleet as its events tell it while the link stands. */
export class HostFleet {
  readonly tasks = new Map<number, TaskInfo>();
  link: HostLink = { kind: "connecting" };
  /** The host's previous fleet, lost without a clean stop, until it is recovered there; null when none. */
  private crash: CrashNotice | null = null;
  /** The host's config problems, as its daemon told them to the first client (this one, or none). */
  private configProblems: string[] = [];
  /** The connection while the link stands; null while it is being made or is down. */
  client: DaemonClient | null = null;
  /** Every task object heard from this host: how a row's task is known to be its (fleetOf, in the dashboard). */
  private readonly heard = new WeakSet<TaskInfo>();
  private failures = 0;
  private retry: ReturnType<typeof setTimeout> | null = null;
  /** The connection being made, and its bound: close() ends them too, or a host that never answers would keep the process. */
  private making: { client: DaemonClient | null; bound: ReturnType<typeof setTimeout> } | null = null;
  private closed = false;
  /**
   * Whether the tasks' CPU and memory are shown, so the host's daemon samples them: always for the
   * dashboard; for the web view, only while a page is open (setShowsUse).
   */
  private showsUse = true;

  constructor(
    readonly host: RemoteHost,
    private readonly listener: HostListener,
    /** How long the first answer may take before the host counts as unreachable (hostAnswerBoundMs). */
    private readonly boundMs: number,
  ) {}

  get name(): string {
    return this.host.name;
  }

  block(): HostBlock {
    return { name: this.name, home: this.host.home, link: this.link, tasks: [...this.tasks.values()] };
  }

  /** The host's daemon samples the figures only while they are shown (it is told on the link, when it stands). */
  setShowsUse(shows: boolean): void {
    if (shows === this.showsUse) return;
    this.showsUse = shows;
    this.client?.subscribe((tasks) => this.applyFleet(tasks), { resources: shows }).catch(() => {});
  }

  private applyFleet(tasks: TaskInfo[]): void {
    this.tasks.clear();
    for (const task of tasks) this.keep(task);
  }

  /** Makes the link: the hello, then the subscription, within the bound; on failure, tries again later. */
  async connect(): Promise<void> {
    if (this.closed) return;
    // A host tried again keeps its unreachable line (its reason) until the new answer, not a flicker of "connecting…".
    if (this.link.kind !== "unreachable") this.setLink({ kind: "connecting" });
    let client: DaemonClient | null = null;
    let timedOut = false;
    const bound = setTimeout(() => {
      timedOut = true;
      client?.destroy();
    }, this.boundMs);
    const making: NonNullable<typeof this.making> = { client: null, bound };
    this.making = making;
    try {
      client = await DaemonClient.open({ host: this.host, notices: (notices) => (this.configProblems = notices.config) });
      making.client = client;
      if (timedOut || this.closed) throw new Error("no longer wanted");
      const opened = client;
      // Its failures are this line's, never words over the dashboard (client.ts onClosed).
      opened.handlers = {
        event: (event) => this.onEvent(event),
        crash: ({ crash }) => this.setCrash(crash),
        closed: () => this.onLost(opened),
        linkLost: true,
      };
      await opened.subscribe((tasks) => this.applyFleet(tasks), { resources: this.showsUse });
      // The lost fleet is in the status until recovered, whoever was told of it first (`fleetcom --host gpu1 ls`).
      this.crash = (await opened.request("status")).crash;
      clearTimeout(bound);
      this.making = null;
      if (this.closed) return opened.close();
      this.client = opened;
      this.failures = 0;
      this.setLink({ kind: "up" });
    } catch (error) {
      clearTimeout(bound);
      this.making = null;
      client?.destroy();
      const why = timedOut ? `no answer within ${this.boundMs / 1000} s` : (client?.lostLink ?? errorMessage(error));
      this.down(why);
    }
  }

  /**
   * The lines this host has for the dashboard's notices, each naming the host, with the remedy run
   * there (`fleetcom --host gpu1 recover --latest`).
   */
  noticeLines(now = Date.now()): string[] {
    return noticeLines({ crash: this.crash, config: this.configProblems }, this.host, now);
  }

  private setCrash(crash: CrashNotice | null): void {
    this.crash = crash;
    this.listener.linkChanged();
  }

  private onEvent(event: TaskEvent): void {
    const before = this.tasks.get(event.task.id);
    if (event.event === "removed") this.tasks.delete(event.task.id);
    else this.keep(event.task);
    this.listener.event(this.name, event, before);
  }

  private keep(task: TaskInfo): void {
    this.heard.add(task);
    this.tasks.set(task.id, task);
  }

  /** Whether `task` came from this host. */
  owns(task: TaskInfo): boolean {
    return this.heard.has(task);
  }

  /** The kept connection ended (the link dropped, the daemon there stopped): its rows go, and it is made again. */
  private onLost(client: DaemonClient): void {
    if (client !== this.client || this.closed) return;
    this.client = null;
    this.down(client.lostLink ?? "lost the connection to its daemon");
  }

  private down(why: string): void {
    if (this.closed) return;
    this.tasks.clear();
    const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.failures++);
    const said = why.startsWith(`${this.name} is unreachable: `) ? why : `${this.name} is unreachable: ${why}`;
    this.setLink({ kind: "unreachable", reason: shortReason(this.name, why), said, retryAt: Date.now() + delay });
    this.retry = setTimeout(() => void this.connect(), delay);
  }

  private setLink(link: HostLink): void {
    this.link = link;
    this.listener.linkChanged();
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.making) {
      clearTimeout(this.making.bound);
      this.making.client?.destroy();
    }
    this.client?.close();
    this.client = null;
  }
}
