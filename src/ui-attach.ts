// Attached mode: this terminal becomes the task's terminal. Raw input goes to the PTY (Ctrl-C,
// Ctrl-Z and Ctrl-D included); the detach key (Ctrl-\ unless set otherwise, ui-attach-settings.ts)
// waits for the next key, showing that it waits (the armed marker), and then detaches or does a
// chord: next or previous task, the next waiting one, the history, the status line, the chord list
// (ui-attach-chords.ts; ui-attach-input.ts reads the keys). The daemon first sends the task's
// screen, then live output; the terminal's size becomes the PTY's. When another task starts waiting
// meanwhile, the terminal's title says so (ui-attach-notice.ts).
// What fleetcom draws over the task's screen (the armed marker without a status line, the chord
// list) stops the task's output from being drawn, and a redraw from the daemon, which reproduces the
// screen exactly, takes it away: nothing of the task's screen has to be remembered or saved here.
// The task is shown on the terminal's alternate screen, as tmux does: the user's scrollback and
// screen are left as they were, and come back on detach with the cursor where it was. The task's
// own screen switches are kept off that terminal (ui-attach-screens.ts). A finished task shows its
// last screen and how it ended (ui-attach-marks.ts); `r` reruns it and stays attached to the new run.
import { targetOf, type Target } from "./client-target.ts";
import { AltScreenFilter, RESTORE_TERMINAL } from "./ui-attach-screens.ts";
import { AttachNotice } from "./ui-attach-notice.ts";
import { DaemonClient } from "./client.ts";
import { printText } from "./client-stdout.ts";
import { libcTerminal, nodeTerminal, type Terminal, type TerminalInput, type TerminalOutput } from "./client-tty.ts";
import { isTerminal } from "./files.ts";
import { FleetModel, retryDelay } from "./client-fleet.ts";
import { EXIT, UserError, errorMessage, usageError } from "./errors.ts";
import type { AttachEnd, TaskInfo, TaskRef } from "./wire-protocol.ts";
import { stateText } from "./view-task.ts";
import { TerminalScan } from "./text-scan.ts";
import { openHistoryInPager } from "./ui-history-pager.ts";
import { DEFAULT_DETACH_KEY, type DetachKey } from "./ui-attach-settings.ts";
import { PrefixReader, type AttachInput } from "./ui-attach-input.ts";
import { PartMarker, finishedKey, finishedNotice } from "./ui-attach-marks.ts";
import { exitCodeOf } from "./task-exit.ts";
import { StatusRowGuard, coverBytes, statusRowBytes, statusText, taskRegion } from "./ui-attach-status.ts";
import { type ChordAction, armedText, chordFor, chordListLines } from "./ui-attach-chords.ts";
import { cursorTo, ENTER_ALT_SCREEN, ERASE_LINE, RESET_SCROLL_REGION, RESTORE_CURSOR, SAVE_CURSOR, SGR_RESET } from "./text-ansi.ts";

/** How long a word for the user (`no other task waits`) stays on the status line. */
const STATUS_MESSAGE_MS = 3_000;

/** How an attach ended; `lastScreen` is the text an exited task left on its screen. */
export type AttachOutcome = ({ kind: "detached"; task: TaskInfo } | { kind: "ended"; end: AttachEnd; lastScreen?: string }) & {
  /** Whether the status line showed at the end, for the next attach from the same dashboard. */
  statusShown?: boolean;
};

export function requireTerminal(what: string): void {
  if (!isTerminal(0) || !isTerminal(1)) throw usageError(`${what} needs a terminal`);
}

/**
 * What attaching to a task that has already finished does: `show` its last screen with a notice
 * until the user detaches or reruns it (`attach`, the dashboard); `end` at once, as if it had
 * ended while attached (`run --attach` of a command quicker than the attach).
 */
export type WhenFinished = "show" | "end";

/** Attaching to the first task; `status` starts with the status line (ui-attach-status.ts) shown. */
export interface AttachOptions {
  whenFinished?: WhenFinished;
  detachKey?: DetachKey | undefined;
  status?: boolean | undefined;
  /**
   * Leave the terminal raw on the way out: the dashboard reads keys again at once, and a cooked
   * moment in between would echo a key typed then over its screen.
   */
  keepRawMode?: boolean;
  /** The daemon the task is on: the command's target, or another host's (the dashboard's remote rows). */
  target: Target;
}

