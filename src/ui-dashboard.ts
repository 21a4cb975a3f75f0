// The dashboard: the fleet as a live list under the shell's last output, redrawn in place on every
// task event, with one key per action (cli.md, Dashboard; docs/dashboard.md has every key). It is a
// client like any other: it subscribes to the daemon's events, and acts through the same ops as the CLI.
// The cursor rests on a row by its key (a task's id, a section's title), never by its position, so a
// task that changes section (turns waiting, idle, finished) takes the cursor along when it is the
// one under it and leaves it alone otherwise; a task that moved is marked for a few seconds.
import { attachSession } from "./ui-attach.ts";
import { DEFAULT_DETACH_KEY, attachStatusSetting, type DetachKey } from "./ui-attach-settings.ts";
import { crashNoticeText, DaemonClient } from "./client.ts";
import { hostInUse, hostsMayBeAdded } from "./client-target.ts";
import { EXIT, UserError, errorMessage } from "./errors.ts";
import { label } from "./task-labels.ts";
import { age, stateText } from "./ui-format.ts";
import {
  GROUPINGS,
  ORDERS,
  type Order,
  allTasks,
  dashboardLines,
  filterCursor,
  helpRows,
  screenRows,
  sectionOf,
  sections,
  taskKey,
  type Grouping,
  useInTitle,
  type HostBlock,
  type Row,
  type View,
} from "./ui-dashboard-view.ts";
import { helpScrollMax } from "./ui-dashboard-keys.ts";
import { KeyInput, keyEntry, keyName, type Key, type KeyId } from "./ui-keys.ts";
import { printable } from "./text-printable.ts";
import type { CrashNotice, Notices, SnapshotError, TaskEvent, TaskInfo } from "./wire-protocol.ts";
import { KEEP_HINT, killOrRemove, newCommand, recoverLost, regroup, rename, rerun, save, tag, type Desk } from "./ui-dashboard-actions.ts";
import { askLine, PROMPT_ROWS } from "./ui-prompt.ts";
import { openHistoryInPager } from "./ui-history-pager.ts";
import { Region } from "./ui-render.ts";
import { currentDirectory } from "./text-path.ts";
import { bellSetting, confirmSetting } from "./settings.ts";
import { WaitSignals } from "./ui-dashboard-waits.ts";
import { HostFleet } from "./ui-dashboard-hosts.ts";
import { CLEAR_SCREEN } from "./text-ansi.ts";

/** Ages tick; every other change (idle included) arrives as an event. */
const AGE_TICK_MS = 1_000;
/** How long a task that changed section keeps its ↑/↓ mark. */
const MOVED_MS = 5_000;

export type DashboardEnd = "detached" | "quit" | "lost";

export interface DashboardOptions {
  foreground?: boolean;
  /** A first status line, e.g. what `fleetcom NAME` loaded. */
  status?: string | undefined;
  /** For every attach from here (`--detach-key`). */
  detachKey?: DetachKey | undefined;
}

export async function runDashboard(options: DashboardOptions = {}): Promise<{ end: DashboardEnd; running: number }> {
  const dashboard = new Dashboard(options);
  try {
    return await dashboard.run();
  } finally {
    dashboard.close();
  }
}

/** The keys that still move the cursor while the filter is typed. */
const MOVING_KEYS = new Set<string>(["up", "down", "pageup", "pagedown", "home", "end"] satisfies KeyId[]);

/**
 * What the keys do and what shows beside the list, one at a time. `lent`: a prompt, the pager, the
 * session picker or attached mode has the terminal, nothing draws, and `back` is the mode it comes
 * back to; `ended`: the dashboard has returned, and a late reply or event must not draw over what follows.
 */
type Mode =
  | { kind: "list" }
  | { kind: "filtering" }
  /** `12⏎` (digits only) or `:gpu1:12⏎` (a reference: a host's name, `:`, digits). */
  | { kind: "jumping"; typed: string; takes: "digits" | "reference" }
  | { kind: "help"; scroll: number }
  | { kind: "peek"; key: string; task: TaskInfo; title: string; text: string }
  | { kind: "confirming"; answer: (yes: boolean) => void }
  | { kind: "lost" }
  | { kind: "quitting" }
  | { kind: "lent"; back: Mode }
  | { kind: "ended" };

