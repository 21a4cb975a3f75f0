// `fleetcom web`'s server: one page and one WebSocket per open page, from a process that is a client
// of the daemon like the dashboard (and of each added host's, over ssh), so the daemon stays small
// and nothing listens unless asked.
//
// SECURITY INVARIANT: nothing of the fleet is answered unless the request carries a session token
// whose hash is in the token file (web-token.ts), in a header only the page's own script sends: the
// WebSocket's subprotocol, never a cookie, which a browser would also send to another user's server
// on the same loopback address (cookies are kept per host name, not per port). The page keeps the
// token in its origin's storage, which no page of another port can read. The page and its scripts
// are the binary's, the same for everyone. A request must name a Host this view serves (DNS
// rebinding), and one that says where it comes from (Origin) must come from this very page; the
// WebSocket must say so. Unless the view was started with `--write` or the page's session carries a
// write grant (`fleetcom web --url --write`, web-token.ts), no message of the page reaches a task:
// typing, send, keys, rerun and kill are refused here.
import type { Server, ServerWebSocket } from "bun";
import { DaemonClient } from "./client.ts";
import { HERE, hostsMayBeAdded, targetOf } from "./client-target.ts";
import { hostAnswerBoundMs, readHosts } from "./client-hosts.ts";
import type { RemoteHost } from "./client-ssh.ts";
import { HostFleet, type HostListener } from "./client-host-fleet.ts";
import { type FleetLink, LinkedFleet } from "./client-fleet.ts";
import { errnoCode, errnoWords, errorMessage, UserError } from "./errors.ts";
import { isIP } from "node:net";
import { homeDir } from "./paths.ts";
import { unknownKey } from "./term-keys.ts";
import { printable } from "./text-printable.ts";
import { ASSETS } from "./web-page.ts";
import { type PageMessage, pageMessage, type ServerMessage } from "./web-messages.ts";
import { isSession, sessionGrant } from "./web-token.ts";
import { empty, login, loginCommand, notLoggedIn } from "./web-login.ts";
import { fleetView } from "./web-view.ts";
import { changedFiles, fileDiff, sendComments } from "./web-changes.ts";
import { checkpointRows, rewindFromPage } from "./web-checkpoints.ts";
import { OpenSlots, Overtaken } from "./client-open-slots.ts";
import { refilteredScreen } from "./web-remote-screen.ts";
import type { TaskInfo } from "./wire-protocol.ts";

export interface WebOptions {
  hostname: string;
  port: number;
  write: boolean;
  /** The certificate and its key, PEM text. */
  tls: { cert: string; key: string } | null;
  /** Host names (lower case) the view is reached by besides IP addresses and localhost: a TLS front's, a certificate's. */
  names: string[];
}

/** What a read-only page may ask: to look, never to act on a task. */
const READ_ONLY_MESSAGES = new Set<PageMessage["type"]>(["view", "history", "changes", "file-diff", "checkpoints"]);
/** What one page may send at once: far more than a paste of text, far less than memory matters. */
export const MAX_FRAME = 64 * 1024;
/** A page that has not read this much is sent no screen until it has (the newest is sent then). */
const BEHIND_BYTES = 256 * 1024;
/** At most this many screens a second per page, however fast a task prints. */
const SCREEN_INTERVAL_MS = 250;
const FLEET_INTERVAL_MS = 200;
/** A quiet fleet is sent again this often anyway, so its ages move on. */
const AGES_INTERVAL_MS = 15_000;
/** The page's WebSocket offers this subprotocol, and `session.TOKEN` beside it: the one header its script can set on an upgrade. */
const PROTOCOL = "fleetcom";
const SESSION_PROTOCOL = "session.";
/** The header the page's script sends its session token in (a request no other page can make without a preflight, never answered). */
const SESSION_HEADER = "x-fleetcom-session";
/** The WebSocket close code for a revoked session (4000-4999: the application's own). */
const REVOKED = 4401;
/** A task's history on the page: its last this many lines, and never more than HISTORY_CHARS characters (a frame the page and the socket's backpressure bound take). */
const HISTORY_LINES = 5_000;
const HISTORY_CHARS = 1_000_000;
/** The keys the page offers as buttons (send --keys names): enough to answer a prompt with one tap. */
const KEY_BUTTONS = ["Enter", "Esc", "Up", "Down", "Tab", "y", "n", "1", "2", "3", "C-c"];