/** What each chord does (its keys and its words are in ui-attach-chords.ts). */
const ACTIONS: Record<ChordAction, (session: Attachment) => void | Promise<void>> = {
  detach: (s) => s.detach(),
  next: (s) => s.switchTo(s.neighbour(1), "no other task"),
  previous: (s) => s.switchTo(s.neighbour(-1), "no other task"),
  waiting: (s) => s.switchTo(s.nextWaiting(), "no other task waits"),
  history: (s) => s.pageHistory(),
  status: (s) => s.toggleStatus(),
  help: (s) => s.coverWith("chord list"),
};

/** Attaches until the user detaches or the task ends; chords may move it to other tasks meanwhile. */
export async function attachSession(ref: TaskRef, options: AttachOptions): Promise<AttachOutcome> {
  requireTerminal("attach");
  // The dashboard lends its own stdin, raw already: its streams stay the terminal.
  const terminal = (!options.keepRawMode && (await libcTerminal())) || nodeTerminal();
  const client = await DaemonClient.open(options.target, { size: terminal.size() });
  return new Attachment(client, options, terminal).run(ref);
}

/** One attached terminal: the connection, the task shown (which a chord may change), the screen's state. */
class Attachment {
  // Built when first used: the first attach is asked before stdin is (run).
  private get stdin(): TerminalInput {
    return this.terminal.input;
  }
  private get stdout(): TerminalOutput {
    return this.terminal.output;
  }
  private readonly detachKey: DetachKey;
  private size: { cols: number; rows: number };
  /** The task shown; set once the first attach is answered. */
  info!: TaskInfo;
  /** The fleet as events tell it, for the chords and the status line. */
  private readonly fleet = new FleetModel((event) => this.onEvent(event.task, event.event === "removed"));
  /** Set while the attached task has finished and its notice is shown; `rerunAsked` while it asks `rerun …? y/N`. */
  private finished: TaskInfo | null = null;
  private rerunAsked = false;
  private readonly notice = new AttachNotice((bytes) => this.stdout.write(bytes));
  private readonly screens = new AltScreenFilter();
  /** Where the task's output stream stands, so fleetcom's own bytes go in between sequences. */
  private readonly scan = new TerminalScan();
  /**
   * Output held since the task switched screens (or another task was asked for), until the redraw
   * arrives: it is all in that screen, and drawn on the wrong one it would flash. null when not waiting.
   */
  private awaitingRedraw: Uint8Array[] | null = null;
  /** The task being switched to, while its attach is on its way. */
  private switching: number | null = null;
  private statusShown = false;
  private guard: StatusRowGuard | null = null;
  private statusDrawn: string | null = null;
  private statusMessage: { text: string; timer: ReturnType<typeof setTimeout> } | null = null;
  /** Says when this terminal shows a part of the task's screen, another client having made it bigger (ui-attach-marks.ts). */
  private readonly part = new PartMarker();
  private readonly reader: PrefixReader;
  private readonly onStdin = (chunk: Buffer) => this.reader.push(chunk);
  /** The pager has the terminal (the `h` chord): what the task prints meanwhile is not drawn. */
  private paging = false;
  /** The detach key waits for the next key. */
  private armed = false;
  /** What covers the task's screen until a redraw; the task's output is not drawn meanwhile. */
  private cover: "armed marker" | "chord list" | null = null;
  private over = false;
  private finish!: (outcome: AttachOutcome) => void;

  constructor(
    /** Replaced when a link to another host is made again (reconnect). */
    private client: DaemonClient,
    private readonly options: AttachOptions,
    private readonly terminal: Terminal,
  ) {
    this.detachKey = options.detachKey ?? DEFAULT_DETACH_KEY;
    this.size = terminal.size();
    this.reader = new PrefixReader(this.detachKey.byte, (input) => this.onInput(input));
  }

  private bind(client: DaemonClient): void {
    client.handlers = {
      // Stop reading while the terminal is behind, so the daemon sees a slow client and sends a
      // fresh screen later instead of this process buffering the backlog.
      data: (received) => this.onOutput(received),
      screen: () => (this.awaitingRedraw = null),
      attachEnd: (end) => {
        // The task left behind by a switch may end meanwhile: that is not this session's end.
        if (this.switching === null) this.finish({ kind: "ended", end });
      },
      closed: () => this.onClosed(client),
      ...(client.host && { linkLost: true as const }),
    };
  }

