// Attached mode: this terminal becomes the task's terminal. Raw input goes to the PTY (Ctrl-C,
// Ctrl-Z and Ctrl-D included); Ctrl-\ detaches, unless a chord key follows it within CHORD_WAIT_MS
// (Ctrl-\ h: the task's history in $PAGER). The daemon first sends the task's screen, then
// live output; the terminal's size becomes the PTY's. When another task starts waiting meanwhile, the
// terminal's title says so (ui-attach-notice.ts).
// The task is shown on the terminal's alternate screen, as tmux does: the user's scrollback and
// screen are left as they were, and come back on detach with the cursor where it was. The task's
// own screen switches are kept off that terminal (ui-alt-screen-filter.ts).
// A finished task shows its last screen with a notice on the last row saying how it ended; `r`
// reruns it and stays attached to the new run.
import { constants } from "node:os";
import { AltScreenFilter } from "./ui-alt-screen-filter.ts";
import { AttachNotice } from "./ui-attach-notice.ts";
import { DaemonClient, terminalSize } from "./client.ts";
import { EXIT, UserError, usageError } from "./errors.ts";
import type { AttachEnd, TaskInfo } from "./wire-protocol.ts";
import { stateText } from "./ui-format.ts";
import { cut } from "./text-width.ts";
import { openHistoryInPager } from "./ui-history-pager.ts";

const DETACH_KEY = 0x1c; // Ctrl-\
const RERUN_KEY = 0x72; // r, on a finished task
/** How long a chord key may take to follow Ctrl-\ before it is a plain detach. */
const CHORD_WAIT_MS = 500;
const HISTORY_KEY = 0x68; // Ctrl-\ h: the history in the pager

const ENTER_ALT_SCREEN = "\x1b[?1049h";
/**
 * Undo what the task may have left switched on in this terminal, so the shell gets it back sane,
 * then leave the alternate screen: the user's screen comes back with the cursor where it was. The
 * scroll region goes first, as setting it homes the cursor.
 */
const RESTORE_TERMINAL =
  "\x1b[r\x1b[0m\x1b[?25h\x1b[?1l\x1b>\x1b[?2004l\x1b[?1004l" +
  "\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l" +
  "\x1b[?1049l";

/** How an attach ended; `lastScreen` is the text an exited task left on its screen. */
export type AttachOutcome = { kind: "detached"; task: TaskInfo } | { kind: "ended"; end: AttachEnd; lastScreen?: string };

export function requireTerminal(what: string): void {
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw usageError(`${what} needs a terminal`);
}

/**
 * What attaching to a task that has already finished does: `show` its last screen with a notice
 * until the user detaches or reruns it (`attach`, the dashboard); `end` at once, as if it had
 * ended while attached (`run --attach` of a command quicker than the attach).
 */
export type WhenFinished = "show" | "end";

/**
 * How a finished task ended, drawn over the last row of its screen by the client alone: the task's
 * screen in the daemon is untouched, and a redraw or a detach takes it away. DECSC/DECRC put the
 * cursor and pen back; a finished task has no output left that could have saved its own.
 */
export function finishedNotice(task: TaskInfo, size: { cols: number; rows: number }): string {
  const text = cut(`[task ${task.id} ${stateText(task)} · r rerun · Ctrl-\\ back]`, size.cols - 1);
  return `\x1b7\x1b[${size.rows};1H\x1b[0;7m\x1b[2K${text}\x1b[0m\x1b8`;
}

/** The exit code a shell would see: the task's own, or 128 + n for a signal, as ssh and docker run report it. */
export function exitCodeOf(task: TaskInfo): number {
  if (task.signal) return 128 + ((constants.signals as Record<string, number>)[task.signal] ?? 0);
  return task.exitCode ?? 1;
}

