// The dashboard: the fleet as a live list under the shell's last output, redrawn in place on every
// task event, with one key per action (docs/dashboard.md has every key). It is a
// client like any other: it subscribes to the daemon's events, and acts through the same ops as the CLI.
// Its parts: the cursor, the selection, the filter and jumps (ui-dashboard-cursor.ts); the fleets
// and how their rows move (ui-dashboard-fleets.ts, ui-dashboard-moves.ts); keys that come as a paste
// (ui-dashboard-burst.ts); what borrows the terminal (ui-dashboard-lent.ts).
import { attachFromList, pickAndLoad } from "./ui-dashboard-lent.ts";
import { DEFAULT_DETACH_KEY, attachStatusSetting, type DetachKey } from "./ui-attach-settings.ts";
import { DaemonClient } from "./client.ts";
import type { Target } from "./client-target.ts";
import { errorMessage } from "./errors.ts";
import { label } from "./task-labels.ts";
import { dashboardLines, filterCursor, helpRows, troubleNotices, useInTitle, type View } from "./ui-dashboard-view.ts";
import { GROUPINGS, allTasks, taskKey, type Grouping, type ListRow } from "./view-fleet.ts";
import { helpScrollMax, helpScrolled } from "./ui-dashboard-keys.ts";
import { KeyInput, keyEntry, keyName, type Key, type KeyId } from "./ui-keys.ts";
import { ListCursor, jumpKey, taskAt, type Jump } from "./ui-dashboard-cursor.ts";
import { LIST, type DashboardEnd, type DashboardOptions, type Mode } from "./ui-dashboard-mode.ts";
import { Fleets } from "./ui-dashboard-fleets.ts";
import { printable } from "./text-printable.ts";
import type { CrashNotice, Notices, SnapshotError, TaskEvent, TaskInfo } from "./wire-protocol.ts";
import { stopQuestion, killOrRemove, newCommand, pageDiff, recoverLost, regroup, rename, rerun, save, tag, type Desk } from "./ui-dashboard-actions.ts";
import { askLine, PROMPT_ROWS } from "./ui-prompt.ts";
import { pageCheckpoints } from "./ui-dashboard-checkpoints.ts";
import { openHistoryInPager } from "./ui-history-pager.ts";
import { Region } from "./ui-render.ts";
import { currentDirectory } from "./text-path.ts";
import { bellSetting, confirmSetting } from "./settings.ts";
import { WaitSignals } from "./ui-dashboard-waits.ts";
import { type FleetEvent, Retrying } from "./client-fleet.ts";
import { CLEAR_SCREEN } from "./text-ansi.ts";
import { BURST_NOTICE, BurstGuard, PASTE_MARKS_OFF, PASTE_MARKS_ON } from "./ui-dashboard-burst.ts";

/** Ages tick; every other change (idle included) arrives as an event. */
const AGE_TICK_MS = 1_000;

/** How the dashboard ended, the tasks it left running (this machine's), and the added hosts it showed (Q leaves theirs running). */
export async function runDashboard(options: DashboardOptions): Promise<{ end: DashboardEnd; running: number; hosts: string[] }> {
  const dashboard = new Dashboard(options.target, options);
  try {
    return await dashboard.run();
  } finally {
    dashboard.close();
  }
}

class Dashboard implements Desk {
  readonly here = currentDirectory();
  grouping: Grouping = "state";
  private readonly onLocalEvent: FleetEvent = (event, before) => this.onEvent(event, before, null);
  /** This machine's fleet and the added hosts' (ui-dashboard-fleets.ts). */
  private readonly fleets = new Fleets(() => this.grouping, this.here, this.onLocalEvent);
  private readonly tasks = this.fleets.local.tasks;
  /** While the daemon is lost: tries without starting one (`r` does), so one started meanwhile is found. */
  private readonly retrying = new Retrying(() => this.settled.kind === "lost" && void this.reconnect(false));
  private readonly region = new Region();
  private readonly keys = new KeyInput();
  /** The cursor, the selection and the filter (ui-dashboard-cursor.ts). */
  private readonly list = new ListCursor();
  /** Keys faster than a person types are not actions (ui-dashboard-burst.ts). */
  private readonly bursts = new BurstGuard();
  readonly picked = this.list.picked;
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
  /** The previous fleet ended without a clean stop and is not recovered: `L` recovers it. */
  private crash: CrashNotice | null = null;
  /** Recovery snapshots are failing: shown under the header for as long as they do. */
  private snapshotError: SnapshotError | null = null;
  /** What stopped a task's log writes (a full disk), as the daemon said when the dashboard connected. */
  private logError: string | null = null;
  /** The bell and the title that tell the host terminal about waits (ui-dashboard-waits.ts). */
  private readonly waits = new WaitSignals((bytes) => process.stdout.write(bytes), bellSetting());