  /**
   * The connection ended. A link to another host that failed (ssh's reason) is made again, with
   * backoff, and the screen restored; the task there never notices. Anything else ends the session.
   */
  private onClosed(client: DaemonClient): void {
    if (client !== this.client || this.reconnecting) return;
    if (client.host && client.lostLink !== null && this.info && !this.over) return void this.reconnect(client.lostLink);
    this.finish({ kind: "ended", end: { type: "attach-end", reason: "shutdown", task: this.info } });
  }

  private reconnecting = false;

  private async reconnect(lost: string): Promise<void> {
    const host = this.client.host!;
    this.reconnecting = true;
    for (let attempt = 0; !this.over; attempt++) {
      const delay = retryDelay(attempt);
      this.say(`${lost} · retrying in ${Math.ceil(delay / 1000)} s`, delay);
      await new Promise((r) => setTimeout(r, delay));
      if (this.over) break;
      let client: DaemonClient | null = null;
      try {
        client = await DaemonClient.open(targetOf(host), { size: this.ptySize, notices: false });
        // Detached meanwhile: the session has closed its connection already, and this one is not needed.
        if (this.over) {
          client.close();
          break;
        }
        this.client = client;
        this.bind(client);
        this.awaitingRedraw = [];
        this.info = await client.request("attach", { task: { id: this.info.id }, ...this.ptySize });
        await this.fleet.follow(client);
        this.reconnecting = false;
        this.say(`reconnected to ${host.name}`);
        // Ended while the link was down: as if it had ended while attached.
        if (this.info.state === "exited" && !this.finished) this.finish({ kind: "ended", end: { type: "attach-end", reason: "exited", task: this.info } });
        return;
      } catch (error) {
        client?.destroy();
        lost = client?.lostLink ?? errorMessage(error);
      }
    }
    this.reconnecting = false;
  }

  /** The task's size: the terminal's, less the status line's row while it shows. */
  private get ptySize(): { cols: number; rows: number } {
    return { cols: this.size.cols, rows: this.statusShown ? Math.max(1, this.size.rows - 1) : this.size.rows };
  }

  async run(ref: TaskRef): Promise<AttachOutcome> {
    const { client } = this;
    const done = new Promise<AttachOutcome>((resolve) => (this.finish = resolve));
    void done.then(() => (this.over = true));
    this.bind(client);
    this.statusShown = this.options.status === true;
    // Asked before this terminal's input is built (node:tty's stream, a share of the start), so the
    // daemon takes the screen meanwhile. Nothing it sends is read before the await below, by when the
    // terminal is raw and on its alternate screen.
    const attached = client.request("attach", { task: ref, ...this.ptySize });
    const { stdin, stdout } = this;
    // Raw before anything is drawn: a key typed once the task's screen shows is a key (Ctrl-\ a
    // detach, read when the listener below starts), never a signal from a terminal still cooked.
    stdin.setRawMode(true);
    // Before the reply is read: the task's screen arrives right behind it.
    stdout.write(ENTER_ALT_SCREEN);
    try {
      if (this.statusShown) this.showStatusRegion();
      this.info = await attached;
      const attachedId = this.info.id;
      // In the reply's turn, not after the await: an event right behind the reply must find the notice ready for it.
      await this.fleet.follow(client, (tasks) => this.notice.attached(attachedId, tasks));
      if (this.info.state === "exited" && this.options.whenFinished === "end") {
        this.finish({ kind: "ended", end: { type: "attach-end", reason: "exited", task: this.info } });
      } else if (this.info.state === "exited") {
        this.finished = this.info;
        stdout.write(finishedNotice(this.info, this.ptySize, this.detachKey.name));
      }
      this.drawStatus();
    } catch (error) {
      client.close();
      if (!this.options.keepRawMode) stdin.setRawMode(false);
      stdout.write(RESTORE_TERMINAL);
      throw error;
    }

    const onResize = () => this.onResize();
    stdin.on("data", this.onStdin);
    stdin.resume();
    stdout.on("resize", onResize);

    const outcome = await done;
    this.reader.dispose();
    if (this.statusMessage) clearTimeout(this.statusMessage.timer);
    stdin.off("data", this.onStdin);
    stdout.off("resize", onResize);
    if (!this.options.keepRawMode) stdin.setRawMode(false);
    stdin.pause();
    // The connection now: a reconnect may have replaced the first.
    if (outcome.kind === "ended" && outcome.end.reason === "exited") outcome.lastScreen = await lastScreen(this.client, outcome.end.task);
    this.client.close();
    stdout.write(this.notice.end() + RESTORE_TERMINAL);
    outcome.statusShown = this.statusShown;
    return outcome;
  }