const LIST: Mode = { kind: "list" };

class Dashboard implements Desk {
  private readonly tasks = new Map<number, TaskInfo>();
  private readonly region = new Region();
  private readonly keys = new KeyInput();
  readonly here = currentDirectory();
  grouping: Grouping = "state";
  order: Order = "id";
  /** The key of the row under the cursor; null until the first draw puts it on the first task. */
  private cursor: string | null = null;
  /** Where the cursor's row was, for when that row goes away (its task removed or filtered out). */
  private cursorIndex = 0;
  /**
   * Home or End was the last key: the cursor stays on the first or the last row while rows come and
   * go (tasks turning idle push a new last row every second), until the next key. What the user
   * pressed wins over keeping the cursor on its task.
   */
  private pinned: "first" | "last" | null = null;
  /** Selected tasks, by taskKey. */
  readonly picked = new Set<string>();
  /** Tasks that just changed section, by taskKey. */
  private readonly moved = new Map<string, { way: "up" | "down"; until: number }>();
  private filter = "";
  private mode: Mode = LIST;
  private status: View["status"];
  /** The task (its taskKey) whose peek is open or on its way: a reply that comes after a key closed it is dropped. */
  private peekWanted: string | null = null;
  /** The status line in attached mode, as the last attach left it. */
  private attachStatus = attachStatusSetting();
  private drawQueued = false;
  private finish!: (end: DashboardEnd) => void;
  /** The connection to this machine's daemon (with `--host`, to that host's). */
  client!: DaemonClient;
  /** The added hosts' fleets, each through a kept link of its own (ui-dashboard-hosts.ts); none with `--host`. */
  private hostFleets: HostFleet[] = [];
  /** The previous fleet ended without a clean stop and is not recovered: `L` recovers it. */
  private crash: CrashNotice | null = null;
  /** Recovery snapshots are failing: shown under the header for as long as they do. */
  private snapshotError: SnapshotError | null = null;
  /** The bell and the title that tell the host terminal about waits (ui-dashboard-waits.ts). */
  private readonly waits = new WaitSignals((bytes) => process.stdout.write(bytes), bellSetting());

  constructor(private readonly options: DashboardOptions) {
    this.status = options.status ? { text: options.status, error: false } : null;
  }

  private get detachKey(): DetachKey {
    return this.options.detachKey ?? DEFAULT_DETACH_KEY;
  }

  close(): void {
    this.client?.close();
    for (const fleet of this.hostFleets) fleet.close();
  }

  /**
   * The added hosts, each linked in the background: called once this machine's fleet is drawn, so
   * no host (however slow or down) delays it. Not with `--host` (that host's fleet is the one shown).
   */
  private async linkHosts(): Promise<void> {
    if (hostInUse() !== null || !hostsMayBeAdded()) return;
    const { hostAnswerBoundMs, readHosts } = await import("./client-hosts.ts");
    const listener = {
      event: (host: string, event: TaskEvent, before: TaskInfo | undefined) => this.onEvent(event, before, host),
      linkChanged: () => this.drawSoon(),
    };
    // Left already (a quick q): nothing is linked, so nothing is left to close.
    if (this.mode.kind === "ended") return;
    this.hostFleets = readHosts().map((host) => new HostFleet(host, listener, hostAnswerBoundMs()));
    for (const fleet of this.hostFleets) void fleet.connect();
    this.drawSoon();
  }

  get hostNames(): string[] {
    return this.hostFleets.map((f) => f.name);
  }

  /** The host `task` was heard from; null for this machine's (or, with `--host`, that host's) fleet. */
  private fleetOf(task: TaskInfo): HostFleet | null {
    return this.hostFleets.find((f) => f.owns(task)) ?? null;
  }

  clientOf(task: TaskInfo): DaemonClient {
    return this.clientOn(this.fleetOf(task)?.name ?? null);
  }

  clientOn(host: string | null): DaemonClient {
    if (host === null) return this.client;
    const fleet = this.hostFleets.find((f) => f.name === host);
    if (fleet?.client) return fleet.client;
    throw new UserError(`${host} is unreachable${fleet?.link.kind === "unreachable" ? ` (${fleet.link.reason})` : ""}`, EXIT.unreachable);
  }

