// The daemon's side of a connection (daemon-socket.ts) on a real Unix socket: what the flow control of
// daemon-connection.ts relies on. Writes are never lost and keep their order, queuedBytes counts what
// the kernel has not taken, the drain comes once it has, end() sends the queue before closing, and
// a paused socket reads nothing.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenUnix, type PeerSocket, type SocketListener } from "../../src/daemon-socket.ts";
import { until } from "../harness/fleet.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

interface Pair {
  peer: PeerSocket;
  client: Awaited<ReturnType<typeof Bun.connect<undefined>>>;
  received: Uint8Array[];
  clientClosed: () => boolean;
}

/** A listener in a fresh directory and one client connected to it. */
async function pair(sockets: Sockets): Promise<Pair> {
  const dir = mkdtempSync(join(tmpdir(), "fleetcom-socket-"));
  let accepted: PeerSocket | null = null;
  const listener: SocketListener = await listenUnix(join(dir, "s.sock"), (socket) => (accepted = socket), sockets);
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => listener.close(),
  );
  const received: Uint8Array[] = [];
  let closed = false;
  const client = await Bun.connect({
    unix: join(dir, "s.sock"),
    socket: { data: (_s, chunk) => void received.push(new Uint8Array(chunk)), close: () => void (closed = true) },
  });
  cleanups.push(() => client.terminate());
  const peer = await until("the connection accepted", () => accepted ?? undefined);
  return { peer, client, received, clientClosed: () => closed };
}

const total = (chunks: Uint8Array[]) => chunks.reduce((n, c) => n + c.length, 0);

type Sockets = "bun" | "node";

// Bun's own sockets (the daemon under Bun) and node:net's (under Deno), the same promises.
describe.each(["bun", "node"] as const)("%s sockets", (sockets: Sockets) => {
  test("what a client does not read is queued and counted, then sent whole and in order, with a drain", async () => {
    const { peer, client, received } = await pair(sockets);
    let drains = 0;
    peer.onDrain(() => drains++);
    client.pause();
    const chunk = (i: number) => new Uint8Array(64 * 1024).fill(i);
    for (let i = 0; i < 64; i++) peer.write(chunk(i));
    // 4 MiB written to a client that reads nothing: most of it waits here, counted.
    expect(peer.queuedBytes).toBeGreaterThan(1024 * 1024);
    expect(peer.queuedBytes).toBeLessThanOrEqual(64 * 64 * 1024);
    client.resume();
    await until("every byte at the client", () => total(received) === 64 * 64 * 1024);
    expect(peer.queuedBytes).toBe(0);
    expect(drains).toBeGreaterThan(0);
    const bytes = new Uint8Array(total(received));
    let at = 0;
    for (const c of received) {
      bytes.set(c, at);
      at += c.length;
    }
    for (let i = 0; i < 64; i++) expect(bytes[i * 64 * 1024]).toBe(i);
  });

  test("end() sends what is queued before closing", async () => {
    const { peer, client, received, clientClosed } = await pair(sockets);
    client.pause();
    for (let i = 0; i < 32; i++) peer.write(new Uint8Array(64 * 1024).fill(7));
    peer.end();
    peer.write(new Uint8Array([1])); // after end: dropped
    client.resume();
    await until("the client closed", () => clientClosed());
    expect(total(received)).toBe(32 * 64 * 1024);
  });

  test("a client still sending when we end reads what we sent last (a refusal), not EPIPE", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fleetcom-socket-"));
    const path = join(dir, "s.sock");
    const listener = await listenUnix(
      path,
      (socket) => {
        socket.write(new TextEncoder().encode("refused"));
        socket.end();
      },
      sockets,
    );
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => listener.close(),
    );
    const { connect } = await import("node:net");
    const client = connect(path);
    let got = "";
    let error: string | null = null;
    client.on("connect", () => {
      client.write("hello");
      client.write("request");
    });
    client.on("data", (chunk) => void (got += chunk.toString()));
    client.on("error", (e: NodeJS.ErrnoException) => void (error = e.code ?? e.message));
    const closed = new Promise<void>((resolve) => client.on("close", () => resolve()));
    await closed;
    expect({ got, error }).toEqual({ got: "refused", error: null });
  });

  test("a client that ends its side has ours closed too, and onClose called once", async () => {
    const { peer, client, clientClosed } = await pair(sockets);
    let closes = 0;
    peer.onClose(() => closes++);
    client.end();
    // Both ends closed: every event of our side (end, close, an error) has come by then.
    await until("both sides closed", () => closes > 0 && clientClosed());
    expect(closes).toBe(1);
  });

  test("a paused socket reads nothing until resumed", async () => {
    const { peer, client, received } = await pair(sockets);
    const got: Uint8Array[] = [];
    peer.onData((chunk) => void got.push(chunk));
    peer.pause();
    client.write("hello");
    // The bytes are in our socket's queue once the write returns (a Unix socket); bytes sent the
    // other way and read take the event loop past the poll that would have handed them over unpaused.
    peer.write(new TextEncoder().encode("ping"));
    await until("the ping at the client", () => total(received) === 4);
    expect(total(got)).toBe(0);
    peer.resume();
    await until("the bytes after resume", () => total(got) === 5);
  });
});
