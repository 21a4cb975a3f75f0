// The dashboard: the fleet as a live list under the shell's last output, redrawn in place on every
// task event, with one key per action (cli.md, Dashboard; docs/dashboard.md has every key). It is a
// client like any other: it subscribes to the daemon's events, and acts through the same ops as the CLI.
// The cursor rests on a row by its key (a task's id, a section's title), never by its position, so a
// task that changes section (turns waiting, idle, finished) takes the cursor along when it is the
// one under it and leaves it alone otherwise; a task that moved is marked for a few seconds.
import { attachSession } from "./ui-attach.ts";
import { join } from "node:path";
import { DEFAULT_DETACH_KEY, attachStatusSetting, type DetachKey } from "./ui-attach-settings.ts";
import { crashNoticeText, DaemonClient } from "./client.ts";
import { errorMessage } from "./errors.ts";
import { NO_GROUP, label } from "./task-labels.ts";
import { age, stateText } from "./ui-format.ts";
import { recoveryDir, tildePath } from "./paths.ts";
import {
  GROUPINGS,
  dashboardLines,
  filterCursor,
  helpRows,
  screenRows,
  sectionOf,
  sections,
  taskKey,
  type Grouping,
  type Row,
  type View,
} from "./ui-dashboard-view.ts";
import { helpScrollMax } from "./ui-dashboard-keys.ts";
import { KeyInput, keyEntry, keyName, type Key, type KeyId } from "./ui-keys.ts";
import { printable } from "./text-printable.ts";
import type { CrashNotice, Notices, SnapshotError, TaskEvent, TaskInfo } from "./wire-protocol.ts";
import { askLine, PROMPT_ROWS } from "./ui-prompt.ts";
import { openHistoryInPager } from "./ui-history-pager.ts";
import { Region } from "./ui-render.ts";
import { currentDirectory } from "./text-path.ts";
import { bellSetting, confirmSetting } from "./settings.ts";
import { WaitSignals } from "./ui-dashboard-waits.ts";
import { CLEAR_SCREEN } from "./text-ansi.ts";

// Ages and the running/idle glyphs change with time alone; the daemon sends events only for changes.
/** Ages tick; every other change (idle included) arrives as an event. */
const AGE_TICK_MS = 1_000;
/** How long a task that changed section keeps its ↑/↓ mark. */
const MOVED_MS = 5_000;
const KEEP_HINT = "press w (or run fleetcom save NAME) to keep this fleet under a permanent name";

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