  ref(task: TaskInfo): string {
    const host = this.fleetOf(task)?.name;
    return host ? `${host}:${task.id}` : String(task.id);
  }

  private keyOf(task: TaskInfo): string {
    return taskKey(task.id, this.fleetOf(task)?.name ?? null);
  }

  /** The added hosts' blocks for the view; undefined when none is shown. */
  private hostBlocks(): HostBlock[] | undefined {
    return this.hostFleets.length ? this.hostFleets.map((f) => f.block()) : undefined;
  }

  /** Every task shown, this machine's first, each with its key. */
  private everyTask(): { key: string; task: TaskInfo }[] {
    const local = [...this.tasks.values()].sort((a, b) => a.id - b.id).map((task) => ({ key: taskKey(task.id), task }));
    const remote = this.hostFleets.flatMap((f) => [...f.tasks.values()].sort((a, b) => a.id - b.id).map((task) => ({ key: taskKey(task.id, f.name), task })));
    return [...local, ...remote];
  }

  /** Connects (starting a daemon when `autostart`), subscribes, and learns what the header must say. */
  private async connect(autostart: boolean): Promise<void> {
    const client = await DaemonClient.open({ autostart, notices: (notices) => this.onNotices(notices) });
    client.handlers = {
      event: (event) => this.onLocalEvent(event),
      // Said once per failure streak, and once when writing works again; shown under the header meanwhile.
      snapshot: ({ error }) => {
        this.snapshotError = error;
        this.say(error ? `recovery snapshots are failing: ${printable(error.message)}` : "recovery snapshots are written again", error !== null);
      },
      crash: ({ crash }) => {
        this.crash = crash;
        this.drawSoon();
      },
      closed: () => this.connectionClosed(client),
    };
    this.client?.close();
    this.client = client;
    await client.subscribe(
      (tasks) => {
        this.tasks.clear();
        for (const task of tasks) this.tasks.set(task.id, task);
      },
      { resources: true },
    );
    const status = await client.request("status");
    this.crash = status.crash;
    this.snapshotError = status.snapshotError;
    if (this.mode.kind === "lost") this.mode = LIST;
  }

  private onNotices(notices: Notices): void {
    this.crash = notices.crash;
    if (notices.config.length > 0) this.status = { text: notices.config.map((p) => `warning: ${p}`).join("\n"), error: true };
  }

  /**
   * The daemon went away under us. The dashboard stays: it says so and offers `r` (start a daemon
   * and reconnect) or `q`. A foreground supervisor lives in this process, so there it is the end.
   */
  private connectionClosed(client: DaemonClient): void {
    if (client !== this.client) return;
    if (this.mode.kind === "quitting") return this.finish("quit");
    if (this.options.foreground) return this.finish("lost");
    if (this.mode.kind === "ended") return;
    this.tasks.clear();
    this.peekWanted = null;
    const was = this.settled;
    this.setMode({ kind: "lost" });
    if (was.kind === "confirming") was.answer(false);
    this.drawSoon();
  }

  private async reconnect(): Promise<void> {
    this.say("starting a daemon and reconnecting…");
    try {
      await this.connect(true);
      this.status = { text: `reconnected to daemon ${this.client.daemonPid}`, error: false };
    } catch (error) {
      this.fail(error);
    }
  }

  async run(): Promise<{ end: DashboardEnd; running: number }> {
    const done = new Promise<DashboardEnd>((resolve) => (this.finish = resolve));
    this.keys.rawAhead();
    try {
      await this.connect(!this.options.foreground);
    } catch (error) {
      this.keys.cookedAgain();
      throw error;
    }
    const onKey = (key: Key) => void this.onKey(key).catch((error) => this.say(errorMessage(error), true));
    const onResize = () => this.redrawFromTop();
    const tick = setInterval(() => this.draw(), AGE_TICK_MS);
    // A polite kill gets the terminal back in shape, as q would.
    const onTerm = () => this.finish("detached");
    process.once("SIGTERM", onTerm);
    this.keys.push(onKey);
    process.stdout.on("resize", onResize);
    this.draw();
    void this.linkHosts().catch((error) => this.say(errorMessage(error), true));
    const end = await done;
    this.mode = { kind: "ended" };
    clearInterval(tick);
    process.off("SIGTERM", onTerm);
    process.stdout.off("resize", onResize);
    this.keys.pop(onKey);
    this.region.clear();
    this.waits.end();
    return { end, running: this.everyTask().filter(({ task }) => task.state === "running").length };
  }

