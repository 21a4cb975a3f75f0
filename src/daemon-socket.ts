// The daemon's listening socket and its side of each client's connection. Under Bun they are Bun's
// own sockets (Bun.listen): loading node:net and listening through it costs a starting daemon CPU
// before its first reply (docs/benchmarks.md, cold-start), as it does every client
// (client-socket.ts). Under Deno, which has no Bun.listen, they are node:net's. Either way every write
// is sent whole and in order, `queuedBytes` is what the kernel has not taken yet (the flow control
// of daemon-connection.ts), reading can be paused, and the fd is there for the peer check
// (daemon-endpoint.ts).
import type { Server, Socket } from "node:net";
import { runsOnBun, socketFd } from "./platform.ts";

export interface PeerSocket {
  /** The connected socket's fd, for the peer uid check; undefined when the runtime hides it. */
  readonly fd: number | undefined;
  /** Bytes written and not yet taken by the kernel. */
  readonly queuedBytes: number;
  /** Queues what the socket cannot take now; everything is sent, in order. */
  write(bytes: Uint8Array): void;
  /** Closes once everything queued has been sent (and the client, if still sending, has ended too). */
  end(): void;
  /** Closes now; what is queued is dropped. */
  destroy(): void;
  pause(): void;
  resume(): void;
  onData(listener: (chunk: Uint8Array) => void): void;
  /** Called each time the queue has emptied. */
  onDrain(listener: () => void): void;
  /** Called once, when the connection is gone (closed by either side, or an error). */
  onClose(listener: () => void): void;
}

export interface SocketListener {
  /** Stops accepting; the connections made stay open, as node:net's server.close() leaves them. */
  close(): void;
}

/**
 * Listens on the Unix socket at `path` (which must not exist) and hands each connection to `accept`.
 * `sockets` is Bun's own under Bun and node:net's elsewhere; the tests run both under Bun.
 */
export function listenUnix(
  path: string,
  accept: (socket: PeerSocket) => void,
  sockets: "bun" | "node" = runsOnBun() ? "bun" : "node",
): Promise<SocketListener> {
  return sockets === "bun" ? Promise.resolve(listenBun(path, accept)) : listenNode(path, accept);
}

type BunSocket = Bun.Socket<BunPeer | undefined>;

/** How long a client given our FIN may go on sending before its connection is closed under it. */
const END_LINGER_MS = 5_000;

function listenBun(path: string, accept: (socket: PeerSocket) => void): SocketListener {
  const server = Bun.listen<BunPeer | undefined>({
    unix: path,
    socket: {
      open: (socket) => {
        socket.data = new BunPeer(socket);
        accept(socket.data);
      },
      data: (socket, chunk) => socket.data?.received(chunk),
      drain: (socket) => socket.data?.flush(),
      end: (socket) => socket.data?.remoteEnded(),
      close: (socket) => socket.data?.gone(),
      error: (socket) => socket.data?.gone(),
    },
  });
  return { close: () => server.stop(false) };
}

class BunPeer implements PeerSocket {
  private queue: Uint8Array[] = [];
  private queued = 0;
  private ending = false;
  private remoteEnd = false;
  private closed = false;
  private dataListener: (chunk: Uint8Array) => void = () => {};
  private drainListener: () => void = () => {};
  private closeListener: () => void = () => {};

  constructor(private readonly socket: BunSocket) {}

  get fd(): number | undefined {
    const fd = (this.socket as unknown as { fd?: unknown }).fd;
    return typeof fd === "number" ? fd : undefined;
  }

  get queuedBytes(): number {
    return this.queued;
  }

  write(bytes: Uint8Array): void {
    if (this.closed || this.ending) return;
    if (this.queue.length === 0) {
      const sent = this.socket.write(bytes);
      if (sent < 0 || sent >= bytes.length) return;
      bytes = bytes.subarray(sent);
    }
    this.queue.push(bytes);
    this.queued += bytes.length;
  }

  /** The kernel takes more: as much of the queue as it will, then the end asked for or the drain. */
  flush(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const sent = this.socket.write(head);
      if (sent < 0) return;
      if (sent < head.length) {
        this.queue[0] = head.subarray(sent);
        this.queued -= sent;
        return;
      }
      this.queue.shift();
      this.queued -= head.length;
    }
    if (this.ending) this.finish();
    else this.drainListener();
  }

  end(): void {
    if (this.closed || this.ending) return;
    this.ending = true;
    if (this.queue.length === 0) this.finish();
  }

  /**
   * Everything queued has gone. A client still sending gets our FIN and is read (and ignored) until
   * it ends too: closed under its writes, it would get EPIPE before it read what we sent last (a
   * refusal, the reason it was dropped). One that has ended already is closed at once.
   */
  private finish(): void {
    if (this.remoteEnd) return void this.socket.end();
    this.socket.shutdown();
    setTimeout(() => this.destroy(), END_LINGER_MS).unref?.();
  }

  /** The client has stopped sending: what is queued for it still goes, then the connection closes (node:net's server default, allowHalfOpen false). */
  remoteEnded(): void {
    this.remoteEnd = true;
    if (this.ending && this.queue.length === 0) this.socket.end();
    else this.end();
  }

  destroy(): void {
    if (this.closed) return;
    this.socket.terminate();
    this.gone();
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  received(chunk: Uint8Array): void {
    if (!this.closed) this.dataListener(chunk);
  }

  gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.queued = 0;
    this.closeListener();
  }

  onData(listener: (chunk: Uint8Array) => void): void {
    this.dataListener = listener;
  }

  onDrain(listener: () => void): void {
    this.drainListener = listener;
  }

  onClose(listener: () => void): void {
    this.closeListener = listener;
  }
}

async function listenNode(path: string, accept: (socket: PeerSocket) => void): Promise<SocketListener> {
  const { createServer } = await import("node:net");
  const server: Server = createServer((socket) => accept(nodePeer(socket)));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return {
    close: () => {
      try {
        server.close();
      } catch {}
    },
  };
}

function nodePeer(socket: Socket): PeerSocket {
  // An error is a close (onClose); one on a socket nobody listens to must not end the daemon.
  socket.on("error", () => {});
  return {
    fd: socketFd(socket),
    get queuedBytes() {
      return socket.writableLength;
    },
    write: (bytes) => {
      if (!socket.writableEnded && !socket.destroyed) socket.write(bytes);
    },
    // A FIN after what is queued, then reading on until the client ends (node:net's server
    // default, allowHalfOpen false, closes then), as BunPeer.finish does and for the same reason.
    end: () => {
      socket.end();
      setTimeout(() => socket.destroy(), END_LINGER_MS).unref?.();
    },
    destroy: () => void socket.destroy(),
    pause: () => void socket.pause(),
    resume: () => void socket.resume(),
    onData: (listener) => void socket.on("data", listener),
    onDrain: (listener) => void socket.on("drain", listener),
    onClose: (listener) => {
      let called = false;
      const once = () => {
        if (called) return;
        called = true;
        listener();
      };
      socket.on("error", once);
      socket.on("close", once);
    },
  };
}