  constructor(
    readonly target: Target,
    private readonly options: DashboardOptions,
  ) {
    this.status = options.status ? { text: options.status, error: false } : null;
  }

  private get detachKey(): DetachKey {
    return this.options.detachKey ?? DEFAULT_DETACH_KEY;
  }

  close(): void {
    this.client?.close();
    for (const fleet of this.fleets.hosts) fleet.close();
  }

  /** The added hosts, linked once this machine's fleet is drawn, so no host (however slow or down) delays it. */
  private async linkHosts(): Promise<void> {
    const listener = {
      event: (host: string, event: TaskEvent, before: TaskInfo | undefined) => this.onEvent(event, before, host),
      linkChanged: () => this.drawSoon(),
    };
    if (await this.fleets.linkHosts(this.target, listener, () => this.mode.kind !== "ended")) this.drawSoon();
  }

  get hostNames(): string[] {
    return this.fleets.hostNames;
  }

  clientOf(task: TaskInfo): DaemonClient {
    return this.clientOn(this.fleets.fleetOf(task)?.name ?? null);
  }

  clientOn(host: string | null): DaemonClient {
    return this.fleets.clientOn(host, this.client);
  }

  ref(task: TaskInfo): string {
    return this.fleets.ref(task);
  }

  /** Connects (starting a daemon when `autostart`), subscribes, and learns what the header must say. */
  private async connect(autostart: boolean): Promise<void> {
    const client = await DaemonClient.open(this.target, { autostart, notices: (notices) => this.onNotices(notices) });
    client.handlers = {
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
    // The dashboard shows each task's CPU and memory: the daemon samples them while it is subscribed.
    await this.fleets.local.follow(client, undefined, true);
    const status = await client.request("status");
    this.crash = status.crash;
    this.snapshotError = status.snapshotError;
    this.logError = status.history.logError ?? null;
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
    this.retrying.after();
    if (was.kind === "confirming") was.answer(false);
    this.drawSoon();
  }

  /** `r` starts a daemon; while lost, the one reconnect policy (client-fleet.ts) looks for one come back by itself. */
  private async reconnect(autostart = true): Promise<void> {
    this.retrying.stop();
    if (autostart) this.say("starting a daemon and reconnecting…");
    try {
      await this.connect(autostart);
      this.retrying.reset();
      this.status = { text: `reconnected to daemon ${this.client.daemonPid}`, error: false };
    } catch (error) {
      if (autostart) this.fail(error);
      if (this.settled.kind === "lost") this.retrying.after();
    }
    this.drawSoon();
  }

  async run(): Promise<{ end: DashboardEnd; running: number; hosts: string[] }> {
    const done = new Promise<DashboardEnd>((resolve) => (this.finish = resolve));
    this.keys.rawAhead();
    try {
      await this.connect(!this.options.foreground);
    } catch (error) {
      this.keys.cookedAgain();
      throw error;
    }
    const onKey = (key: Key, read: readonly Key[]) => void this.onKey(key, read).catch((error) => this.say(errorMessage(error), true));
    const onResize = () => this.redrawFromTop();
    const tick = setInterval(() => this.draw(), AGE_TICK_MS);
    // A polite kill gets the terminal back in shape, as q would.
    const onTerm = () => this.finish("detached");
    process.once("SIGTERM", onTerm);
    this.keys.push(onKey);
    process.stdout.on("resize", onResize);
    process.stdout.write(PASTE_MARKS_ON);
    this.draw();
    void this.linkHosts().catch((error) => this.say(errorMessage(error), true));
    const end = await done;
    this.mode = { kind: "ended" };
    this.retrying.stop();
    clearInterval(tick);
    process.off("SIGTERM", onTerm);
    process.stdout.off("resize", onResize);
    this.keys.pop(onKey);
    this.region.clear();
    process.stdout.write(PASTE_MARKS_OFF);
    this.waits.end();
    return { end, running: this.fleets.everyTask().filter(({ task }) => task.state === "running").length, hosts: this.hostNames };
  }

  // ---- the fleet ---------------------------------------------------------------------------

  /** A task event, this machine's (`host` null) or an added host's, its fleet already updated. */
  private onEvent(event: TaskEvent, before: TaskInfo | undefined, host: string | null): void {
    const key = taskKey(event.task.id, host);
    if (event.event === "removed") this.picked.delete(key);
    // Attached mode, the pager and the prompts have the terminal meanwhile: attached mode says so itself.
    if (this.terminalOurs()) this.waits.changed(before, event.event === "removed" ? null : event.task);
    this.fleets.changed(key, host, event.task, event.event === "removed");
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

  private rows(): ListRow[] {
    return this.fleets.rows(this.list.filter);
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
    // A prompt, the pager or the task takes a paste as it comes.
    process.stdout.write(PASTE_MARKS_OFF);
    try {
      return await use();
    } finally {
      if (this.mode === lent) this.mode = lent.back;
      if (this.mode.kind !== "ended") process.stdout.write(PASTE_MARKS_ON);
    }
  }

  // ---- drawing -----------------------------------------------------------------------------

  private view(): View {
    const now = Date.now();
    const { mode } = this;
    return {
      tasks: this.fleets.shownLocal(now),
      hosts: this.fleets.hostBlocks(),
      notices: this.notices(),
      grouping: this.grouping,
      order: this.fleets.order,
      cursor: this.list.key,
      picked: this.picked,
      moved: this.fleets.moves.ways(now),
      filter: this.list.filter,
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
  private notices(): NonNullable<View["notices"]> {
    const now = Date.now();
    const hostLines = this.fleets.hosts.flatMap((host) => host.noticeLines(now));
    return troubleNotices({ lost: this.mode.kind === "lost", crash: this.crash, snapshotError: this.snapshotError, logError: this.logError, hostLines }, now);
  }

  private draw(reserve = 0): void {
    if (!this.terminalOurs()) return;
    this.waits.title(allTasks({ tasks: [...this.tasks.values()], hosts: this.fleets.hostBlocks() }));
    this.list.settle(this.rows());
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
    this.list.key = taskKey(id, host);
  }

  // ---- keys --------------------------------------------------------------------------------

  private async onKey(key: Key, read: readonly Key[] = [key]): Promise<void> {
    if (this.dropsBurst(key, read)) return;
    // Home and End hold the cursor to their end until the next key, whatever that key is: the cursor
    // is then where the user saw it last.
    this.list.pinned = null;
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
        if (key.name === "char" && key.text === "h") await this.lendToPager(() => openHistoryInPager(this.clientOf(mode.task), mode.task.id));
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
    const row = this.list.row(this.rows());
    const action = keyEntry(this.actions, name);
    if (action) await action(row);
    else if (name === "x" && row) this.status = { text: "press X (uppercase) to kill or remove a task", error: false };
    this.draw();
  }

  /**
   * Whether `key` is one of a burst's (ui-dashboard-burst.ts), judged once for the read it came in.
   * A burst is no action and answers no question; while the filter is typed only its text counts.
   */
  private dropsBurst(key: Key, read: readonly Key[]): boolean {
    const { mode } = this;
    // Lost, only r (reconnect) and q (leave) do anything, and neither loses anything.
    if (mode.kind === "lent" || mode.kind === "ended" || mode.kind === "quitting" || mode.kind === "lost") return false;
    const { dropped, fresh } = this.bursts.judge(read, mode.kind === "filtering" || mode.kind === "jumping");
    if (dropped && fresh && mode.kind !== "filtering") this.sayBurst(mode);
    return dropped && (mode.kind !== "filtering" || (key.name !== "char" && key.name !== "space"));
  }

  /** Says what a burst was taken for; a question stays open above it. */
  private sayBurst(mode: Mode): void {
    if (mode.kind !== "confirming") {
      this.mode = LIST;
      this.peekWanted = null;
      this.tell(BURST_NOTICE, true);
    } else if (!this.status?.text.endsWith(BURST_NOTICE)) this.tell(`${this.status?.text ?? ""}\n${BURST_NOTICE}`);
    this.draw();
  }

  private readonly actions: Partial<Record<KeyId, (row: ListRow | undefined) => void | Promise<void>>> = {
    up: () => this.move(-1),
    k: () => this.move(-1),
    down: () => this.move(1),
    j: () => this.move(1),
    home: () => void (this.list.pinned = "first"),
    end: () => void (this.list.pinned = "last"),
    pageup: () => this.move(-this.page()),
    pagedown: () => this.move(this.page()),
    "/": () => void (this.mode = { kind: "filtering" }),
    "?": () => void (this.mode = { kind: "help", scroll: 0 }),
    escape: () => this.list.escape(),
    v: (row) => row && this.list.toggle(row, this.rows()),
    V: () => this.list.toggleAll(this.rows()),
    enter: (row) => (row?.task ? this.attach(row.task) : row && this.tell("Enter attaches to a task; v on a title selects its section")),
    space: (row) => (row?.task ? this.openPeek(row.task) : row && this.tell("Space peeks at a task")),
    n: (row) => newCommand(this, row),
    r: (row) => row && rerun(this, this.list.targets(row, this.fleets.everyTask()), row),
    R: (row) => (row?.task ? rename(this, row.task) : row && this.tell("R renames a task; g sets the group of every task in this section")),
    g: (row) => row && regroup(this, this.list.targets(row, this.fleets.everyTask()), row),
    m: (row) => row && tag(this, this.list.targets(row, this.fleets.everyTask())),
    X: (row) => row && killOrRemove(this, this.list.targets(row, this.fleets.everyTask())),
    s: () => {
      this.grouping = GROUPINGS[(GROUPINGS.indexOf(this.grouping) + 1) % GROUPINGS.length]!;
      this.fleets.moves.regrouped();
    },
    u: () => this.fleets.nextOrder(),
    w: () => save(this),
    d: (row) => row && pageDiff(this, row),
    c: (row) => row && pageCheckpoints(this, row),
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
    this.list.move(by, this.rows());
  }

  /** A key while `?` shows: the scrolling keys scroll it when it does not fit, any other key closes it. */
  private helpKey(scroll: number, name: string): void {
    const max = helpScrollMax(this.detachKey.name, this.region.columns, helpRows({ notices: this.notices() }, this.region.height - 1), this.options.foreground);
    const to = helpScrolled(scroll, name, max, this.page());
    this.mode = to === null ? LIST : { kind: "help", scroll: to };
  }

  /** A page: the rows the list shows, less the two it keeps for `⋮ N more`. */
  private page(): number {
    return Math.max(1, this.region.height - 6);
  }

  /** Typing the filter: the rows narrow with each key; Enter keeps it, Esc clears it. */
  private filterKey(key: Key): void {
    const said = this.list.filterKey(key);
    if (said === "done") this.mode = LIST;
    else if (said === "moving") void keyEntry(this.actions, key)?.(undefined);
    this.draw();
  }

  /** A key while `12⏎` or `:gpu1:12⏎` is typed: true when the key was theirs. */
  private jumpKey(jump: Jump, key: Key): boolean {
    const next = jumpKey(jump, key);
    this.mode = typeof next === "object" ? { kind: "jumping", ...next } : LIST;
    if (next === "go") this.jumpTo(jump.typed);
    return next !== "not mine";
  }

  private jumpTo(typed: string): void {
    const found = taskAt(typed, this.fleets.everyTask(), this.hostNames);
    if (typeof found === "string") return void (this.status = { text: found, error: true });
    if (!this.rows().some((r) => r.key === found.key)) {
      this.list.filter = "";
      this.status = { text: `the filter hid task ${this.ref(found.task)}: cleared it`, error: false };
    }
    this.list.key = found.key;
  }

  // ---- the peek, and the terminal lent -----------------------------------------------------

  private openPeek(task: TaskInfo): Promise<void> {
    this.peekWanted = this.fleets.keyOf(task);
    return this.loadPeek(task);
  }

  private closePeek(): void {
    this.peekWanted = null;
    this.mode = LIST;
  }

  /** The peek's text, when it is opened and again after each event about its task (the pager may have the terminal meanwhile). */
  private async loadPeek(task: TaskInfo): Promise<void> {
    const rows = Math.max(3, this.region.height - 4);
    const key = this.fleets.keyOf(task);
    const { text, info } = await this.clientOf(task).request("peek", { task: { id: task.id }, lines: rows });
    if (this.peekWanted !== key) return;
    const { settled } = this;
    // Another key took over while the peek was on its way (`/`, `?`, a question): it is not opened over that.
    if (settled.kind !== "list" && !(settled.kind === "peek" && settled.key === key)) return void (this.peekWanted = null);
    this.setMode({ kind: "peek", key, task, title: `${this.ref(task)} ${printable(label(task))}${useInTitle(info)}`, text });
    this.draw();
  }

  /** The pager has the terminal until it quits (ui-history-pager.ts), as attached mode would. */
  async lendToPager(show: () => Promise<unknown>): Promise<void> {
    this.keys.suspend();
    try {
      await this.lend(show);
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
    try {
      const said = await this.lend(() => pickAndLoad(this.target, this.region, this.keys));
      if (said !== null) this.tell(said);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Attached mode on the task (ui-dashboard-lent.ts); back, the cursor is on the task attached last. */
  private async attach(task: TaskInfo): Promise<void> {
    try {
      const came = await this.lend(() => {
        this.region.clear();
        this.keys.hold();
        return attachFromList(task, this.fleets.fleetOf(task), { detachKey: this.detachKey, status: this.attachStatus, target: this.target });
      });
      this.attachStatus = came.statusShown ?? this.attachStatus;
      if (came.cursor) this.list.key = came.cursor;
      if (came.said) this.status = came.said;
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
    if (!(await this.confirm(stopQuestion(running, this.hostNames)))) return this.say("nothing stopped");
    this.mode = { kind: "quitting" };
    const what = this.hostNames.length ? `this machine's ${this.tasks.size} task(s) and its daemon` : `${this.tasks.size} task(s) and the daemon`;
    this.status = { text: `stopping ${what}…`, error: false };
    this.draw();
    await this.client.request("shutdown").catch(() => {});
  }
}