  // ---- the fleet ---------------------------------------------------------------------------

  private onLocalEvent(event: TaskEvent): void {
    const before = this.tasks.get(event.task.id);
    if (event.event === "removed") this.tasks.delete(event.task.id);
    else this.tasks.set(event.task.id, event.task);
    this.onEvent(event, before, null);
  }

  /** A task event, this machine's (`host` null) or an added host's, its fleet already updated. */
  private onEvent(event: TaskEvent, before: TaskInfo | undefined, host: string | null): void {
    const key = taskKey(event.task.id, host);
    if (event.event === "removed") this.picked.delete(key);
    // Attached mode, the pager and the prompts have the terminal meanwhile: attached mode says so itself.
    if (this.terminalOurs()) this.waits.changed(before, event.event === "removed" ? null : event.task);
    // A task that changes section moves on screen (rare: output alone never does it): mark it, with
    // the way it went in the order of its host's sections, the one it left counted as still there.
    const fleet = host === null ? null : this.hostFleets.find((f) => f.name === host);
    const home = fleet ? fleet.host.home : process.env.HOME;
    const [from, to] =
      before && event.event !== "removed" ? [sectionOf(before, this.grouping, home), sectionOf(event.task, this.grouping, home)] : [null, null];
    if (from !== to && from !== null && to !== null) {
      const tasks = fleet ? fleet.tasks : this.tasks;
      const order = sections([...tasks.values(), before!], this.grouping, home, fleet ? undefined : this.here).map((s) => s.title);
      this.moved.set(key, { way: order.indexOf(to) < order.indexOf(from) ? "up" : "down", until: Date.now() + MOVED_MS });
    }
    if (this.peekWanted === key && event.event !== "removed") void this.loadPeek(event.task);
    this.drawSoon();
  }

  /** The daemon sends a burst of events at once (every 250 ms): one frame for the whole burst. */
  private drawSoon(): void {
    if (this.drawQueued) return;
    this.drawQueued = true;
    queueMicrotask(() => {
      this.drawQueued = false;
      this.draw();
    });
  }

  private rows(): Row[] {
    return screenRows({
      tasks: [...this.tasks.values()],
      grouping: this.grouping,
      order: this.order,
      filter: this.filter,
      home: process.env.HOME,
      here: this.here,
      hosts: this.hostBlocks(),
    });
  }

  /**
   * Where the cursor is among `rows`: on its row, or at the end Home or End pinned it to. When its
   * row went away (its task removed or filtered out) it is on the row now where it was; at first, on
   * the first task.
   */
  private cursorAt(rows: Row[]): number {
    const at = this.pinned === "first" ? 0 : this.pinned === "last" ? rows.length - 1 : rows.findIndex((r) => r.key === this.cursor);
    if (at !== -1) return at;
    return this.cursor === null
      ? Math.max(
          0,
          rows.findIndex((r) => r.task !== null),
        )
      : Math.min(this.cursorIndex, rows.length - 1);
  }

  private rowUnderCursor(rows = this.rows()): Row | undefined {
    return rows[this.cursorAt(rows)];
  }

  /** Each frame keeps the cursor on the row it is drawn on, so it stays there while rows come and go. */
  private settleCursor(rows: Row[]): void {
    const at = this.cursorAt(rows);
    this.cursor = rows[at]?.key ?? null;
    this.cursorIndex = Math.max(0, at);
  }

  /** The mode once the terminal is ours again: the one under a lent terminal. */
  private get settled(): Mode {
    return this.mode.kind === "lent" ? this.mode.back : this.mode;
  }

  /** Sets the mode, or, while the terminal is lent, the mode it comes back to. */
  private setMode(mode: Mode): void {
    if (this.mode.kind === "lent") this.mode.back = mode;
    else this.mode = mode;
  }

  private terminalOurs(): boolean {
    return this.mode.kind !== "lent" && this.mode.kind !== "ended";
  }

