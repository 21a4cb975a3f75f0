// What `logs --follow` and `peek --follow` do when whoever reads their output goes (`| head -2`,
// `| grep -m1 ready`): stop, quietly and with status 0, even when the task prints nothing more to
// find out with. A write to the gone reader fails with EPIPE; meanwhile poll(2) tells without a write.
// And how a one-shot `peek` or `logs` prints what it got.
import { readerGone } from "./platform.ts";

/**
 * `text` and a newline, nothing for "". console.log writes natively and whole (a gone reader ends it
 * quietly); process.stdout would first build a node:stream Writable, a share of a one-shot client's CPU.
 */
export function printText(text: string): void {
  if (text.length) console.log(text);
}

/** How often the reader is looked for while nothing is written. */
const READER_CHECK_MS = 200;

/**
 * Calls `gone` once, when stdout's reader has gone (or stdout cannot be written at all, which is
 * said on stderr with status 1). Returns what stops the watch; the process is never kept alive by it.
 */
export function whenReaderGone(gone: () => void): () => void {
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const end = () => {
    if (stopped) return;
    stop();
    gone();
  };
  // Kept after the end: a write still queued fails the same way, and must not print a stack.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && !stopped) {
      process.stderr.write(`fleetcom: cannot write the output (${error.code ?? error.message})\n`);
      process.exitCode = 1;
    }
    end();
  });
  const timer = setInterval(() => void readerGone(1).then((isGone) => isGone && end()), READER_CHECK_MS);
  timer.unref?.();
  return stop;
}
