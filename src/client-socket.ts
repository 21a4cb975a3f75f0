// A client's byte stream to the daemon's Unix socket. Under Bun it is Bun's own socket (Bun.connect):
// loading node:net costs every client several times what `ls` itself needs at start-up
// (docs/benchmarks.md, cli-ls and Start-up costs behind the code). Under Deno, which has no Bun.connect, it is node:net. Either way the
// fd is there for the peer check (client.ts), writes never block and are never lost, and reading can
// be paused, which is all DaemonClient needs. The daemon's side is built the same way (daemon-socket.ts).

import { runsOnBun } from "./platform.ts";

export interface ClientSocket {
  /** The connected socket's fd, for the peer uid check; undefined when the runtime hides it. */
  readonly fd: number | undefined;
  /** Queues what the socket cannot take now; everything is sent, in order. */
  write(bytes: Uint8Array): void;
  /** Ends the connection once everything written has been sent; the process does not wait for it. */
  close(): void;
  destroy(): void;
  pause(): void;
  resume(): void;
  onData(listener: (chunk: Uint8Array) => void): void;
  /** Called once, when the connection is gone (closed by either side, or an error). */
  onClose(listener: () => void): void;
}

/** `listener`: the PID of the process that took the connection, once the peer check read it (client-connect.ts connectVerified). */
export type Connected = { socket: ClientSocket; listener?: number };
export type Attempt = Connected | { code: string };

/** Connects to the socket at `path`; a failure is its errno code (ENOENT, ECONNREFUSED, EMFILE, …). */
export function connectClientSocket(path: string): Promise<Attempt> {
  return runsOnBun() ? connectBun(path) : connectNode(path);
}

type BunSocket = Awaited<ReturnType<typeof Bun.connect<undefined>>> & { fd?: number; pause?(): void; resume?(): void };

async function connectBun(path: string): Promise<Attempt> {
  // What arrives before anyone listens is kept for the first listener, as node:net does.
  const early: Uint8Array[] = [];
  let data: (chunk: Uint8Array) => void = (chunk) => void early.push(chunk);
  let closed: (() => void) | null = null;
  let gone = false;
  const queue: Uint8Array[] = [];
  const goneNow = () => {
    if (gone) return;
    gone = true;
    queue.length = 0;
    closed?.();
  };
  let socket: BunSocket;
  try {
    socket = (await Bun.connect({
      unix: path,
      socket: {
        data: (_socket, chunk) => data(chunk),
        drain: (s) => flush(s),
        close: goneNow,
        end: goneNow,
        error: goneNow,
      },
    })) as BunSocket;
  } catch (error) {
    return { code: (error as { code?: string })?.code ?? "EIO" };
  }
  let ending = false;
  const flush = (s: BunSocket) => {
    while (queue.length > 0) {
      const head = queue[0]!;
      const sent = s.write(head);
      if (sent < head.length) {
        queue[0] = head.subarray(Math.max(0, sent));
        return;
      }
      queue.shift();
    }
    if (ending) s.end();
  };
  return {
    socket: {
      fd: typeof socket.fd === "number" ? socket.fd : undefined,
      write: (bytes) => {
        if (gone || ending) return;
        if (queue.length > 0) return void queue.push(bytes);
        const sent = socket.write(bytes);
        if (sent < bytes.length) queue.push(bytes.subarray(Math.max(0, sent)));
      },
      close: () => {
        if (gone || ending) return;
        ending = true;
        if (queue.length === 0) socket.end();
        socket.unref();
      },
      destroy: () => {
        socket.terminate();
        goneNow();
      },
      pause: () => socket.pause?.(),
      resume: () => socket.resume?.(),
      onData: (listener) => {
        data = listener;
        for (const chunk of early.splice(0)) listener(chunk);
      },
      onClose: (listener) => {
        closed = listener;
        if (gone) listener();
      },
    },
  };
}

async function connectNode(path: string): Promise<Attempt> {
  const { connect } = await import("node:net");
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("error", (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? "EIO" }));
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      socket.on("error", () => {});
      let closed = false;
      const closeListeners: (() => void)[] = [];
      socket.on("close", () => {
        closed = true;
        for (const listener of closeListeners) listener();
      });
      const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
      resolve({
        socket: {
          fd: typeof fd === "number" ? fd : undefined,
          write: (bytes) => void socket.write(bytes),
          close: () => {
            socket.end();
            socket.unref();
          },
          destroy: () => socket.destroy(),
          pause: () => socket.pause(),
          resume: () => socket.resume(),
          onData: (listener) => socket.on("data", listener),
          onClose: (listener) => (closed ? listener() : closeListeners.push(listener)),
        },
      });
    });
  });
}