  /**
   * `use` has the terminal (a prompt, the pager, the picker, attached mode) until it settles: nothing
   * draws meanwhile, and the mode is as it was after, unless something (a lost connection) set another.
   */
  private async lend<T>(use: () => Promise<T>): Promise<T> {
    const lent = { kind: "lent" as const, back: this.mode };
    this.mode = lent;
    try {
      return await use();
    } finally {
      if (this.mode === lent) this.mode = lent.back;
    }
  }

  // ---- drawing -----------------------------------------------------------------------------

  private view(): View {
    const now = Date.now();
    for (const [key, mark] of this.moved) if (mark.until <= now) this.moved.delete(key);
    const { mode } = this;
    return {
      tasks: [...this.tasks.values()],
      hosts: this.hostBlocks(),
      notices: this.notices(),
      grouping: this.grouping,
      order: this.order,
      cursor: this.cursor,
      picked: this.picked,
      moved: new Map([...this.moved].map(([key, mark]) => [key, mark.way])),
      filter: this.filter,
      filtering: mode.kind === "filtering",
      jump: mode.kind === "jumping" ? mode.typed : null,
      foreground: !!this.options.foreground,
      status: this.status,
      peek: mode.kind === "peek" ? { title: mode.title, text: mode.text } : null,
      help: mode.kind === "help" ? { detach: this.detachKey.name, scroll: mode.scroll } : null,
      home: process.env.HOME,
      here: this.here,
      now,
    };
  }

  /** What the lines under the header say: a lost connection, a lost previous fleet, failing snapshots. */
  private notices(): { text: string; error: boolean }[] {
    const now = Date.now();
    const lines: { text: string; error: boolean }[] = [];
    if (this.mode.kind === "lost") lines.push({ text: "lost the connection to the daemon — r reconnects (starting a daemon), q leaves", error: true });
    if (this.crash) lines.push({ text: crashNoticeText(this.crash, now, "L recovers it"), error: true });
    if (this.snapshotError)
      lines.push({ text: `recovery snapshots failing for ${age(this.snapshotError.since, now)}: ${this.snapshotError.message}`, error: true });
    for (const host of this.hostFleets) lines.push(...host.noticeLines(now).map((text) => ({ text, error: true })));
    return lines;
  }

  private draw(reserve = 0): void {
    if (!this.terminalOurs()) return;
    this.waits.title(allTasks({ tasks: [...this.tasks.values()], hosts: this.hostBlocks() }));
    this.settleCursor(this.rows());
    const view = this.view();
    const lines = dashboardLines(view, this.region.columns, this.region.height - 1 - reserve);
    this.region.draw(lines, filterCursor(view, lines));
  }

  /**
   * After a resize the terminal may have reflowed the old block, so relative moves can no longer
   * find its top: start again from the top of the screen.
   */
  private redrawFromTop(): void {
    if (!this.terminalOurs()) return;
    process.stdout.write(CLEAR_SCREEN);
    this.region.forget();
    this.draw();
  }

  tell(text: string, error = false): void {
    this.status = { text, error };
  }

  say(text: string, error = false): void {
    this.tell(text, error);
    this.draw();
  }

  private fail(error: unknown): void {
    this.tell(errorMessage(error), true);
  }

  showTask(id: number, host: string | null): void {
    this.cursor = taskKey(id, host);
  }

  // ---- keys --------------------------------------------------------------------------------

  private async onKey(key: Key): Promise<void> {
    // Home and End hold the cursor to their end until the next key, whatever that key is: the cursor
    // is then where the user saw it last.
    this.pinned = null;
    const { mode } = this;
    const name = keyName(key);
    switch (mode.kind) {
      case "confirming":
        this.mode = LIST;
        return mode.answer(key.name === "char" && key.text?.toLowerCase() === "y");
      case "lent":
      case "quitting":
      case "ended":
        return;
      case "peek":
        // h: the peeked task's whole history in the pager, then back to the peek; any other key closes it.
        if (key.name === "char" && key.text === "h") await this.pageHistory(mode.task);
        else this.closePeek();
        return this.draw();
      case "lost":
        if (name === "r") await this.reconnect();
        else if (name === "q" || name === "ctrl-c") this.finish("lost");
        return this.draw();
      case "help":
        this.helpKey(mode.scroll, name);
        return this.draw();
      case "filtering":
        return this.filterKey(key);
      case "jumping":
        if (this.jumpKey(mode, key)) return this.draw();
    }
    this.status = null;
    if (/^[0-9]$/.test(name) || name === ":") {
      this.mode = name === ":" ? { kind: "jumping", typed: "", takes: "reference" } : { kind: "jumping", typed: name, takes: "digits" };
      return this.draw();
    }
    const row = this.rowUnderCursor();
    const action = keyEntry(this.actions, name);
    if (action) await action(row);
    else if (name === "x" && row) this.status = { text: "press X (uppercase) to kill or remove a task", error: false };
    this.draw();
  }