/** Attaches until the user detaches or the task ends. */
export async function attachSession(ref: string, whenFinished: WhenFinished = "show"): Promise<AttachOutcome> {
  requireTerminal("attach");
  let size = terminalSize();
  const client = await DaemonClient.open({ size });
  const stdin = process.stdin;
  const stdout = process.stdout;
  let finish!: (outcome: AttachOutcome) => void;
  const done = new Promise<AttachOutcome>((resolve) => (finish = resolve));
  let info: TaskInfo;
  /** Set while the attached task has finished and its notice is shown. */
  let finished: TaskInfo | null = null;
  const notice = new AttachNotice((bytes) => stdout.write(bytes));
  const screens = new AltScreenFilter();
  /**
   * Output held since the task switched screens, until the redraw arrives: it is all in that
   * screen, and drawn on the wrong one it would flash. null when not waiting.
   */
  let awaitingRedraw: Uint8Array[] | null = null;
  /** The pager has the terminal (Ctrl-\ h): what arrives meanwhile is not drawn. */
  let paging = false;
  const redraw = () =>
    client.request("redraw").catch(() => {
      // No redraw coming (a daemon without it): show what was held after all.
      if (awaitingRedraw) for (const held of awaitingRedraw.splice(0)) stdout.write(held);
      awaitingRedraw = null;
    });

  client.handlers = {
    // Stop reading while the terminal is behind, so the daemon sees a slow client and sends a
    // fresh screen later instead of this process buffering the backlog.
    data: (received) => {
      const { bytes, switched } = screens.push(received);
      if (paging) return;
      if (switched && !awaitingRedraw) {
        awaitingRedraw = [];
        redraw();
      }
      if (awaitingRedraw) {
        awaitingRedraw.push(bytes);
        return;
      }
      let drained = stdout.write(bytes);
      if (finished) drained = stdout.write(finishedNotice(finished, size)) && drained;
      notice.output(bytes);
      if (!drained) {
        client.pause();
        stdout.once("drain", () => client.resume());
      }
    },
    screen: () => (awaitingRedraw = null),
    event: (event) => notice.taskChanged(event.task, event.event === "removed"),
    attachEnd: (end) => finish({ kind: "ended", end }),
    closed: () => finish({ kind: "ended", end: { type: "attach-end", reason: "shutdown", task: info } }),
  };
  // Before the request: the task's screen may arrive right behind its reply.
  stdout.write(ENTER_ALT_SCREEN);
  try {
    info = await client.request("attach", { task: ref, ...size });
    notice.attached(info.id, await client.request("subscribe"));
    if (info.state === "exited" && whenFinished === "end") finish({ kind: "ended", end: { type: "attach-end", reason: "exited", task: info } });
    else if (info.state === "exited") {
      finished = info;
      stdout.write(finishedNotice(info, size));
    }
  } catch (error) {
    client.close();
    stdout.write(RESTORE_TERMINAL);
    throw error;
  }

  const rerun = async () => {
    finished = null;
    try {
      await client.request("rerun", { task: String(info.id) });
    } catch {
      finished = info; // removed meanwhile, or rerun by someone else: the notice stays
    }
    redraw();
  };
  /**
   * Ctrl-\ h: the task's history in $PAGER (ui-history-pager.ts). The client detaches meanwhile, so
   * the daemon answers the task's terminal queries and sends nothing; when the pager quits it
   * attaches again and the daemon draws the task's screen exactly as it is then.
   */
  let pager: Promise<void> | null = null;
  let over = false;
  void done.then(() => (over = true));
  const pageHistory = async () => {
    paging = true;
    stdin.off("data", onInput);
    stdin.setRawMode(false);
    stdin.pause(); // not a key of the pager's read here
    stdout.write(RESTORE_TERMINAL);
    pager = client.request("detach").then(() => openHistoryInPager(client, String(info.id)));
    await pager.catch(() => {}); // the daemon went away: the session has ended meanwhile
    pager = null;
    if (over) return;
    stdout.write(ENTER_ALT_SCREEN);
    stdin.setRawMode(true);
    stdin.on("data", onInput);
    stdin.resume();
    awaitingRedraw = [];
    paging = false;
    try {
      info = await client.request("attach", { task: String(info.id), ...size });
      // Ended while the pager had the terminal: as if it had ended while attached; rerun meanwhile: keys go to it.
      if (info.state === "exited" && !finished) finish({ kind: "ended", end: { type: "attach-end", reason: "exited", task: info } });
      else if (info.state === "running") finished = null;
    } catch {
      finish({ kind: "ended", end: { type: "attach-end", reason: "removed", task: info } });
    }
  };
  /** What a key right after Ctrl-\ does; anything else detaches. */
  const chords: Record<number, () => void> = {
    [HISTORY_KEY]: () => void pageHistory(),
  };
  let chordTimer: ReturnType<typeof setTimeout> | null = null;
  const chord = (keys: Buffer) => {
    if (chordTimer) clearTimeout(chordTimer);
    chordTimer = null;
    const action = keys.length > 0 ? chords[keys[0]!] : undefined;
    if (action) action();
    else finish({ kind: "detached", task: info });
  };
  const onInput = (chunk: Buffer) => {
    if (chordTimer) return chord(chunk);
    const at = chunk.indexOf(DETACH_KEY);
    if (finished) {
      // Keys do not reach a finished task: only Ctrl-\ (and its chords) and r mean something.
      if (at === -1 && chunk.includes(RERUN_KEY)) void rerun();
      if (at === -1) return;
    } else {
      if (at === -1) return client.sendData(chunk);
      if (at > 0) client.sendData(chunk.subarray(0, at));
    }
    const rest = chunk.subarray(at + 1);
    if (rest.length > 0) return chord(rest);
    chordTimer = setTimeout(() => chord(Buffer.alloc(0)), CHORD_WAIT_MS);
  };
  const onResize = () => {
    size = terminalSize();
    // A running task redraws itself on SIGWINCH; a finished one is redrawn from the daemon.
    client.request("resize", size).then(() => finished && redraw(), () => {});
  };
  stdin.setRawMode(true);
  stdin.on("data", onInput);
  stdin.resume();
  stdout.on("resize", onResize);

  const outcome = await done;
  if (chordTimer) clearTimeout(chordTimer);
  // The pager keeps the terminal until it quits, even if the daemon went away meanwhile.
  await (pager as Promise<void> | null)?.catch(() => {});
  stdin.off("data", onInput);
  stdout.off("resize", onResize);
  stdin.setRawMode(false);
  stdin.pause();
  if (outcome.kind === "ended" && outcome.end.reason === "exited") outcome.lastScreen = await lastScreen(client, outcome.end.task);
  client.close();
  stdout.write(notice.end() + RESTORE_TERMINAL);
  return outcome;
}