/** How often open pages' sessions are checked again: a revoked one is disconnected within this. */
const SESSION_CHECK_MS = 2_000;

interface SocketData {
  /** The session token the WebSocket was opened with, checked again while it stays open. */
  session: string;
  /** The view was started with --write, or the session carries a write grant. */
  write: boolean;
  /** For a read-only page: the command that prints a link that may type. */
  writeLink: string | null;
  page: Page | null;
}
type Socket = ServerWebSocket<SocketData>;

/** A web view serving: the port it listens on, and its stop. */
export interface WebView {
  port: number | undefined;
  /** Closes the listener, every page and every connection, each host's ssh among them. */
  stop(): void;
}

export async function serveWeb(options: WebOptions): Promise<WebView> {
  const fleet = new FleetFeed(hostsMayBeAdded() ? readHosts() : []);
  const server = listen(options, fleet);
  const stop = () => {
    server.stop(true);
    fleet.close();
  };
  try {
    await fleet.start();
  } catch (error) {
    stop();
    throw error;
  }
  return { port: server.port, stop };
}

function listen(options: WebOptions, fleet: FleetFeed): Server<SocketData> {
  try {
    return serve(options, fleet);
  } catch (error) {
    const code = errnoCode(error);
    throw new UserError(`web: cannot listen on ${options.hostname}:${options.port}: ${(code && errnoWords(code)) ?? errorMessage(error)}`);
  }
}

function serve(options: WebOptions, fleet: FleetFeed): Server<SocketData> {
  return Bun.serve<SocketData>({
    hostname: options.hostname,
    port: options.port,
    ...(options.tls && { tls: options.tls }),
    fetch: (request, srv) => answer(request, srv, options),
    websocket: {
      maxPayloadLength: MAX_FRAME,
      backpressureLimit: 4 * 1024 * 1024,
      closeOnBackpressureLimit: true,
      open(ws) {
        ws.data.page = new Page(ws, fleet, ws.data.write, ws.data.writeLink);
      },
      message(ws, raw) {
        if (!isSession(ws.data.session)) return ws.close(REVOKED, "revoked");
        ws.data.page?.receive(raw);
      },
      close(ws) {
        ws.data.page?.close();
        ws.data.page = null;
      },
    },
  });
}