  private readonly actions: Partial<Record<KeyId, (row: Row | undefined) => void | Promise<void>>> = {
    up: () => this.move(-1),
    k: () => this.move(-1),
    down: () => this.move(1),
    j: () => this.move(1),
    home: () => {
      this.pinned = "first";
    },
    end: () => {
      this.pinned = "last";
    },
    pageup: () => this.move(-this.page()),
    pagedown: () => this.move(this.page()),
    "/": () => {
      this.mode = { kind: "filtering" };
    },
    "?": () => {
      this.mode = { kind: "help", scroll: 0 };
    },
    escape: () => this.escape(),
    v: (row) => row && this.toggle(row),
    V: () => this.toggleAll(),
    enter: (row) => (row?.task ? this.attach(row.task) : row && this.tell("Enter attaches to a task; v on a title selects its section")),
    space: (row) => (row?.task ? this.openPeek(row.task) : row && this.tell("Space peeks at a task")),
    n: (row) => newCommand(this, row),
    r: (row) => row && rerun(this, this.targets(row), row),
    R: (row) => (row?.task ? rename(this, row.task) : row && this.tell("R renames a task; g sets the group of every task in this section")),
    g: (row) => row && regroup(this, this.targets(row), row),
    m: (row) => row && tag(this, this.targets(row)),
    X: (row) => row && killOrRemove(this, this.targets(row)),
    s: () => {
      this.grouping = GROUPINGS[(GROUPINGS.indexOf(this.grouping) + 1) % GROUPINGS.length]!;
      this.moved.clear();
    },
    u: () => {
      this.order = ORDERS[(ORDERS.indexOf(this.order) + 1) % ORDERS.length]!;
    },
    w: () => save(this),
    o: () => this.openSessions(),
    // In foreground mode the supervisor is this process: leaving stops everything, so it asks as Q does.
    q: () => (this.options.foreground ? this.quit() : this.finish("detached")),
    "ctrl-c": () => (this.options.foreground ? this.quit() : this.finish("detached")),
    Q: () => this.quit(),
    L: async () => {
      if (this.crash && (await recoverLost(this, this.crash))) this.crash = null;
    },
  };

  private move(by: number): void {
    const rows = this.rows();
    this.moveTo(this.cursorAt(rows) + by, rows);
  }

  /** A key while `?` shows: the scrolling keys scroll it when it does not fit, any other key closes it. */
  private helpKey(scroll: number, name: string): void {
    const max = helpScrollMax(this.detachKey.name, this.region.columns, helpRows({ notices: this.notices() }, this.region.height - 1), this.options.foreground);
    const by: Partial<Record<KeyId, number>> = { up: -1, k: -1, down: 1, j: 1, pageup: -this.page(), pagedown: this.page(), home: -max, end: max };
    const step = keyEntry(by, name);
    this.mode = max === 0 || step === undefined ? LIST : { kind: "help", scroll: Math.min(max, Math.max(0, scroll + step)) };
  }

  private moveTo(index: number, rows = this.rows()): void {
    const row = rows[Math.min(rows.length - 1, Math.max(0, index))];
    if (row) this.cursor = row.key;
  }

  /** A page: the rows the list shows, less the two it keeps for `⋮ N more`. */
  private page(): number {
    return Math.max(1, this.region.height - 6);
  }

  /** Typing the filter: the rows narrow with each key; Enter keeps it, Esc clears it. */
  private filterKey(key: Key): void {
    if (key.name === "escape" || key.name === "ctrl-c") {
      this.filter = "";
      this.mode = LIST;
    } else if (key.name === "enter" || key.name === "tab") this.mode = LIST;
    else if (key.name === "backspace") this.filter = [...this.filter].slice(0, -1).join("");
    else if (key.name === "ctrl-u") this.filter = "";
    else if ((key.name === "char" || key.name === "space") && key.text) this.filter += key.text;
    else if (MOVING_KEYS.has(keyName(key))) void keyEntry(this.actions, key)?.(undefined);
    this.draw();
  }