  // ---- the task's output ---------------------------------------------------------------------

  private onOutput(received: Uint8Array): void {
    const { bytes, switched } = this.screens.push(received);
    if (this.paging || this.cover) return;
    if (switched && !this.awaitingRedraw) {
      this.awaitingRedraw = [];
      this.redraw();
    }
    if (this.awaitingRedraw) {
      this.awaitingRedraw.push(bytes);
      return;
    }
    this.write(bytes);
  }

  private write(bytes: Uint8Array): void {
    let shown = bytes;
    if (this.guard) {
      const guarded = this.guard.push(bytes, this.ptySize.rows);
      shown = guarded.bytes;
      if (guarded.erased) this.statusDrawn = null;
    } else shown = this.part.follow(bytes, this.ptySize.rows);
    let drained = this.stdout.write(shown);
    this.scan.push(shown);
    if (this.finished) drained = this.stdout.write(finishedNotice(this.finished, this.ptySize, this.detachKey.name, this.rerunAsked)) && drained;
    else if (!this.guard) drained = this.stdout.write(this.part.bytes(this.size.rows, this.size.cols, this.scan.atBoundary)) && drained;
    this.notice.output(shown);
    this.drawStatus();
    if (!drained) {
      this.client.pause();
      this.stdout.once("drain", () => this.client.resume());
    }
  }

  private redraw(): void {
    this.client.request("redraw").catch(() => {
      // No redraw coming (a daemon without it): show what was held after all.
      const held = this.awaitingRedraw ?? [];
      this.awaitingRedraw = null;
      for (const bytes of held) this.write(bytes);
    });
  }

  /** A task event, the fleet already updated. */
  private onEvent(task: TaskInfo, removed: boolean): void {
    if (this.info && task.id === this.info.id && !removed) this.sized((this.info = task));
    this.notice.taskChanged(task, removed);
    this.drawStatus();
  }

  /** Another client made the task bigger than this terminal, or it fits again: the marker (or the status line) says so at once. */
  private sized(task: TaskInfo): void {
    if (!this.part.update(task, this.ptySize)) return;
    this.statusDrawn = null;
    // It fits again: the task's screen comes back without the marker.
    if (this.part.text() === null) return void (this.cover === null && this.awaitingRedraw === null && this.uncover());
    if (!this.guard && !this.finished) this.stdout.write(this.part.bytes(this.size.rows, this.size.cols, this.scan.atBoundary));
  }

  private onResize(): void {
    this.size = this.terminal.size();
    if (this.cover) this.coverWith(this.cover);
    if (this.statusShown) {
      this.stdout.write(taskRegion(this.size.rows));
      this.statusDrawn = null;
    }
    // A running task redraws itself on SIGWINCH; a finished one is redrawn from the daemon, and so
    // is any task once the scroll region (which homes the cursor) was set again.
    this.client.request("resize", this.ptySize).then(
      () => (this.finished || this.statusShown) && this.redraw(),
      () => {},
    );
  }

  // ---- keys ----------------------------------------------------------------------------------

  private onInput(input: AttachInput): void {
    // Any key closes the chord list and goes nowhere else; the detach key arms as ever.
    if (this.cover === "chord list" && input.kind !== "armed") return this.uncover();
    switch (input.kind) {
      case "armed":
        return this.arm();
      case "twice":
        this.chord(null);
        return this.type(Uint8Array.of(this.detachKey.byte));
      case "chord":
        return this.chord(input.key === null ? null : (chordFor(input.key)?.action ?? "detach"));
      case "send":
        return this.type(input.bytes);
    }
  }

  /** Keys for the task; a finished one takes none but r (finishedKey). */
  private type(bytes: Uint8Array): void {
    if (this.finished) return void this.finishedKey(this.finished, bytes);
    if (this.switching === null) this.client.sendData(bytes);
  }

  /** The detach key waits for the next key: the status line says so, or a marker over the last row. */
  private arm(): void {
    this.armed = true;
    if (this.statusShown && this.cover === null) this.drawStatus();
    else this.coverWith("armed marker");
  }