function answer(request: Request, server: Server<SocketData>, options: WebOptions): Response | undefined {
  if (!servedHost(request.headers.get("host"), options.names)) return empty(421);
  const url = new URL(request.url);
  const origin = request.headers.get("origin");
  if (origin !== null && !sameOrigin(origin, request)) return empty(403);
  const here = { port: server.port, names: options.names };
  if (url.pathname === "/login") return login(request, here);
  if (url.pathname === "/session") return isSession(request.headers.get(SESSION_HEADER) ?? "") ? empty(204) : notLoggedIn(here, "session");
  if (url.pathname === "/ws") {
    const session = offeredSession(request);
    const grant = session === null ? null : sessionGrant(session);
    if (session === null || grant === null) return notLoggedIn(here, "session");
    if (origin === null) return empty(403);
    const write = options.write || grant === "write";
    const data = { session, write, writeLink: write ? null : loginCommand(here, true), page: null };
    return server.upgrade(request, { data, headers: { "sec-websocket-protocol": PROTOCOL } }) ? undefined : empty(400);
  }
  // The page itself, the same for everyone: a URL with a login token loads it, and its script trades the token (/login).
  const asset = request.method === "GET" ? ASSETS[url.pathname] : undefined;
  if (!asset) return empty(404);
  return new Response(asset.body, {
    headers: {
      "content-type": asset.type,
      "cache-control": "no-store",
      "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });
}

/** The session token the WebSocket's subprotocols carry beside PROTOCOL, or null. */
function offeredSession(request: Request): string | null {
  const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  if (!offered.includes(PROTOCOL)) return null;
  const session = offered.find((p) => p.startsWith(SESSION_PROTOCOL));
  return session === undefined ? null : session.slice(SESSION_PROTOCOL.length);
}

/**
 * The Host names this view: an IP address (a rebinding page is on a name its attacker controls, never
 * on an address), `localhost`, or a name it was given (--host-name). The port is not checked: a tunnel
 * (`ssh -L 8000:…`) or a TLS front may put the view on another.
 */
function servedHost(host: string | null, names: string[]): boolean {
  const parts = host === null ? null : /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::\d{1,5})?$/.exec(host);
  if (!parts) return false;
  const name = (parts[1] ?? parts[2]!).toLowerCase();
  return isIP(name) !== 0 || name === "localhost" || names.includes(name);
}

/** The Origin names the host the request was sent to (a page of another site, or another port, does not). */
function sameOrigin(origin: string, request: Request): boolean {
  try {
    return new URL(origin).host === request.headers.get("host");
  } catch {
    return false;
  }
}

/**
 * The fleet, live: this machine's and each added host's (config.toml's `[hosts.NAME]`), each through
 * one subscribed connection kept for every page (another host's is the dashboard's link,
 * client-host-fleet.ts). A page is sent the fleet when it opens and then at most every
 * FLEET_INTERVAL_MS while it changes.
 */
class FleetFeed {
  readonly pages = new Set<Page>();
  readonly local: LocalFleet;
  /** Whether this machine's daemon was up when the pages were last told. */
  private localUp = false;
  readonly hosts: HostFleet[];
  /** Every page's screen opens to other hosts, a few at a time per host (client-open-slots.ts). */
  readonly opens = new OpenSlots();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(hosts: RemoteHost[]) {
    const changed = () => this.changed();
    this.local = new LocalFleet({ event: changed, linkChanged: () => this.localLinkChanged() }, null);
    const listener: HostListener = { event: changed, linkChanged: changed };
    this.hosts = hosts.map((host) => new HostFleet(host, listener, hostAnswerBoundMs()));
    // No page is open yet: no daemon samples the tasks' CPU and memory for this view.
    this.showsUse(false);
    setInterval(() => this.pages.size > 0 && this.changed(), AGES_INTERVAL_MS);
    setInterval(() => {
      for (const page of this.pages) page.closeIfRevoked();
    }, SESSION_CHECK_MS);
  }

  /** Whether a page is open to show the tasks' CPU and memory: every daemon samples them only then. */
  showsUse(shows: boolean): void {
    this.local.setShowsUse(shows);
    for (const host of this.hosts) host.setShowsUse(shows);
  }

  /** Pages are told when this machine's daemon goes or comes back; its fleet is sent again once it is back. */
  private localLinkChanged(): void {
    const up = this.local.link.kind === "up";
    if (up === this.localUp) return;
    this.localUp = up;
    for (const page of this.pages) page.send({ type: "daemon", connected: up });
    if (up) this.changed();
  }

  /** This machine's daemon first (started if none runs); each host's in the background, never holding it up. */
  async start(): Promise<void> {
    await this.local.start();
    for (const host of this.hosts) void host.connect();
  }

  /** The fleet of the host a page message names (none: this machine), and its connection while it stands. */
  feed(host: string | undefined | null): Feed {
    if (host === undefined || host === null) return { host: null, client: this.local.client, tasks: this.local.tasks, note: null };
    const found = this.hosts.find((h) => h.name === host);
    if (!found) throw new Error(`no host '${host}' in this web view (hosts added after it started need a restart)`);
    return { host: found.host, client: found.client, tasks: found.tasks, note: noteOf(found.link) };
  }

  view() {
    const local = { host: null, tasks: [...this.local.tasks.values()], note: null };
    const hosts = this.hosts.map((h) => ({ host: h.name, tasks: [...h.tasks.values()], note: noteOf(h.link) }));
    return fleetView([local, ...hosts], Date.now(), homeDir());
  }

  /** Every page and every host's link: a host still being connected to has its ssh ended (client-host-fleet.ts close). */
  close(): void {
    for (const page of this.pages) page.close();
    for (const host of this.hosts) host.close();
  }

  changed(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const message: ServerMessage = { type: "fleet", view: this.view() };
      for (const page of this.pages) page.send(message);
    }, FLEET_INTERVAL_MS);
  }
}