  /**
   * A key while `12⏎` or `:gpu1:12⏎` is typed: true when the key was theirs. Begun with a digit it
   * takes digits only, so a letter after them is that letter's key; begun with `:` it takes a host's
   * name and `:` too.
   */
  private jumpKey({ typed, takes }: Extract<Mode, { kind: "jumping" }>, key: Key): boolean {
    this.mode = LIST;
    const char = key.name === "char" ? key.text! : "";
    if (/^[0-9]$/.test(char) || (takes === "reference" && /^[A-Za-z_:-]$/.test(char))) this.mode = { kind: "jumping", typed: typed + char, takes };
    else if (key.name === "backspace") {
      if (typed.length > 1) this.mode = { kind: "jumping", typed: typed.slice(0, -1), takes };
    } else if (key.name === "enter") this.jumpTo(typed);
    else if (key.name !== "escape") return false;
    return true;
  }

  /** `12⏎`: this machine's task 12, else the first host's that has one; `gpu1:12⏎`: gpu1's (`local:12`, this machine's). */
  private jumpTo(typed: string): void {
    const found = this.taskAt(typed);
    if (typeof found === "string") return void (this.status = { text: found, error: true });
    if (!this.rows().some((r) => r.key === found.key)) {
      this.filter = "";
      this.status = { text: `the filter hid task ${this.ref(found.task)}: cleared it`, error: false };
    }
    this.cursor = found.key;
  }

  /** The task `typed` names (`12`, `gpu1:12`, `local:12`), or why none. */
  private taskAt(typed: string): { key: string; task: TaskInfo } | string {
    const at = typed.lastIndexOf(":");
    const id = typed.slice(at + 1);
    if (!/^[0-9]+$/.test(id)) return `'${typed}' is not a task id (12, or HOST:12)`;
    const tasks = this.everyTask();
    if (at < 0) return tasks.find(({ task }) => task.id === Number(id)) ?? `no task ${id}`;
    const host = typed.slice(0, at);
    const fleet = host === "local" ? null : (this.hostFleets.find((f) => f.name === host) ?? undefined);
    if (fleet === undefined) return `no host '${host}' (${["local", ...this.hostFleets.map((f) => f.name)].join(", ")})`;
    const key = taskKey(Number(id), fleet?.name ?? null);
    return tasks.find((t) => t.key === key) ?? `no task ${typed}`;
  }

  private escape(): void {
    if (this.picked.size > 0) this.picked.clear();
    else this.filter = "";
  }

  // ---- selection ---------------------------------------------------------------------------

  /** `v`: a task in or out of the selection, then the next row (so a run of rows is v v v); a title: its section. */
  private toggle(row: Row): void {
    const keys = row.task ? [row.key] : row.section.tasks.map((t) => taskKey(t.id, row.host));
    const all = keys.every((key) => this.picked.has(key));
    for (const key of keys) {
      if (all) this.picked.delete(key);
      else this.picked.add(key);
    }
    if (row.task) this.move(1);
  }

  /** `V`: every task shown selected, or, when they all are, none. */
  private toggleAll(): void {
    const shown = this.rows().flatMap((r) => (r.task ? [r.key] : []));
    const all = shown.length > 0 && shown.every((key) => this.picked.has(key));
    this.picked.clear();
    if (!all) for (const key of shown) this.picked.add(key);
  }

  /** What X, r, g and m act on: the selection, else the section under the cursor, else the task (ui-dashboard-actions.ts). */
  private targets(row: Row): TaskInfo[] {
    if (this.picked.size > 0) return this.everyTask().flatMap(({ key, task }) => (this.picked.has(key) ? [task] : []));
    return row.task ? [row.task] : row.section.tasks;
  }

  // ---- the peek, and the terminal lent -----------------------------------------------------

  private openPeek(task: TaskInfo): Promise<void> {
    this.peekWanted = this.keyOf(task);
    return this.loadPeek(task);
  }

