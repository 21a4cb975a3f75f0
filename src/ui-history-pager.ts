// Reading a task's history from attached mode or the dashboard's peek, without a copy mode of our
// own: the history with its colours goes to the user's $PAGER (default `less -R`, opened at the end,
// so `?pattern` searches backwards from the newest line). The pager gets the terminal as a shell
// would give it (cooked mode, no key reader of ours); the caller takes it back when the pager quits.
import { basename } from "node:path";
import type { DaemonClient } from "./client.ts";
import { childProcess } from "./platform.ts";

export const DEFAULT_PAGER = "less -R";

/** The shell command that pages: $PAGER, or less -R; less (however given) starts at the end with +G. */
export function pagerCommand(pager: string | undefined): string {
  const command = pager?.trim() || DEFAULT_PAGER;
  const program = command.split(/\s+/)[0]!;
  return basename(program) === "less" ? `${command} +G` : command;
}

/**
 * Shows task `id`'s history in the pager and resolves when the pager has quit. The terminal must be
 * the pager's meanwhile: nothing of ours reading stdin, raw mode off, the normal screen showing.
 */
export async function openHistoryInPager(client: DaemonClient, id: number): Promise<void> {
  const { text } = await client.request("peek", { task: { id }, history: true, ansi: true });
  await page(`${text.length ? `${text}\n` : ""}${restHint(id)}\n`, pagerCommand(process.env.PAGER));
}

/** The last line of the pager: the history is the scrollback, and where the rest is (docs/logs.md). */
export function restHint(id: number): string {
  return `\x1b[2m── the scrollback only: fleetcom logs ${id} prints all the task printed ──\x1b[0m`;
}

/** `text` in the user's pager, from its top; resolves when the pager has quit. */
export function pageText(text: string): Promise<void> {
  return page(text, process.env.PAGER?.trim() || DEFAULT_PAGER);
}

/** Runs `command` with `text` on its stdin and the terminal as its stdout; a pager quit before reading it all is no error. */
function page(text: string, command: string): Promise<void> {
  return new Promise((resolve) => {
    const child = childProcess().spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "inherit", "inherit"] });
    child.stdin.on("error", () => {}); // EPIPE: the user quit before the end
    child.on("error", () => resolve());
    child.on("close", () => resolve());
    child.stdin.end(text);
  });
}