  /** The key after the detach key: a chord's action, or null (stay attached). */
  private chord(action: ChordAction | null): void {
    const covered = this.cover !== null;
    this.armed = false;
    this.cover = null;
    if (action === "detach") return this.detach();
    if (action) void Promise.resolve(ACTIONS[action](this)).catch((error) => this.say(errorMessage(error)));
    // What the marker covered comes back with a redraw, unless the chord brings one itself (a
    // switch, the status line, the pager) or covers the screen again (the chord list).
    if (covered && this.cover === null && this.awaitingRedraw === null && !this.paging) this.uncover();
    else this.drawStatus();
  }

  /** Draws `what` over the last rows; the task's output waits for the redraw that takes it away. */
  coverWith(what: "armed marker" | "chord list"): void {
    this.cover = what;
    const lines = what === "armed marker" ? [armedText(this.detachKey.name)] : chordListLines(this.detachKey.name);
    const bytes = coverBytes(lines, this.size.rows, this.size.cols, !this.scan.atBoundary);
    this.stdout.write(bytes);
    this.scan.push(new TextEncoder().encode(bytes));
  }

  /** The task's screen back as it is now, over whatever covered it. */
  private uncover(): void {
    this.cover = null;
    this.statusDrawn = null;
    this.awaitingRedraw = [];
    this.redraw();
  }

  detach(): void {
    this.finish({ kind: "detached", task: this.info });
  }

  /**
   * The task's whole history in $PAGER (ui-history-pager.ts), which gets the terminal as a shell
   * would give it. Meanwhile the client is detached, so the daemon answers the task's terminal queries
   * and sends nothing; when the pager quits it attaches again and the daemon draws the screen exactly.
   */
  async pageHistory(): Promise<void> {
    const { stdin, stdout, client } = this;
    this.paging = true;
    stdin.off("data", this.onStdin);
    stdin.setRawMode(false);
    stdin.pause();
    stdout.write(RESTORE_TERMINAL);
    try {
      await client.request("detach");
      await openHistoryInPager(client, this.info.id);
    } catch {
      // the daemon went away: the session ends through `closed`
    }
    if (this.over) return;
    stdin.setRawMode(true);
    stdout.write(ENTER_ALT_SCREEN);
    if (this.statusShown) this.showStatusRegion();
    stdin.on("data", this.onStdin);
    stdin.resume();
    this.awaitingRedraw = [];
    this.paging = false;
    try {
      this.info = await client.request("attach", { task: { id: this.info.id }, ...this.ptySize });
      // Ended while the pager had the terminal: as if it had ended while attached; rerun meanwhile: keys go to it.
      if (this.info.state === "exited" && !this.finished) this.finish({ kind: "ended", end: { type: "attach-end", reason: "exited", task: this.info } });
      else if (this.info.state === "running") this.finished = null;
    } catch {
      this.finish({ kind: "ended", end: { type: "attach-end", reason: "removed", task: this.info } });
    }
    this.statusDrawn = null;
    this.drawStatus();
  }

  /** `r` on a finished task: a one-off asks y/N first (finishedKey). */
  private async finishedKey(task: TaskInfo, bytes: Uint8Array): Promise<void> {
    const confirm = !task.loaded && (await import("./settings.ts")).confirmSetting();
    const said = finishedKey(bytes, task, this.rerunAsked, confirm);
    this.rerunAsked = said === "ask";
    if (said === "rerun") return this.rerun();
    if (said !== "none" && this.finished === task) this.stdout.write(finishedNotice(task, this.ptySize, this.detachKey.name, this.rerunAsked));
  }

  private async rerun(): Promise<void> {
    this.finished = null;
    try {
      await this.client.request("rerun", { task: { id: this.info.id } });
    } catch {
      this.finished = this.info; // removed meanwhile, or rerun by someone else: the notice stays
    }
    this.redraw();
  }

  // ---- other tasks ---------------------------------------------------------------------------

  /** The next (1) or previous (-1) task by id, round the fleet. */
  neighbour(step: 1 | -1): TaskInfo | undefined {
    const ids = [...this.fleet.tasks.keys()].sort((a, b) => a - b);
    if (ids.length < 2) return undefined;
    const at = ids.indexOf(this.info.id);
    const next =
      at === -1 ? (step === 1 ? (ids.find((id) => id > this.info.id) ?? ids[0]!) : ids[ids.length - 1]!) : ids[(at + step + ids.length) % ids.length]!;
    return this.fleet.tasks.get(next);
  }

  /** The next task after this one (by id, round the fleet) that waits for its user. */
  nextWaiting(): TaskInfo | undefined {
    const waiting = [...this.fleet.tasks.values()].filter((t) => t.attention && t.id !== this.info.id).sort((a, b) => a.id - b.id);
    return waiting.find((t) => t.id > this.info.id) ?? waiting[0];
  }

