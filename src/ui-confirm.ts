// A y/N question on the terminal for a command line (`fleetcom --kill` with tasks running), the way
// tmux asks `kill-pane? (y/n)`: only when stdin is a terminal and confirmations are on (the config
// file's `confirm`, FLEETCOM_CONFIRM); a script, a pipe or `--yes` is never asked.
import { createInterface } from "node:readline";
import { confirmSetting } from "./settings.ts";

/** Whether a question would be asked at all here. */
export function wouldAsk(): boolean {
  return process.stdin.isTTY === true && confirmSetting();
}

/** `fleetcom: <question> y/N ` on stderr, then one line: only y or yes says yes. */
export async function askYesNo(question: string): Promise<boolean> {
  const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  try {
    process.stderr.write(`fleetcom: ${question} y/N `);
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
