// One file descriptor held back so that a daemon out of them can still say so. At EMFILE the
// listening socket cannot accept: a client's connection waits in the kernel's backlog with no word
// (and Bun's listener retries it on every turn of the loop). So the daemon holds a reserve from the
// start, and once a second (the endpoint's check) looks whether a descriptor can be opened beside
// it. When none can, the reserve is given back: the listener takes the waiting connection with it,
// and the endpoint refuses that connection with this reason and closes it, as the next one behind
// it, until descriptors are free again and the reserve is held again.
import { closeSync, openSync } from "node:fs";

export class FdReserve {
  private fd: number | null = openQuietly();
  private starved = false;

  constructor(private readonly log: (message: string) => void) {}

  /** Out of descriptors: the reserve is given back for the listener; otherwise it is held (again). */
  check(): void {
    this.fd ??= openQuietly();
    const starved = this.fd === null || !canOpen();
    if (starved && this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    if (starved !== this.starved)
      this.log(starved ? "out of file descriptors: new connections are refused, with the reason, until some are free" : "file descriptors are free again");
    this.starved = starved;
  }

  /** Why a connection just accepted is refused: it took the last descriptor, and the daemon has none to serve it with. */
  refusal(): string | null {
    if (!this.starved || canOpen()) return null;
    return `the daemon (pid ${process.pid}) is out of file descriptors (its tasks and clients hold them all): new connections are refused until some are free`;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

function openQuietly(): number | null {
  try {
    return openSync("/dev/null", "r");
  } catch {
    return null;
  }
}

/** Whether one more descriptor can be opened now (anything but EMFILE/ENFILE counts as yes: it is not the limit). */
function canOpen(): boolean {
  try {
    closeSync(openSync("/dev/null", "r"));
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== "EMFILE" && code !== "ENFILE";
  }
}
