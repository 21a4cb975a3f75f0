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

test.skipIf(!hasProc() || typeof Bun === "undefined")(
  "each task's keys reach its own PTY: tasks started after another's first key, and after PTYs were closed and reused",
  async () => {
    /** Types keys until one goes straight to the PTY (its master found), each echoed by this task. */
    const typeUntilDirect = async (cat: ReturnType<typeof echoingCat>, tag: string) => {
      for (let i = 0; i < 50; i++) {
        const key = `<${tag}${i}>`;
        cat.pty.write(key);
        const direct = cat.pty.pendingInput === 0;
        await cat.waitFor(key);
        if (direct) return;
      }
      throw new Error(`no key to ${tag} went straight to its PTY`);
    };
    const first = echoingCat();
    await first.waitFor("READY");
    await typeUntilDirect(first, "a");
    const second = echoingCat();
    await second.waitFor("READY");
    await typeUntilDirect(second, "b");
    process.kill(first.pty.pid, "SIGKILL");
    await first.pty.exited;
    // Its PTY and descriptor numbers are free for the next task to be given.
    const third = echoingCat();
    await third.waitFor("READY");
    await typeUntilDirect(third, "c");
    await typeUntilDirect(second, "b-again");
    expect(first.output()).not.toMatch(/<[bc]/);
    expect(second.output()).not.toMatch(/<[ac]/);
    expect(third.output()).not.toMatch(/<[ab]/);
  },
);