/** The text a task left on its screen; "" when it cannot be had. */
async function lastScreen(client: DaemonClient, task: TaskInfo): Promise<string> {
  try {
    return (await client.request("peek", { task: String(task.id) })).text;
  } catch {
    return "";
  }
}

/**
 * `fleetcom attach TASK` and `run --attach`: attach, then say how it ended. Returns the exit code:
 * the task's when it ended while attached, 0 after a detach.
 */
export async function attachTo(ref: string, whenFinished: WhenFinished = "show"): Promise<number> {
  const outcome = await attachSession(ref, whenFinished);
  if (outcome.kind === "detached") {
    process.stdout.write(`[detached from task ${outcome.task.id}]\n`);
    return 0;
  }
  const { reason, task } = outcome.end;
  // The task's screen went with the alternate screen: what it printed last stays in view, as it
  // would have after `ssh host cmd`.
  if (outcome.lastScreen) process.stdout.write(`${outcome.lastScreen}\n`);
  if (reason === "exited") {
    process.stdout.write(`[task ${task.id} ${stateText(task)}]\n`);
    return exitCodeOf(task);
  }
  if (reason === "removed") process.stdout.write(`[task ${task.id} was removed]\n`);
  else throw new UserError("the daemon stopped", EXIT.unreachable);
  return 0;
}
