// The dashboard: the fleet as a live list under the shell's last output, redrawn in place on every
// task event, with one key per action (cli.md, Dashboard). It is a client like any other: it
// subscribes to the daemon's events, and acts through the same ops as the CLI.
import { attachSession } from "./ui-attach.ts";
import { crashNoticeText, DaemonClient } from "./client.ts";
import { join } from "node:path";
import { recoveryDir } from "./paths.ts";
import { errorMessage } from "./errors.ts";
import { label } from "./recipe-labels.ts";
import { age, stateText, tildePath } from "./ui-format.ts";
import { GROUPINGS, dashboardLines, screenOrder, sections, type Grouping, type View } from "./ui-dashboard-view.ts";
import { KeyInput, type Key } from "./ui-keys.ts";
import { printable } from "./text-printable.ts";
import type { CrashNotice, Notices, SnapshotError, TaskEvent, TaskInfo } from "./wire-protocol.ts";
import { askLine } from "./ui-prompt.ts";
import { Region } from "./ui-render.ts";
import { currentDirectory } from "./text-path.ts";
import { confirmSetting } from "./settings.ts";

// Ages and the running/idle glyphs change with time alone; the daemon sends events only for changes.
/** Ages tick; every other change (idle included) arrives as an event. */
const AGE_TICK_MS = 1_000;
// Rows kept free under the block while a prompt is open, so the prompt never scrolls the block's top away.
const PROMPT_ROWS = 5;
const CLEAR_SCREEN = "\x1b[H\x1b[2J";
const KEEP_HINT = "press w (or run fleetcom save NAME) to keep this fleet under a permanent name";

export type DashboardEnd = "detached" | "quit" | "lost";

export interface DashboardOptions {
  foreground?: boolean;
  /** A first status line, e.g. what `fleetcom NAME` loaded. */
  status?: string;
}

export async function runDashboard(options: DashboardOptions = {}): Promise<{ end: DashboardEnd; running: number }> {
  const dashboard = new Dashboard(options);
  try {
    return await dashboard.run();
  } finally {
    dashboard.close();
  }
}

class Dashboard {
  private readonly tasks = new Map<number, TaskInfo>();
  private readonly region = new Region();
  private readonly keys = new KeyInput();
  private grouping: Grouping = "state";
  private selected: number | null = null;
  private status: View["status"];
  private peek: { id: number; title: string; text: string } | null = null;
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

  constructor(private readonly options: DashboardOptions) {
    this.status = options.status ? { text: options.status, error: false } : null;
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
    const tasks = await client.request("subscribe");
    const status = await client.request("status");
    this.tasks.clear();
    for (const task of tasks) this.tasks.set(task.id, task);
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
    this.peek = null;
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
    await this.connect(!this.options.foreground);
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
    return { end, running: [...this.tasks.values()].filter((t) => t.state === "running").length };
  }

  // ---- the fleet ---------------------------------------------------------------------------