/** One host's fleet for a page's request: `note` says why its tasks are not shown (connecting, unreachable). */
interface Feed {
  host: RemoteHost | null;
  client: DaemonClient | null;
  tasks: ReadonlyMap<number, TaskInfo>;
  note: string | null;
}

function noteOf(link: FleetLink): string | null {
  if (link.kind === "up") return null;
  return link.kind === "connecting" ? "connecting…" : link.said;
}

/**
 * Another host's answer waits hostAnswerBoundMs at most (a host that never answers), then its
 * connection is ended; this machine's daemon is waited for as long as it takes.
 */
function withinHostBound<T>(host: RemoteHost | null, client: DaemonClient, answer: Promise<T>): Promise<T> {
  if (!host) return answer;
  const bound = hostAnswerBoundMs();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      client.destroy();
      reject(new Error(`${host.name} is unreachable: no answer within ${bound / 1000} s`));
    }, bound);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** This machine's fleet, live: its daemon started if none runs when the view starts; a lost one is waited for, never started again. */
class LocalFleet extends LinkedFleet {
  protected open(first: boolean): Promise<DaemonClient> {
    return DaemonClient.open(HERE, { autostart: first, notices: false });
  }

  protected lostWords(why: string): { reason: string; said: string } {
    return { reason: why, said: `this machine's daemon is unreachable: ${why}` };
  }
}

/** One open page: its WebSocket, and the task it views through a connection of its own (attach). */
class Page {
  private screen: ScreenFeed | null = null;
  /** The view asked for while another was being opened: the newest only. */
  private wanted: { task: number | null; host: string | null } | null = null;
  private opening = false;
  private closed = false;

  constructor(
    private readonly ws: Socket,
    private readonly fleet: FleetFeed,
    private readonly write: boolean,
    writeLink: string | null,
  ) {
    fleet.pages.add(this);
    fleet.showsUse(true);
    this.send({ type: "hello", write, keys: write ? KEY_BUTTONS : [], writeLink });
    this.send({ type: "fleet", view: fleet.view() });
  }

  send(message: ServerMessage): void {
    this.ws.send(JSON.stringify(message));
  }

  /** `fleetcom web --revoke` ends an open page too, not only the next request. */
  closeIfRevoked(): void {
    if (!isSession(this.ws.data.session)) this.ws.close(REVOKED, "revoked");
  }

  get behind(): boolean {
    return this.ws.getBufferedAmount() > BEHIND_BYTES;
  }

  receive(raw: string | Buffer): void {
    let message: unknown;
    try {
      message = JSON.parse(String(raw));
    } catch {
      return this.send({ type: "error", message: "not JSON" });
    }
    if (!pageMessage.allows(message)) return this.send({ type: "error", message: "not a message of this page" });
    if (!READ_ONLY_MESSAGES.has(message.type) && !this.write)
      return this.send({ type: "error", message: `read-only: open a link from ${this.ws.data.writeLink ?? "fleetcom web --url --write"} to type or act` });
    this.act(message).catch((error) => this.send({ type: "error", message: errorMessage(error) }));
  }