class Dashboard {
  private readonly tasks = new Map<number, TaskInfo>();
  private readonly region = new Region();
  private readonly keys = new KeyInput();
  private readonly here = currentDirectory();
  private grouping: Grouping = "state";
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
  private readonly picked = new Set<number>();
  private readonly moved = new Map<number, { way: "up" | "down"; until: number }>();
  private filter = "";
  private filtering = false;
  private jump: string | null = null;
  /** The `?` screen is open, scrolled this many lines down; null when it is not. */
  private helpScroll: number | null = null;
  private status: View["status"];
  private peek: { id: number; title: string; text: string } | null = null;
  /** The task whose peek is open or on its way: a reply that comes after a key closed it is dropped. */
  private peekWanted: number | null = null;
  /** The status line in attached mode, as the last attach left it. */
  private attachStatus = attachStatusSetting();
  /** A prompt, the picker or attached mode has the terminal: no redraws meanwhile. */
  private away = false;
  private quitting = false;
  private drawQueued = false;
  /** A y/N question on the status line: the next key answers it. */
  private confirming: ((yes: boolean) => void) | null = null;
  private finish!: (end: DashboardEnd) => void;
  private client!: DaemonClient;
  /** The connection to the daemon is gone (it crashed or was stopped): `r` starts one and reconnects. */
  private lost = false;
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
  }

  /** Connects (starting a daemon when `autostart`), subscribes, and learns what the header must say. */
  private async connect(autostart: boolean): Promise<void> {
    const client = await DaemonClient.open({ autostart, notices: (notices) => this.onNotices(notices) });
    client.handlers = {
      event: (event) => this.onEvent(event),
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
    await client.subscribe((tasks) => {
      this.tasks.clear();
      for (const task of tasks) this.tasks.set(task.id, task);
    });
    const status = await client.request("status");
    this.crash = status.crash;
    this.snapshotError = status.snapshotError;
    this.lost = false;
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
    if (this.quitting) return this.finish("quit");
    if (this.options.foreground) return this.finish("lost");
    this.lost = true;
    this.tasks.clear();
    this.closePeek();
    this.confirming?.(false);
    this.confirming = null;
    this.drawSoon();
  }

  private async reconnect(): Promise<void> {
    this.say("starting a daemon and reconnecting…");
    try {
      await this.connect(true);
      this.status = { text: `reconnected to daemon ${this.client.daemonPid}`, error: false };
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
    }
  }

  /** `L`: recover the lost fleet the header names, exactly as `fleetcom recover` of its snapshot would. */
  private async recoverLost(): Promise<void> {
    if (!this.crash) return;
    const [{ snapshotByPath }, { recoverAndDescribe }] = await Promise.all([import("./recipe-snapshots.ts"), import("./client-recipes.ts")]);
    try {
      const summary = await recoverAndDescribe(snapshotByPath(join(recoveryDir(), this.crash.snapshot)));
      this.crash = null;
      this.status = { text: `${summary}\n${KEEP_HINT}`, error: false };
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
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
    const end = await done;
    this.away = true; // for good: a late reply or event must not draw over what follows
    clearInterval(tick);
    process.off("SIGTERM", onTerm);
    process.stdout.off("resize", onResize);
    this.keys.pop(onKey);
    this.region.clear();
    this.waits.end();
    return { end, running: [...this.tasks.values()].filter((t) => t.state === "running").length };
  }

  // ---- the fleet ---------------------------------------------------------------------------

  private onEvent(event: TaskEvent): void {
    const before = this.tasks.get(event.task.id);
    if (event.event === "removed") {
      this.tasks.delete(event.task.id);
      this.picked.delete(event.task.id);
    } else this.tasks.set(event.task.id, event.task);
    // Attached mode, the pager and the prompts have the terminal meanwhile: attached mode says so itself.
    if (!this.away) this.waits.changed(before, event.event === "removed" ? null : event.task);
    // A task that changes section moves on screen (rare: output alone never does it): mark it, with
    // the way it went in the order of the sections, the one it left counted as still there.
    const home = process.env.HOME;
    const [from, to] =
      before && event.event !== "removed" ? [sectionOf(before, this.grouping, home), sectionOf(event.task, this.grouping, home)] : [null, null];
    if (from !== to && from !== null && to !== null) {
      const order = sections([...this.tasks.values(), before!], this.grouping, home, this.here).map((s) => s.title);
      this.moved.set(event.task.id, { way: order.indexOf(to) < order.indexOf(from) ? "up" : "down", until: Date.now() + MOVED_MS });
    }
    if (this.peekWanted === event.task.id && event.event !== "removed") void this.loadPeek(event.task);
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
    return screenRows({ tasks: [...this.tasks.values()], grouping: this.grouping, filter: this.filter, home: process.env.HOME, here: this.here });
  }

  /**
   * The row under the cursor. When its row went away (its task removed or filtered out) the cursor
   * takes the row now where it was; at first it goes on the first task.
   */
  private currentRow(rows = this.rows()): Row | undefined {
    let at = this.pinned === "first" ? 0 : this.pinned === "last" ? rows.length - 1 : rows.findIndex((r) => r.key === this.cursor);
    if (at === -1)
      at =
        this.cursor === null
          ? Math.max(
              0,
              rows.findIndex((r) => r.task !== null),
            )
          : Math.min(this.cursorIndex, rows.length - 1);
    const row = rows[at];
    this.cursor = row?.key ?? null;
    this.cursorIndex = Math.max(0, at);
    return row;
  }

  // ---- drawing -----------------------------------------------------------------------------

  private view(): View {
    this.currentRow();
    const now = Date.now();
    for (const [id, mark] of this.moved) if (mark.until <= now) this.moved.delete(id);
    const peek = this.peek && { title: this.peek.title, text: this.peek.text };
    return {
      tasks: [...this.tasks.values()],
      notices: this.notices(),
      grouping: this.grouping,
      cursor: this.cursor,
      picked: this.picked,
      moved: new Map([...this.moved].map(([id, mark]) => [id, mark.way])),
      filter: this.filter,
      filtering: this.filtering,
      jump: this.jump,
      foreground: !!this.options.foreground,
      status: this.status,
      peek,
      help: this.helpScroll === null ? null : { detach: this.detachKey.name, scroll: this.helpScroll },
      home: process.env.HOME,
      here: this.here,
      now,
    };
  }

  /** What the lines under the header say: a lost connection, a lost previous fleet, failing snapshots. */
  private notices(): { text: string; error: boolean }[] {
    const now = Date.now();
    const lines: { text: string; error: boolean }[] = [];
    if (this.lost) lines.push({ text: "lost the connection to the daemon — r reconnects (starting a daemon), q leaves", error: true });
    if (this.crash) lines.push({ text: crashNoticeText(this.crash, now, "L recovers it"), error: true });
    if (this.snapshotError)
      lines.push({ text: `recovery snapshots failing for ${age(this.snapshotError.since, now)}: ${this.snapshotError.message}`, error: true });
    return lines;
  }

  private draw(reserve = 0): void {
    if (this.away) return;
    this.waits.title(this.tasks.values());
    const view = this.view();
    const lines = dashboardLines(view, this.region.columns, this.region.height - 1 - reserve);
    this.region.draw(lines, filterCursor(view, lines));
  }

  /**
   * After a resize the terminal may have reflowed the old block, so relative moves can no longer
   * find its top: start again from the top of the screen.
   */
  private redrawFromTop(): void {
    if (this.away) return;
    process.stdout.write(CLEAR_SCREEN);
    this.region.forget();
    this.draw();
  }

  private say(text: string, error = false): void {
    this.status = { text, error };
    this.draw();
  }

  // ---- keys --------------------------------------------------------------------------------

  private async onKey(key: Key): Promise<void> {
    // Home and End hold the cursor to their end until the next key, whatever that key is: the cursor
    // is then where the user saw it last.
    this.pinned = null;
    if (this.confirming) {
      const answer = this.confirming;
      this.confirming = null;
      return answer(key.name === "char" && key.text?.toLowerCase() === "y");
    }
    if (this.away || this.quitting) return;
    if (this.peek) {
      // h: the peeked task's whole history in the pager, then back to the peek; any other key closes it.
      if (key.name === "char" && key.text === "h") await this.pageHistory(this.peek.id);
      else this.closePeek();
      return this.draw();
    }
    const name = keyName(key);
    if (this.lost) {
      if (name === "r") await this.reconnect();
      else if (name === "q" || name === "ctrl-c") this.finish("lost");
      return this.draw();
    }
    if (this.helpScroll !== null) {
      this.helpKey(name);
      return this.draw();
    }
    if (this.filtering) return this.filterKey(key);
    if (this.jump !== null && this.jumpKey(key)) return this.draw();
    this.status = null;
    if (/^[0-9]$/.test(name)) {
      this.jump = name;
      return this.draw();
    }
    const row = this.currentRow();
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
    home: () => this.pin("first"),
    end: () => this.pin("last"),
    pageup: () => this.move(-this.page()),
    pagedown: () => this.move(this.page()),
    "/": () => {
      this.filtering = true;
    },
    "?": () => {
      this.helpScroll = 0;
    },
    escape: () => this.escape(),
    v: (row) => row && this.toggle(row),
    V: () => this.toggleAll(),
    enter: (row) => (row?.task ? this.attach(row.task) : row && this.sayOnTitle("Enter attaches to a task; v on a title selects its section")),
    space: (row) => (row?.task ? this.openPeek(row.task) : row && this.sayOnTitle("Space peeks at a task")),
    n: (row) => this.newCommand(row),
    r: (row) => row && this.rerun(this.targets(row), row),
    R: (row) => (row?.task ? this.rename(row.task) : row && this.sayOnTitle("R renames a task; g sets the group of every task in this section")),
    g: (row) => row && this.regroup(this.targets(row), row),
    m: (row) => row && this.tag(this.targets(row)),
    X: (row) => row && this.killOrRemove(this.targets(row)),
    s: () => {
      this.grouping = GROUPINGS[(GROUPINGS.indexOf(this.grouping) + 1) % GROUPINGS.length]!;
      this.moved.clear();
    },
    w: () => this.save(),
    o: () => this.openSessions(),
    // In foreground mode the supervisor is this process: leaving stops everything, so it asks as Q does.
    q: () => (this.options.foreground ? this.quit() : this.finish("detached")),
    "ctrl-c": () => (this.options.foreground ? this.quit() : this.finish("detached")),
    Q: () => this.quit(),
    L: () => this.recoverLost(),
  };

  private sayOnTitle(text: string): void {
    this.status = { text, error: false };
  }

  private move(by: number): void {
    const rows = this.rows();
    const at = rows.findIndex((r) => r.key === this.currentRow(rows)?.key);
    this.moveTo(at + by, rows);
  }

  private pin(end: "first" | "last"): void {
    this.pinned = end;
    this.currentRow();
  }

  /** A key while `?` shows: the scrolling keys scroll it when it does not fit, any other key closes it. */
  private helpKey(name: string): void {
    const max = helpScrollMax(this.detachKey.name, this.region.columns, helpRows({ notices: this.notices() }, this.region.height - 1), this.options.foreground);
    const by: Partial<Record<KeyId, number>> = { up: -1, k: -1, down: 1, j: 1, pageup: -this.page(), pagedown: this.page(), home: -max, end: max };
    const step = keyEntry(by, name);
    if (max === 0 || step === undefined) this.helpScroll = null;
    else this.helpScroll = Math.min(max, Math.max(0, this.helpScroll! + step));
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
      this.filtering = false;
    } else if (key.name === "enter" || key.name === "tab") this.filtering = false;
    else if (key.name === "backspace") this.filter = [...this.filter].slice(0, -1).join("");
    else if (key.name === "ctrl-u") this.filter = "";
    else if ((key.name === "char" || key.name === "space") && key.text) this.filter += key.text;
    else if (MOVING_KEYS.has(keyName(key))) void keyEntry(this.actions, key)?.(undefined);
    this.draw();
  }

  /** Digits typed for `12⏎`: true when the key was theirs. */
  private jumpKey(key: Key): boolean {
    const typed = this.jump!;
    if (key.name === "char" && /^[0-9]$/.test(key.text!)) this.jump = typed + key.text;
    else if (key.name === "backspace") this.jump = typed.length > 1 ? typed.slice(0, -1) : null;
    else if (key.name === "escape") this.jump = null;
    else if (key.name === "enter") {
      this.jump = null;
      this.jumpTo(Number(typed));
    } else {
      this.jump = null;
      return false;
    }
    return true;
  }

  private jumpTo(id: number): void {
    const task = this.tasks.get(id);
    if (!task) return void (this.status = { text: `no task ${id}`, error: true });
    if (!this.rows().some((r) => r.key === taskKey(id))) {
      this.filter = "";
      this.status = { text: `the filter hid task ${id}: cleared it`, error: false };
    }
    this.cursor = taskKey(id);
  }

  private escape(): void {
    if (this.picked.size > 0) this.picked.clear();
    else this.filter = "";
  }

  // ---- selection ---------------------------------------------------------------------------

  /** `v`: a task in or out of the selection, then the next row (so a run of rows is v v v); a title: its section. */
  private toggle(row: Row): void {
    const ids = row.task ? [row.task.id] : row.section.tasks.map((t) => t.id);
    const all = ids.every((id) => this.picked.has(id));
    for (const id of ids) {
      if (all) this.picked.delete(id);
      else this.picked.add(id);
    }
    if (row.task) this.move(1);
  }

  /** `V`: every task shown selected, or, when they all are, none. */
  private toggleAll(): void {
    const shown = this.rows().flatMap((r) => (r.task ? [r.task.id] : []));
    const all = shown.length > 0 && shown.every((id) => this.picked.has(id));
    this.picked.clear();
    if (!all) for (const id of shown) this.picked.add(id);
  }

  /** What X, r, g and m act on: the selection, else the section under the cursor, else the task (see beyondCursor). */
  private targets(row: Row): TaskInfo[] {
    if (this.picked.size > 0) return [...this.picked].flatMap((id) => this.tasks.get(id) ?? []).sort((a, b) => a.id - b.id);
    return row.task ? [row.task] : row.section.tasks;
  }

  // ---- actions -----------------------------------------------------------------------------

  /** Runs one request and says `done`, or what went wrong, on the status line. */
  private async op(done: string, request: () => Promise<unknown>): Promise<boolean> {
    try {
      await request();
      this.status = { text: done, error: false };
      return true;
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
      return false;
    }
  }

  /** One request per task, all at once; says how many it did and the first thing that went wrong. */
  private async each(tasks: TaskInfo[], done: (n: number) => string, request: (task: TaskInfo) => Promise<unknown>): Promise<void> {
    const results = await Promise.allSettled(tasks.map(request));
    const failed = results.flatMap((r) => (r.status === "rejected" ? [errorMessage(r.reason)] : []));
    const text = [done(tasks.length - failed.length), ...(failed.length ? [`${failed.length} failed: ${failed[0]}`] : [])].join("; ");
    this.status = { text, error: failed.length > 0 };
    if (failed.length === 0) this.picked.clear();
  }

  private openPeek(task: TaskInfo): Promise<void> {
    this.peekWanted = task.id;
    return this.loadPeek(task);
  }

  private closePeek(): void {
    this.peek = null;
    this.peekWanted = null;
  }

  /** The peek's text, when it is opened and again after each event about its task. */
  private async loadPeek(task: TaskInfo): Promise<void> {
    const rows = Math.max(3, this.region.height - 4);
    const { text } = await this.client.request("peek", { task: { id: task.id }, lines: rows });
    if (this.peekWanted !== task.id) return;
    this.peek = { id: task.id, title: `${task.id} ${printable(label(task))}`, text };
    this.draw();
  }

  /** The pager has the terminal until it quits (ui-history-pager.ts), as attached mode would. */
  private async pageHistory(id: number): Promise<void> {
    this.away = true;
    this.keys.suspend();
    try {
      await openHistoryInPager(this.client, id);
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
    } finally {
      this.away = false;
      this.keys.resume();
    }
  }

  /** A line prompt under the list; null when cancelled with Esc. */
  private async ask(message: string, initialValue = ""): Promise<string | null> {
    this.draw(PROMPT_ROWS);
    this.away = true;
    try {
      return await askLine(this.region, this.keys, message, initialValue);
    } finally {
      this.away = false;
    }
  }

  /** `n`: a command in the dashboard's directory; grouped by group, in the group under the cursor (conformance 12.19). */
  private async newCommand(row: Row | undefined): Promise<void> {
    const title = row && this.grouping === "group" ? (row.task ? row.task.group : row.section.title) : null;
    const group = title === NO_GROUP ? null : title;
    const where = `${tildePath(this.here, process.env.HOME)}${group ? ` (group '${printable(group)}')` : ""}`;
    const command = await this.ask(`Run in ${where}`);
    if (command === null || command.trim() === "") return;
    try {
      const { id } = await this.client.request("run", { command, cwd: this.here, ...(group ? { group } : {}) });
      this.cursor = taskKey(id);
      this.status = { text: `started task ${id}`, error: false };
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
    }
  }

  private async rename(task: TaskInfo): Promise<void> {
    const name = await this.ask(`Name for task ${task.id} (empty clears it)`, task.name ?? "");
    if (name === null) return;
    const cleared = name.trim() === "";
    await this.op(cleared ? `task ${task.id} has no name` : `renamed task ${task.id}`, () =>
      this.client.request("rename", { task: { id: task.id }, name: cleared ? null : name }),
    );
  }

  private async regroup(tasks: TaskInfo[], row: Row): Promise<void> {
    if (tasks.length === 0) return;
    const one = tasks.length === 1 ? tasks[0]! : null;
    const groups = new Set(tasks.map((t) => t.group ?? ""));
    // A group's title pre-fills its name, so renaming a whole group is editing one word.
    const initial = groups.size === 1 ? [...groups][0]! : !row.task && this.grouping === "group" && row.section.title !== NO_GROUP ? row.section.title : "";
    const group = await this.ask(`Group for ${one ? `task ${one.id}` : `${tasks.length} tasks`} (empty clears it)`, initial);
    if (group === null) return;
    const cleared = group.trim() === "";
    const request = (task: TaskInfo) => this.client.request("group", { task: { id: task.id }, group: cleared ? null : group });
    if (one) {
      if (await this.op(cleared ? `task ${one.id} has no group` : `task ${one.id} is in group '${printable(group.trim())}'`, () => request(one)))
        this.picked.clear();
      return;
    }
    await this.each(tasks, (n) => (cleared ? `${n} tasks have no group` : `${n} tasks are in group '${printable(group.trim())}'`), request);
  }

  /**
   * `question y/N` on the status line; only `y` says yes. Without a question at all when the config
   * file or FLEETCOM_CONFIRM turns confirmations off.
   */
  private confirm(question: string): Promise<boolean> {
    if (!confirmSetting()) return Promise.resolve(true);
    this.say(`${question} y/N`);
    return new Promise((resolve) => (this.confirming = resolve));
  }

  /** `m`: one task's tag toggled; several tagged, or untagged when they all were. */
  private async tag(tasks: TaskInfo[]): Promise<void> {
    if (tasks.length === 1) {
      const [task] = tasks as [TaskInfo];
      if (
        await this.op(task.tagged ? `task ${task.id} no longer in use` : `task ${task.id} marked in use`, () =>
          this.client.request("tag", { task: { id: task.id } }),
        )
      )
        this.picked.clear();
      return;
    }
    const untag = tasks.every((t) => t.tagged);
    const toggled = tasks.filter((t) => t.tagged === untag);
    await this.each(
      toggled,
      (n) => (untag ? `${n} tasks no longer in use` : `${n} tasks marked in use`),
      (t) => this.client.request("tag", { task: { id: t.id } }),
    );
  }

  /**
   * `r`: the finished ones rerun; running ones are left as they are (one alone is refused by the
   * daemon, as before). A rerun runs the command again (a migration applies twice), so when it
   * reaches beyond the task under the cursor it asks first, as X does.
   */
  private async rerun(tasks: TaskInfo[], row: Row): Promise<void> {
    const finished = tasks.filter((t) => t.state === "exited");
    if (finished.length > 0 && beyondCursor(tasks, row)) {
      const question = finished.length === 1 ? `rerun ${printable(label(finished[0]!))}?` : `rerun ${finished.length} finished tasks?`;
      if (!(await this.confirm(question))) return this.say("nothing rerun");
    }
    if (tasks.length === 1) {
      const [task] = tasks as [TaskInfo];
      if (await this.op(`reran task ${task.id}`, () => this.client.request("rerun", { task: { id: task.id } }))) this.picked.clear();
      return;
    }
    if (finished.length === 0)
      return void (this.status = { text: `none of these ${tasks.length} tasks has finished; only a finished task can be rerun`, error: true });
    const skipped = tasks.length - finished.length;
    await this.each(
      finished,
      (n) => `reran ${n} tasks${skipped ? `; ${skipped} still running, left as they are` : ""}`,
      (t) => this.client.request("rerun", { task: { id: t.id } }),
    );
  }

  /**
   * `X`: running tasks are killed, finished ones removed, in one request each. One key must not end
   * what cannot be brought back: killing running tasks asks first (a finished task goes at once,
   * its recipe is in the snapshots).
   */
  private async killOrRemove(tasks: TaskInfo[]): Promise<void> {
    const running = tasks.filter((t) => t.state === "running").map((t) => ({ id: t.id }));
    const finished = tasks.filter((t) => t.state !== "running").map((t) => ({ id: t.id }));
    if (running.length) {
      const [first] = tasks as [TaskInfo];
      const question =
        tasks.length === 1
          ? `kill ${printable(label(first))}?`
          : `kill ${running.length} running task(s)${finished.length ? ` and remove ${finished.length} finished` : ""}?`;
      if (!(await this.confirm(question))) return this.say(tasks.length === 1 ? `task ${first.id} left running` : "nothing killed");
    }
    if (tasks.length === 1) {
      const [task] = tasks as [TaskInfo];
      if (running.length) this.say(`stopping task ${task.id}…`);
      const done = running.length
        ? await this.op(`killed task ${task.id}`, () => this.client.request("kill", { tasks: running }))
        : await this.op(`removed task ${task.id}`, () => this.client.request("rm", { tasks: finished }));
      if (done) this.picked.clear();
      return;
    }
    if (running.length) this.say(`stopping ${running.length} tasks…`);
    const said: string[] = [];
    try {
      if (running.length) said.push(`killed ${(await this.client.request("kill", { tasks: running })).killed.length} tasks`);
      if (finished.length) said.push(`removed ${(await this.client.request("rm", { tasks: finished })).removed.length} tasks`);
      this.status = { text: said.join(", "), error: false };
      this.picked.clear();
    } catch (error) {
      this.status = { text: [...said, errorMessage(error)].join("; "), error: true };
    }
  }

  private async save(): Promise<void> {
    const name = await this.ask("Save the fleet as session");
    if (name === null || name.trim() === "") return;
    try {
      const { saveFleet } = await import("./client-recipes.ts");
      this.status = { text: await saveFleet(name), error: false };
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
    }
  }

  private async openSessions(): Promise<void> {
    const { describePicked, pickSession } = await import("./ui-picker-sessions.ts");
    this.away = true;
    try {
      const picked = await pickSession({ start: "saved", region: this.region, keys: this.keys, reserve: PROMPT_ROWS });
      if (!picked) return;
      const summary = await describePicked(picked);
      const hint = picked.kind === "recovery" ? `\n${KEEP_HINT}` : "";
      this.status = { text: `${summary}${hint}`, error: false };
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
    } finally {
      this.away = false;
    }
  }

  private async attach(task: TaskInfo): Promise<void> {
    this.away = true;
    this.region.clear();
    this.keys.hold();
    try {
      const outcome = await attachSession({ id: task.id }, { detachKey: this.detachKey, status: this.attachStatus, keepRawMode: true });
      this.attachStatus = outcome.statusShown ?? this.attachStatus;
      // A chord may have moved attached mode to another task: the cursor comes back on that one.
      const last = outcome.kind === "detached" ? outcome.task : outcome.end.task;
      if (last) this.cursor = taskKey(last.id);
      if (outcome.kind === "ended") {
        const { reason, task: ended } = outcome.end;
        const text =
          reason === "exited" ? `task ${ended.id} ${stateText(ended)}` : reason === "removed" ? `task ${ended.id} was removed` : "the daemon stopped";
        this.status = { text, error: reason !== "exited" };
      }
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
    } finally {
      // The task was on the alternate screen: leaving it put back the screen and cursor as they were
      // after region.clear(), so the list draws where it was.
      this.away = false;
      this.keys.resume();
    }
  }

  private async quit(): Promise<void> {
    const running = [...this.tasks.values()].filter((t) => t.state === "running").length;
    if (!(await this.confirm(`stop ${running} task${running === 1 ? "" : "s"} and the daemon?`))) return this.say("nothing stopped");
    this.quitting = true;
    this.status = { text: `stopping ${this.tasks.size} task(s) and the daemon…`, error: false };
    this.draw();
    await this.client.request("shutdown").catch(() => {});
  }
}

/**
 * Whether a key acts on more than the task the user sees under the cursor: a section's title (every
 * task in it) or a selection (of several, or of one elsewhere). A key that cannot be taken back
 * then asks first.
 */
function beyondCursor(tasks: TaskInfo[], row: Row): boolean {
  return !(tasks.length === 1 && row.task?.id === tasks[0]!.id);
}
