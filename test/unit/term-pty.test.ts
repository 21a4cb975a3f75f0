// Input to a task's PTY under Bun (term-pty.ts): keystrokes go straight to our own dup of the PTY's
// master once it is found, not a turn of the event loop later through Bun's queue; what the PTY cannot
// take at once still waits in that queue, in order, and a task that does not read never blocks the
// writer. Linux only (the master is found through /proc).
import { afterEach, expect, test } from "bun:test";
import { hasProc } from "../../src/proc.ts";
import { type Pty, spawnPty } from "../../src/term-pty.ts";

const ECHOING_CAT = "stty -icanon -echo; printf READY; exec cat";
const running: Pty[] = [];
afterEach(() => {
  for (const pty of running.splice(0)) {
    try {
      process.kill(pty.pid, "SIGKILL");
    } catch {}
  }
});

/** A task whose output is collected, and a way to wait for a piece of it. */
function echoingCat() {
  let output = "";
  let waiter: { text: string; resolve(): void } | null = null;
  const decoder = new TextDecoder();
  const pty = spawnPty({
    argv: ["/bin/sh", "-c", ECHOING_CAT],
    cwd: "/",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" },
    cols: 80,
    rows: 24,
    onData: (chunk) => {
      output += decoder.decode(chunk, { stream: true });
      if (waiter && output.includes(waiter.text)) {
        const { resolve } = waiter;
        waiter = null;
        resolve();
      }
    },
  });
  running.push(pty);
  const waitFor = (text: string) =>
    new Promise<void>((resolve) => {
      if (output.includes(text)) return resolve();
      waiter = { text, resolve };
    });
  return { pty, waitFor, output: () => output };
}

test.skipIf(!hasProc() || typeof Bun === "undefined")("keystrokes are written at once, and a task that stops reading gets the rest in order", async () => {
  const { pty, waitFor, output } = echoingCat();
  await waitFor("READY");
  // The master is looked for on the first input; from then on a key leaves nothing queued behind it.
  let direct = 0;
  for (let i = 0; i < 50 && direct < 3; i++) {
    const key = `<${i}>`;
    pty.write(key);
    if (pty.pendingInput === 0) direct += 1;
    await waitFor(key);
  }
  expect(direct).toBe(3);

  // Stopped, cat reads nothing: the write returns, the PTY takes what fits, Bun's queue the rest.
  process.kill(pty.pid, "SIGSTOP");
  const flood = `${"0123456789".repeat(20_000)}<END>`;
  pty.write(flood);
  expect(pty.pendingInput).toBeGreaterThan(0);
  process.kill(pty.pid, "SIGCONT");
  await waitFor("<END>");
  expect(output().endsWith(flood)).toBe(true);
});
