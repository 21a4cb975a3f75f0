// Attached mode: this terminal becomes the task's terminal. Raw input goes to the PTY (Ctrl-C,
// Ctrl-Z and Ctrl-D included); Ctrl-\ detaches. The daemon first sends the task's screen, then
// live output; the terminal's size becomes the PTY's. When another task starts waiting meanwhile, the
// terminal's title says so (attach-notice.ts).
// The task is shown on the terminal's alternate screen, as tmux does: the user's scrollback and
// screen are left as they were, and come back on detach with the cursor where it was. The task's
// own screen switches are kept off that terminal (alt-screen-filter.ts).
import { AltScreenFilter } from "./alt-screen-filter.ts";
import { AttachNotice } from "./attach-notice.ts";
import { DaemonClient, terminalSize } from "./client.ts";
import { EXIT, UserError, usageError } from "./errors.ts";
import type { AttachEnd, TaskInfo } from "./messages.ts";
import { stateText } from "./format.ts";

const DETACH_KEY = 0x1c; // Ctrl-\

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

/** Attaches until the user detaches or the task ends. */
export async function attachSession(ref: string): Promise<AttachOutcome> {
  requireTerminal("attach");
  const size = terminalSize();
  const client = await DaemonClient.open({ size });
  const stdin = process.stdin;
  const stdout = process.stdout;
  let finish!: (outcome: AttachOutcome) => void;
  const done = new Promise<AttachOutcome>((resolve) => (finish = resolve));
  let info: TaskInfo;
  const notice = new AttachNotice((bytes) => stdout.write(bytes));
  const screens = new AltScreenFilter();

  client.handlers = {
    // Stop reading while the terminal is behind, so the daemon sees a slow client and sends a
    // fresh screen later instead of this process buffering the backlog.
    data: (received) => {
      const { bytes, switched } = screens.push(received);
      if (switched) client.request("redraw").catch(() => {});
      const drained = stdout.write(bytes);
      notice.output(bytes);
      if (!drained) {
        client.pause();
        stdout.once("drain", () => client.resume());
      }
    },
    event: (event) => notice.taskChanged(event.task, event.event === "removed"),
    attachEnd: (end) => finish({ kind: "ended", end }),
    closed: () => finish({ kind: "ended", end: { type: "attach-end", reason: "shutdown", task: info } }),
  };
  // Before the request: the task's screen may arrive right behind its reply.
  stdout.write(ENTER_ALT_SCREEN);
  try {
    info = await client.request<TaskInfo>("attach", { task: ref, ...size });
    notice.attached(info.id, await client.request<TaskInfo[]>("subscribe"));
  } catch (error) {
    client.close();
    stdout.write(RESTORE_TERMINAL);
    throw error;
  }

  const onInput = (chunk: Buffer) => {
    const at = chunk.indexOf(DETACH_KEY);
    if (at === -1) return client.sendData(chunk);
    if (at > 0) client.sendData(chunk.subarray(0, at));
    finish({ kind: "detached", task: info });
  };
  const onResize = () => client.request("resize", terminalSize()).catch(() => {});
  stdin.setRawMode(true);
  stdin.on("data", onInput);
  stdin.resume();
  stdout.on("resize", onResize);

  const outcome = await done;
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
    return (await client.request<{ text: string }>("peek", { task: String(task.id) })).text;
  } catch {
    return "";
  }
}

/** `fleetcom attach TASK` and `run --attach`: attach, then say how it ended; returns the exit code. */
export async function attachTo(ref: string): Promise<number> {
  const outcome = await attachSession(ref);
  if (outcome.kind === "detached") {
    process.stdout.write(`[detached from task ${outcome.task.id}]\n`);
    return 0;
  }
  const { reason, task } = outcome.end;
  // The task's screen went with the alternate screen: what it printed last stays in view, as it
  // would have after `ssh host cmd`.
  if (outcome.lastScreen) process.stdout.write(`${outcome.lastScreen}\n`);
  if (reason === "exited") process.stdout.write(`[task ${task.id} ${stateText(task)}]\n`);
  else if (reason === "removed") process.stdout.write(`[task ${task.id} was removed]\n`);
  else throw new UserError("the daemon stopped", EXIT.unreachable);
  return 0;
}