  /** Shows `target` in this terminal instead: its screen, its input, its size. */
  async switchTo(target: TaskInfo | undefined, none: string): Promise<void> {
    if (!target || target.id === this.info.id || this.switching !== null) return this.say(none);
    this.switching = target.id;
    this.awaitingRedraw = [];
    const left = this.finished;
    this.finished = null;
    this.rerunAsked = false;
    try {
      this.info = await this.client.request("attach", { task: { id: target.id }, ...this.ptySize });
      this.finished = this.info.state === "exited" ? this.info : null;
    } catch (error) {
      // Still attached to the task left (the daemon attaches nothing else on a refusal): show it again.
      this.finished = left;
      this.redraw();
      this.say(errorMessage(error));
    } finally {
      this.switching = null;
    }
    this.notice.switched(this.info.id, [...this.fleet.tasks.values()]);
    this.statusDrawn = null;
    this.drawStatus();
  }

  // ---- the status line -----------------------------------------------------------------------

  toggleStatus(): void {
    this.statusShown = !this.statusShown;
    if (this.statusShown) this.showStatusRegion();
    else {
      this.guard = null;
      this.statusDrawn = null;
      this.stdout.write(`${SAVE_CURSOR}${cursorTo(this.size.rows)}${SGR_RESET}${ERASE_LINE}${RESTORE_CURSOR}${RESET_SCROLL_REGION}`);
    }
    // Setting or clearing the region homed the cursor; the task's screen comes back at its new size.
    this.awaitingRedraw = [];
    this.client.request("resize", this.ptySize).then(
      () => this.redraw(),
      () => {},
    );
  }

  private showStatusRegion(): void {
    this.guard = new StatusRowGuard();
    this.statusDrawn = null;
    this.stdout.write(taskRegion(this.size.rows));
  }

  /** Draws the status line when it shows, has changed or was erased, and may be drawn now. */
  private drawStatus(): void {
    if (!this.statusShown || !this.info || this.cover || this.awaitingRedraw || !this.scan.atBoundary || this.guard?.savedCursor) return;
    const waiting = [...this.fleet.tasks.values()].filter((t) => t.attention && t.id !== this.info.id).length;
    const text = statusText(this.info, waiting, this.detachKey.name, this.statusMessage?.text ?? this.part.text(), this.armed);
    if (text === this.statusDrawn) return;
    this.stdout.write(statusRowBytes(text, this.size.rows, this.size.cols));
    this.statusDrawn = text;
  }

  /** A word for the user: on the status line for a few seconds, else the terminal's bell. */
  private say(text: string, forMs = STATUS_MESSAGE_MS): void {
    if (!this.statusShown) {
      if (this.scan.atBoundary) this.stdout.write("\x07");
      return;
    }
    if (this.statusMessage) clearTimeout(this.statusMessage.timer);
    const timer = setTimeout(() => {
      this.statusMessage = null;
      this.drawStatus();
    }, forMs);
    this.statusMessage = { text, timer };
    this.drawStatus();
  }
}

/** The text a task left on its screen; "" when it cannot be had. */
async function lastScreen(client: DaemonClient, task: TaskInfo): Promise<string> {
  try {
    return (await client.request("peek", { task: { id: task.id } })).text;
  } catch {
    return "";
  }
}

/**
 * `fleetcom attach TASK` and `run --attach`: attach, then say how it ended (through console.log:
 * process.stdout would load node:tty and node's streams, ~1.6 ms, for a line). Returns the exit code:
 * the task's when it ended while attached, 0 after a detach.
 */
export async function attachTo(ref: TaskRef, options: AttachOptions): Promise<number> {
  const outcome = await attachSession(ref, options);
  if (outcome.kind === "detached") {
    printText(`[detached from task ${outcome.task.id}]`);
    return 0;
  }
  const { reason, task } = outcome.end;
  // The task's screen went with the alternate screen: what it printed last stays in view, as it
  // would have after `ssh host cmd`.
  if (outcome.lastScreen) printText(outcome.lastScreen);
  if (reason === "exited") {
    printText(`[task ${task.id} ${stateText(task)}]`);
    return exitCodeOf(task);
  }
  if (reason === "removed") printText(`[task ${task.id} was removed]`);
  else throw new UserError("the daemon stopped", EXIT.unreachable);
  return 0;
}
