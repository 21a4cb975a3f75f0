// `fleetcom bridge` (hidden): what a client on another machine runs here over ssh (client-ssh.ts).
// It is a client of this machine's daemon like any other: it connects through the same checks
// (the runtime directory ours alone, the peer our own uid), starting the daemon detached as
// autostart does, so a dropped ssh connection ends the bridge and never the daemon. Then it relays
// bytes both ways, stdin to the socket and the socket to stdout.
//
// One thing it changes: the hello's environment and directory are this login's, not what the far
// client sent (which sends none): the local environment of the other machine never reaches a task here.
import { defineCommand } from "./cli-define.ts";
import type { ClientSocket } from "./client-socket.ts";
import { encodeControl, FrameKind } from "./wire-framing.ts";

export default defineCommand({
  meta: { name: "bridge", description: "Relay stdin/stdout to this machine's daemon (what `fleetcom --host` runs over ssh)", hidden: true },
  args: {},
  async run() {
    const { openDaemonSocket } = await import("./client.ts");
    relay(await openDaemonSocket());
  },
});

const HEADER = 5;

function relay(socket: ClientSocket): void {
  let head: Uint8Array | null = new Uint8Array(0);
  socket.onData((chunk) => {
    if (!process.stdout.write(chunk)) {
      socket.pause();
      process.stdout.once("drain", () => socket.resume());
    }
  });
  socket.onClose(() => {
    process.stdin.destroy();
    process.stdout.end();
  });
  process.stdin.on("data", (chunk: Buffer) => {
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    if (head === null) return socket.write(bytes);
    head = joined(head, bytes);
    const hello = firstFrame(head);
    if (!hello) return;
    socket.write(withOwnEnvironment(hello.frame));
    socket.write(hello.rest);
    head = null;
  });
  process.stdin.on("end", () => socket.close());
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
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return encodeControl({ ...message, env, cwd: process.cwd() });
}