  private closePeek(): void {
    this.peekWanted = null;
    this.mode = LIST;
  }

  /** The peek's text, when it is opened and again after each event about its task (the pager may have the terminal meanwhile). */
  private async loadPeek(task: TaskInfo): Promise<void> {
    const rows = Math.max(3, this.region.height - 4);
    const key = this.keyOf(task);
    const { text, info } = await this.clientOf(task).request("peek", { task: { id: task.id }, lines: rows });
    if (this.peekWanted !== key) return;
    const { settled } = this;
    // Another key took over while the peek was on its way (`/`, `?`, a question): it is not opened over that.
    if (settled.kind !== "list" && !(settled.kind === "peek" && settled.key === key)) return void (this.peekWanted = null);
    this.setMode({ kind: "peek", key, task, title: `${this.ref(task)} ${printable(label(task))}${useInTitle(info)}`, text });
    this.draw();
  }

  /** The pager has the terminal until it quits (ui-history-pager.ts), as attached mode would. */
  private async pageHistory(task: TaskInfo): Promise<void> {
    this.keys.suspend();
    try {
      await this.lend(() => openHistoryInPager(this.clientOf(task), task.id));
    } catch (error) {
      this.fail(error);
    } finally {
      this.keys.resume();
    }
  }

  async ask(message: string, initialValue = ""): Promise<string | null> {
    this.draw(PROMPT_ROWS);
    return this.lend(() => askLine(this.region, this.keys, message, initialValue));
  }

  /**
   * `question y/N` on the status line; only `y` says yes. Without a question at all when the config
   * file or FLEETCOM_CONFIRM turns confirmations off.
   */
  confirm(question: string): Promise<boolean> {
    if (!confirmSetting()) return Promise.resolve(true);
    this.say(`${question} y/N`);
    return new Promise((answer) => (this.mode = { kind: "confirming", answer }));
  }

  private async openSessions(): Promise<void> {
    const { describePicked, pickSession } = await import("./ui-picker-sessions.ts");
    try {
      const said = await this.lend(async () => {
        const picked = await pickSession({ start: "saved", region: this.region, keys: this.keys, reserve: PROMPT_ROWS });
        if (!picked) return null;
        const hint = picked.kind === "recovery" ? `\n${KEEP_HINT}` : "";
        return `${await describePicked(picked)}${hint}`;
      });
      if (said !== null) this.tell(said);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Attached mode on the task, through a connection of its own to the daemon it is on (its host's for a remote row). */
  private async attach(task: TaskInfo): Promise<void> {
    const fleet = this.fleetOf(task);
    const host = fleet?.name ?? null;
    try {
      const outcome = await this.lend(() => {
        this.region.clear();
        this.keys.hold();
        const options = { detachKey: this.detachKey, status: this.attachStatus, keepRawMode: true, ...(fleet && { host: fleet.host }) };
        return attachSession({ id: task.id }, options);
      });
      this.attachStatus = outcome.statusShown ?? this.attachStatus;
      // A chord may have moved attached mode to another task (of the same host): the cursor comes back on that one.
      const last = outcome.kind === "detached" ? outcome.task : outcome.end.task;
      if (last) this.cursor = taskKey(last.id, host);
      if (outcome.kind === "ended") {
        const { reason, task: ended } = outcome.end;
        const ref = host === null ? String(ended.id) : `${host}:${ended.id}`;
        const text = reason === "exited" ? `task ${ref} ${stateText(ended)}` : reason === "removed" ? `task ${ref} was removed` : "the daemon stopped";
        this.status = { text, error: reason !== "exited" };
      }
    } catch (error) {
      this.fail(error);
    } finally {
      // The task was on the alternate screen: leaving it put back the screen and cursor as they were
      // after region.clear(), so the list draws where it was.
      this.keys.resume();
    }
  }

  private async quit(): Promise<void> {
    const running = [...this.tasks.values()].filter((t) => t.state === "running").length;
    if (!(await this.confirm(`stop ${running} task${running === 1 ? "" : "s"} and the daemon?`))) return this.say("nothing stopped");
    this.mode = { kind: "quitting" };
    this.status = { text: `stopping ${this.tasks.size} task(s) and the daemon…`, error: false };
    this.draw();
    await this.client.request("shutdown").catch(() => {});
  }
}