  private async act(message: PageMessage): Promise<void> {
    if (message.type === "view") return this.view(message.task, message.host ?? null);
    if (message.type === "input") return this.screen?.type(message.data);
    // Every other message names its task's host: the request goes to that host's daemon.
    const feed = this.fleet.feed(message.host);
    const client = feed.client;
    if (!client) throw new Error(feed.host ? (feed.note ?? `${feed.host.name} is not connected`) : "the daemon is not running");
    switch (message.type) {
      case "history":
        return this.sendHistory(client, message.task, feed.host?.name ?? null);
      case "send":
        await client.request("send", { task: { id: message.task }, text: message.text, enter: true });
        return;
      case "keys": {
        const unknown = unknownKey(message.keys);
        if (unknown) return this.send({ type: "error", message: `unknown key '${unknown}'` });
        await client.request("send", { task: { id: message.task }, keys: message.keys });
        return;
      }
      case "rerun":
        await client.request("rerun", { task: { id: message.task } });
        return;
      case "kill":
        await client.request("kill", { tasks: [{ id: message.task }] });
        return;
      case "changes":
        return this.send({
          type: "changes",
          task: message.task,
          host: message.host ?? null,
          ...(await changedFiles(feed.tasks.get(message.task), message.host ?? null)),
        });
      case "file-diff": {
        const diff = await fileDiff(feed.tasks.get(message.task), message.host ?? null, message.path);
        return this.send({ type: "file-diff", task: message.task, host: message.host ?? null, path: message.path, ...diff });
      }
      case "checkpoints": {
        const listed = await checkpointRows(client, feed.tasks.get(message.task), message.host ?? null);
        return this.send({ type: "checkpoints", task: message.task, host: message.host ?? null, ...listed });
      }
      case "rewind": {
        const result = await rewindFromPage(client, feed.tasks.get(message.task), message.host ?? null, message.n);
        return this.send({ type: "rewound", task: message.task, host: message.host ?? null, n: message.n, ...result });
      }
      case "review":
        await sendComments(client, feed.tasks.get(message.task), message.host ?? null, message.comments);
        return this.send({ type: "reviewed", task: message.task, host: message.host ?? null, comments: message.comments.length });
    }
  }

  /** The task's kept history, plain, its last HISTORY_LINES lines (and HISTORY_CHARS characters) at most. */
  private async sendHistory(client: DaemonClient, task: number, host: string | null): Promise<void> {
    // One line more than is shown says whether any were left out.
    const { text } = await client.request("peek", { task: { id: task }, history: true, lines: HISTORY_LINES + 1 });
    const all = text === "" ? [] : text.split("\n");
    const kept: string[] = [];
    let chars = 0;
    for (let i = all.length - 1; i >= 0 && kept.length < HISTORY_LINES; i--) {
      const line = printable(all[i]!);
      chars += line.length + 1;
      if (chars > HISTORY_CHARS) break;
      kept.push(line);
    }
    kept.reverse();
    this.send({ type: "history", task, host, text: kept.join("\n"), lines: kept.length, cut: kept.length < all.length });
  }

  /**
   * One screen open in flight per page: a view asked for meanwhile waits, and only the newest is
   * opened when it ends (a burst of taps, or of messages, opens one or two, not one each).
   */
  private async view(task: number | null, host: string | null): Promise<void> {
    this.wanted = { task, host };
    if (this.opening) return;
    this.opening = true;
    try {
      while (this.wanted !== null && !this.closed) {
        const next = this.wanted;
        this.wanted = null;
        this.screen?.close();
        this.screen = null;
        if (next.task !== null) await this.openScreen(next.task, next.host);
      }
    } finally {
      this.opening = false;
    }
  }

  /** The task's screen, unless a later view overtakes it; a failure is said only for the view still wanted. */
  private async openScreen(task: number, host: string | null): Promise<void> {
    const overtaken = () => this.wanted !== null || this.closed;
    try {
      const hostFeed = this.fleet.feed(host);
      const info = (id: number) => hostFeed.tasks.get(id);
      const open = () => ScreenFeed.open(this, task, hostFeed.host, info);
      const feed = hostFeed.host ? await this.fleet.opens.run(hostFeed.host.name, overtaken, open) : await open();
      if (overtaken()) feed.close();
      else this.screen = feed;
    } catch (error) {
      if (!(error instanceof Overtaken) && !overtaken()) this.send({ type: "error", message: errorMessage(error) });
    }
  }

