// `fleetcom bridge` (hidden): what a client on another machine runs here over ssh (client-ssh.ts).
// It is a client of this machine's daemon like any other: it connects through the same checks
// (the runtime directory ours alone, the peer our own uid), starting the daemon detached as
// autostart does, so a dropped ssh connection ends the bridge and never the daemon. Then it relays
// bytes both ways, stdin to the socket and the socket to stdout.
//
// One thing it changes: the hello's environment and directory are this login's, not what the far
// client sent (which sends none): the local environment of the other machine never reaches a task here.
import { writeSync } from "node:fs";
import { defineCommand } from "./kit-define.ts";
import type { ClientSocket } from "./client-socket.ts";
import { errnoCode } from "./errors.ts";
import { definedEnvironment } from "./paths.ts";
import { runsOnBun } from "./platform.ts";
import { encodeControl, FrameKind } from "./wire-framing.ts";

export default defineCommand({
  facts: { plain: true },
  meta: { name: "bridge", description: "Relay stdin/stdout to this machine's daemon (what `fleetcom --host` runs over ssh)", hidden: true },
  args: {},
  async run() {
    const { openDaemonSocket } = await import("./client-connect.ts");
    relay(await openDaemonSocket());
  },
});

const HEADER = 5;

function relay(socket: ClientSocket): void {
  const out = stdoutWriter(socket);
  socket.onData(out.write);
  socket.onClose(() => out.end(() => process.exit()));
  void (async () => {
    let head: Uint8Array | null = new Uint8Array(0);
    for await (const bytes of stdinChunks()) {
      if (head === null) {
        socket.write(bytes);
        continue;
      }
      head = joined(head, bytes);
      const hello = firstFrame(head);
      if (!hello) continue;
      socket.write(withOwnEnvironment(hello.frame));
      socket.write(hello.rest);
      head = null;
    }
    socket.close();
  })();
}

/**
 * What arrives on stdin. Under Bun its own stream of fd 0: building `process.stdin` loads Node's
 * stream modules, which was most of a bridge's start-up over Bun's own (docs/benchmarks.md, remote-ls).
 */
function stdinChunks(): AsyncIterable<Uint8Array> {
  if (runsOnBun()) return Bun.stdin.stream();
  return process.stdin;
}

/**
 * Writes to fd 1 directly (no `process.stdout`, for the same reason), blocking as a pipe does; a
 * stdout that would block (O_NONBLOCK) goes through `process.stdout` from then on, the socket paused
 * while it drains, so the order of the bytes holds.
 */
function stdoutWriter(socket: ClientSocket): { write(chunk: Uint8Array): void; end(then: () => void): void } {
  let stream: NodeJS.WriteStream | null = null;
  const queue = (chunk: Uint8Array) => {
    if (!stream!.write(chunk)) {
      socket.pause();
      stream!.once("drain", () => socket.resume());
    }
  };
  return {
    write(chunk) {
      if (stream) return queue(chunk);
      let at = 0;
      try {
        while (at < chunk.length) at += writeSync(1, chunk, at);
      } catch (error) {
        if (errnoCode(error) !== "EAGAIN") return socket.close();
        stream = process.stdout;
        queue(chunk.subarray(at));
      }
    },
    end: (then) => (stream ? void stream.end(then) : then()),
  };
}

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The first whole frame of the stream and what follows it, once it is all there. */
function firstFrame(bytes: Uint8Array): { frame: Uint8Array; rest: Uint8Array } | null {
  if (bytes.length < HEADER) return null;
  const length = new DataView(bytes.buffer, bytes.byteOffset, HEADER).getUint32(0);
  if (bytes.length < HEADER + length) return null;
  return { frame: bytes.subarray(0, HEADER + length), rest: bytes.subarray(HEADER + length) };
}

/** The hello with this process's environment and directory; anything else as it came (the daemon refuses it). */
function withOwnEnvironment(frame: Uint8Array): Uint8Array {
  if (frame[4] !== FrameKind.control) return frame;
  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder().decode(frame.subarray(HEADER)));
  } catch {
    return frame;
  }
  if (typeof message !== "object" || message === null || (message as { type?: unknown }).type !== "hello") return frame;
  return encodeControl({ ...message, env: definedEnvironment(), cwd: process.cwd() });
}
