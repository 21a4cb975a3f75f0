// The client's link to each added host (docs/remote.md), the dashboard's and the web view's: a
// LinkedFleet (client-fleet.ts) over the host's ssh transport, made in the background once this
// machine's fleet is drawn, so nothing of this machine's waits on it. A host that refuses, drops or
// never answers is one line (`gpu1 · unreachable (Connection refused) · retrying in 8 s`) until the
// link is made again. What a host's daemon has to say once (its previous fleet lost, its config's
// problems) and its lost fleet until recovered are kept here for the notice lines.
import { targetOf } from "./client-target.ts";
import { type ClientHandlers, DaemonClient, noticeLines } from "./client.ts";
import { LinkedFleet } from "./client-fleet.ts";
import type { RemoteHost } from "./client-ssh.ts";
import type { CrashNotice, TaskEvent, TaskInfo } from "./wire-protocol.ts";

/** What a host's link tells its holder. */
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

/** One added host: its link, its fleet while the link stands, and its notices. */
export class HostFleet extends LinkedFleet {
  /** The host's previous fleet, lost without a clean stop, until it is recovered there; null when none. */
  private crash: CrashNotice | null = null;
  /** The host's config problems, as its daemon told them to the first client (this one, or none). */
  private configProblems: string[] = [];

  constructor(
    readonly host: RemoteHost,
    listener: HostListener,
    /** How long the first answer may take before the host counts as unreachable (hostAnswerBoundMs). */
    boundMs: number,
  ) {
    super({ event: (event, before) => listener.event(host.name, event, before), linkChanged: () => listener.linkChanged() }, boundMs);
  }

  protected open(): Promise<DaemonClient> {
    return DaemonClient.open(targetOf(this.host), { notices: (notices) => (this.configProblems = notices.config) });
  }

  protected override handlers(): ClientHandlers {
    return { crash: ({ crash }) => this.setCrash(crash) };
  }

  /** The lost fleet is in the status until recovered, whoever was told of it first (`fleetcom --host gpu1 ls`). */
  protected override async ready(client: DaemonClient): Promise<void> {
    this.crash = (await client.request("status")).crash;
  }

  protected lostWords(why: string): { reason: string; said: string } {
    const said = why.startsWith(`${this.name} is unreachable: `) ? why : `${this.name} is unreachable: ${why}`;
    return { reason: shortReason(this.name, why), said };
  }

  get name(): string {
    return this.host.name;
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
}