  close(): void {
    this.closed = true;
    this.fleet.pages.delete(this);
    if (this.fleet.pages.size === 0) this.fleet.showsUse(false);
    this.screen?.close();
    this.screen = null;
  }
}

/**
 * One task's screen for one page, throttled: the daemon's live output only marks the screen as
 * changed, and at most every SCREEN_INTERVAL_MS the page is sent the whole screen as it stands
 * (redraw: serializeForAttach, what attach draws), and only when the page has read what it was sent.
 * However fast the task prints, a page holds at most one screen in flight here, never more.
 */
class ScreenFeed {
  private nextIsScreen = false;
  private fullScreen = false;
  private changed = false;
  private asked = false;
  closed = false;
  /** The size the page last drew at: a terminal resizing the task calls for a new screen. */
  private drawnAt = "";
  private readonly timer = setInterval(() => this.tick(), SCREEN_INTERVAL_MS);
  private readonly decoder = new TextDecoder();

  private constructor(
    private readonly page: Page,
    private readonly task: number,
    readonly host: string | null,
    private readonly client: DaemonClient,
    private readonly info: (id: number) => TaskInfo | undefined,
  ) {}

  /** Through a connection of its own to the task's daemon, this machine's or `host`'s (over ssh). */
  static async open(page: Page, task: number, host: RemoteHost | null, info: (id: number) => TaskInfo | undefined): Promise<ScreenFeed> {
    const client = await DaemonClient.open(targetOf(host), { autostart: false, notices: false });
    const feed = new ScreenFeed(page, task, host?.name ?? null, client, info);
    client.handlers = {
      screen: (follows) => feed.screenFollows(follows.fullScreen === true),
      data: (bytes) => feed.data(bytes),
      attachEnd: (end) => page.send({ type: "ended", task, host: feed.host, reason: end.reason }),
      closed: () => {
        if (!feed.closed) page.send({ type: "ended", task, host: feed.host, reason: client.lostLink ?? "lost the daemon" });
        feed.close();
      },
      linkLost: true,
    };
    try {
      await withinHostBound(host, client, client.request("attach", { task: { id: task } }));
    } catch (error) {
      feed.close();
      throw error;
    }
    return feed;
  }

  /** The next data is a whole screen; `fullScreen`: of a full-screen program, which the page draws cell for cell. */
  screenFollows(fullScreen: boolean): void {
    this.nextIsScreen = true;
    this.fullScreen = fullScreen;
  }

  private data(bytes: Uint8Array): void {
    if (!this.nextIsScreen) {
      this.changed = true;
      return;
    }
    this.nextIsScreen = false;
    this.asked = false;
    const size = this.info(this.task);
    if (this.page.behind || !size) {
      this.changed = true;
      return;
    }
    this.drawnAt = `${size.cols}x${size.rows}`;
    // Another host's screen is drawn and serialized again here: the page gets what this machine's daemon would send.
    const screen = this.host === null ? { data: this.decoder.decode(bytes), cols: size.cols, rows: size.rows } : refilteredScreen(bytes, size.cols, size.rows);
    const { task, host, fullScreen } = this;
    this.page.send({ type: "screen", task, host, cols: screen.cols, rows: screen.rows, fullScreen, data: screen.data });
  }

  private tick(): void {
    const size = this.info(this.task);
    if (size && `${size.cols}x${size.rows}` !== this.drawnAt) this.changed = true;
    if (!this.changed || this.asked || this.page.behind) return;
    this.changed = false;
    this.asked = true;
    this.client.request("redraw").catch(() => {});
  }

  type(data: string): void {
    this.client.sendData(data);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.client.close();
  }
}