  private onEvent(event: TaskEvent): void {
    if (event.event === "removed") this.tasks.delete(event.task.id);
    else this.tasks.set(event.task.id, event.task);
    if (this.peek?.id === event.task.id && event.event !== "removed") void this.loadPeek(event.task);
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

  private ordered(): TaskInfo[] {
    return screenOrder(sections([...this.tasks.values()], this.grouping, process.env.HOME));
  }

  /** The selected task; the selection falls on the first task when its task went away. */
  private current(): TaskInfo | undefined {
    const order = this.ordered();
    const found = order.find((t) => t.id === this.selected) ?? order[0];
    this.selected = found?.id ?? null;
    return found;
  }

  // ---- drawing -----------------------------------------------------------------------------

  private view(): View {
    this.current();
    const peek = this.peek && { title: this.peek.title, text: this.peek.text };
    return {
      tasks: [...this.tasks.values()],
      notices: this.notices(),
      grouping: this.grouping,
      selected: this.selected,
      foreground: !!this.options.foreground,
      status: this.status,
      peek,
      home: process.env.HOME,
      now: Date.now(),
    };
  }

  /** What the lines under the header say: a lost connection, a lost previous fleet, failing snapshots. */
  private notices(): { text: string; error: boolean }[] {
    const now = Date.now();
    const lines: { text: string; error: boolean }[] = [];
    if (this.lost) lines.push({ text: "lost the connection to the daemon — r reconnects (starting a daemon), q leaves", error: true });
    if (this.crash) lines.push({ text: crashNoticeText(this.crash, now, "L recovers it"), error: true });
    if (this.snapshotError) lines.push({ text: `recovery snapshots failing for ${age(this.snapshotError.since, now)}: ${this.snapshotError.message}`, error: true });
    return lines;
  }

  private draw(reserve = 0): void {
    if (this.away) return;
    this.region.draw(dashboardLines(this.view(), this.region.columns, this.region.height - 1 - reserve));
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
    if (this.confirming) {
      const answer = this.confirming;
      this.confirming = null;
      return answer(key.name === "char" && key.text?.toLowerCase() === "y");
    }
    if (this.away || this.quitting) return;
    if (this.peek) {
      this.peek = null;
      return this.draw();
    }
    const name = key.name === "char" ? key.text! : key.name;
    if (this.lost) {
      if (name === "r") await this.reconnect();
      else if (name === "q" || name === "ctrl-c") this.finish("lost");
      return this.draw();
    }
    this.status = null;
    const task = this.current();
    const action = this.actions[name];
    if (action) await action(task);
    else if (name === "x" && task) this.status = { text: "press X (uppercase) to kill or remove a task", error: false };
    this.draw();
  }

  private readonly actions: Record<string, (task: TaskInfo | undefined) => void | Promise<void>> = {
    up: () => this.move(-1),
    k: () => this.move(-1),
    down: () => this.move(1),
    j: () => this.move(1),
    enter: (task) => task && this.attach(task),
    space: (task) => task && this.loadPeek(task),
    n: () => this.newCommand(),
    r: (task) => task && this.op(`reran task ${task.id}`, () => this.client.request("rerun", { task: String(task.id) })),
    R: (task) => task && this.rename(task),
    g: (task) => task && this.regroup(task),
    m: (task) => task && this.op(task.tagged ? `task ${task.id} no longer in use` : `task ${task.id} marked in use`, () => this.client.request("tag", { task: String(task.id) })),
    X: (task) => task && this.killOrRemove(task),
    s: () => {
      this.grouping = GROUPINGS[(GROUPINGS.indexOf(this.grouping) + 1) % GROUPINGS.length]!;
    },
    w: () => this.save(),
    o: () => this.openSessions(),
    q: () => this.finish("detached"),
    "ctrl-c": () => this.finish("detached"),
    Q: () => this.quit(),
    L: () => this.recoverLost(),
  };

  private move(by: number): void {
    const order = this.ordered();
    const at = order.findIndex((t) => t.id === this.selected);
    const next = order[Math.min(order.length - 1, Math.max(0, at + by))];
    if (next) this.selected = next.id;
  }

  /** Runs one request and says `done`, or what went wrong, on the status line. */
  private async op(done: string, request: () => Promise<unknown>): Promise<void> {
    try {
      await request();
      this.status = { text: done, error: false };
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
    }
  }

  private async loadPeek(task: TaskInfo): Promise<void> {
    const rows = Math.max(3, this.region.height - 4);
    const { text } = await this.client.request("peek", { task: String(task.id), lines: rows });
    this.peek = { id: task.id, title: `${task.id} ${printable(label(task))}`, text };
    this.draw();
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

  private async newCommand(): Promise<void> {
    const command = await this.ask(`Run in ${tildePath(currentDirectory(), process.env.HOME)}`);
    if (command === null || command.trim() === "") return;
    try {
      const { id } = await this.client.request("run", { command, cwd: currentDirectory() });
      this.selected = id;
      this.status = { text: `started task ${id}`, error: false };
    } catch (error) {
      this.status = { text: errorMessage(error), error: true };
    }
  }

  private async rename(task: TaskInfo): Promise<void> {
    const name = await this.ask(`Name for task ${task.id} (empty clears it)`, task.name ?? "");
    if (name === null) return;
    const cleared = name.trim() === "";
    await this.op(cleared ? `task ${task.id} has no name` : `renamed task ${task.id}`, () => this.client.request("rename", { task: String(task.id), name: cleared ? null : name }));
  }

  private async regroup(task: TaskInfo): Promise<void> {
    const group = await this.ask(`Group for task ${task.id} (empty clears it)`, task.group ?? "");
    if (group === null) return;
    const cleared = group.trim() === "";
    await this.op(cleared ? `task ${task.id} has no group` : `task ${task.id} is in group '${printable(group.trim())}'`, () => this.client.request("group", {
      task: String(task.id),
      group: cleared ? null : group,
    }));
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

  // One key must not end what cannot be brought back: a running task's process and screen. A
  // finished task goes at once (its recipe is in the snapshots).
  private async killOrRemove(task: TaskInfo): Promise<void> {
    if (task.state === "running") {
      if (!(await this.confirm(`kill ${printable(label(task))}?`))) return this.say(`task ${task.id} left running`);
      this.say(`stopping task ${task.id}…`);
      return this.op(`killed task ${task.id}`, () => this.client.request("kill", { tasks: [String(task.id)] }));
    }
    return this.op(`removed task ${task.id}`, () => this.client.request("rm", { tasks: [String(task.id)] }));
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
    this.keys.suspend();
    try {
      const outcome = await attachSession(String(task.id));
      if (outcome.kind === "ended") {
        const { reason, task: ended } = outcome.end;
        const text = reason === "exited" ? `task ${ended.id} ${stateText(ended)}` : reason === "removed" ? `task ${ended.id} was removed` : "the daemon stopped";
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
