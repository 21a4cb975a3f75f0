// A y/N question on the terminal for a command line (`fleetcom --kill` with tasks running), the way
// tmux asks `kill-pane? (y/n)`: only when stdin is a terminal and confirmations are on (the config
// file's `confirm`, FLEETCOM_CONFIRM); a script, a pipe or `--yes` is never asked.
import { createInterface } from "node:readline";
import { confirmSetting } from "./settings.ts";

/** Whether a question would be asked at all here. */
export function wouldAsk(): boolean {
  return process.stdin.isTTY === true && confirmSetting();
}

/**
 * `fleetcom: <question> y/N ` on stderr, then one key, as the dashboard and the picker take it: only
 * y says yes; Enter, n, Ctrl-C or anything else says no. Without a terminal to read a key from, one
 * line: y or yes.
 */
export async function askYesNo(question: string): Promise<boolean> {
  process.stderr.write(`fleetcom: ${question} y/N `);
  if (process.stdin.isTTY !== true || typeof process.stdin.setRawMode !== "function") return askLine();
  const stdin = process.stdin;
  stdin.setRawMode(true);
  try {
    const key = await new Promise<string>((resolve) => {
      stdin.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1").charAt(0)));
      stdin.once("end", () => resolve(""));
      stdin.resume();
    });
    const yes = key === "y" || key === "Y";
    process.stderr.write(yes ? "y\n" : "n\n");
    return yes;
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
  }
}

async function askLine(): Promise<boolean> {
  const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  try {
    const answer = await new Promise<string>((resolve) => {
      lines.once("line", resolve);
      lines.once("close", () => resolve(""));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    lines.close();
  }
}

/** Yes when `yes` (the command's --yes) was given or no question would be asked here; else the answer. */
export async function confirmed(question: string, yes: boolean): Promise<boolean> {
  return yes || !wouldAsk() || (await askYesNo(question));
}
