// A one-line question under the dashboard or the picker, asked with @clack/prompts (its editing keys,
// Esc to cancel). Clack draws below our block with its own relative moves; a thin output in front of
// stdout counts the rows those moves leave the cursor below where it started, so the block can be
// redrawn in place afterwards with nothing of the prompt left on screen.
import type { KeyInput } from "./ui-keys.ts";
import { printable } from "./text-printable.ts";
import type { Region } from "./ui-render.ts";

/** Follows the cursor's row through what clack writes: newlines, cursor up/down. */
/** Rows kept free under a block while a prompt is open, so the prompt never scrolls the block's top away. */
export const PROMPT_ROWS = 5;

export class RowCounter {
  row = 0;

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}

  get columns(): number {
    return this.out.columns;
  }

  get rows(): number {
    return this.out.rows;
  }

  get isTTY(): boolean {
    return true;
  }

  write(chunk: string | Uint8Array): boolean {
    const text = typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    for (const match of text.matchAll(/\n|\x1b\[(\d*)([AB])/g)) {
      if (match[0] === "\n") this.row += 1;
      else this.row = Math.max(0, this.row + (match[2] === "B" ? 1 : -1) * Number(match[1] || 1));
    }
    return this.out.write(chunk);
  }

  on(event: string, listener: (...args: unknown[]) => void): this {
    this.out.on(event, listener);
    return this;
  }

  off(event: string, listener: (...args: unknown[]) => void): this {
    this.out.off(event, listener);
    return this;
  }
}

/**
 * The answer, or null when the user pressed Esc (or Ctrl-C): nothing happens then. The question and
 * the pre-filled value can hold a session name, a task name or a directory, so both are shown through
 * printable(); a value that had to be escaped is offered as the escaped text, which the user can edit.
 */
export async function askLine(region: Region, keys: KeyInput, message: string, initialValue = ""): Promise<string | null> {
  // Loaded at the first question: a dashboard or picker that asks none never holds clack.
  const { isCancel, text } = await import("@clack/prompts");
  keys.suspend();
  region.openBelow();
  const out = new RowCounter();
  try {
    const answer = await text({
      message: printable(message),
      initialValue: printable(initialValue),
      withGuide: false,
      output: out as unknown as NodeJS.WriteStream,
    });
    return isCancel(answer) ? null : answer;
  } finally {
    region.movedDown(out.row);
    keys.resume();
  }
}
