// How many connections a client process opens to one host at once. Where no forward of the host's
// daemon socket exists yet (first use, after ControlPersist ends, a server that forbids forwarding),
// every connection is an ssh here and a bridge there: a web page's burst of views, or `logs -f` of a
// whole group, would start them all at once. Opens wait here for a slot, in the order asked, and one
// no longer wanted by then is not made at all.

/** Connections being opened to one host at once, whatever asks for them. */
export const OPENS_PER_HOST = 4;

/** The open was not made: its page asked for another screen (or closed) while it waited for a slot. */
export class Overtaken extends Error {
  constructor() {
    super("overtaken by a later view");
  }
}

export class OpenSlots {
  private readonly busy = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit = OPENS_PER_HOST) {}

  /** `open` once a slot for `host` is free and unless `stale()` says it is no longer wanted; the slot is held until it settles. */
  async run<T>(host: string, stale: () => boolean, open: () => Promise<T>): Promise<T> {
    await this.acquire(host);
    try {
      if (stale()) throw new Overtaken();
      return await open();
    } finally {
      this.release(host);
    }
  }

  /** How many opens to `host` are being made now. */
  inFlight(host: string): number {
    return this.busy.get(host) ?? 0;
  }

  private acquire(host: string): Promise<void> {
    const busy = this.busy.get(host) ?? 0;
    if (busy < this.limit) {
      this.busy.set(host, busy + 1);
      return Promise.resolve();
    }
    // The slot is handed over by release(), so the count stays at the limit meanwhile.
    return new Promise((resolve) => {
      const queue = this.waiting.get(host) ?? [];
      queue.push(resolve);
      this.waiting.set(host, queue);
    });
  }

  private release(host: string): void {
    const queue = this.waiting.get(host);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(host);
    if (next) return next();
    const busy = (this.busy.get(host) ?? 1) - 1;
    if (busy === 0) this.busy.delete(host);
    else this.busy.set(host, busy);
  }
}
