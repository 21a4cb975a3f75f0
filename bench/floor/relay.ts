// The floor under fleetcom's keystroke echo: the same hops as `fleetcom attach` (a client process in
// the user's terminal, a server process holding the PTY, a Unix socket between them), with nothing
// but Bun doing the relaying: no framing, no screen, no bookkeeping. bench/latency.ts builds it and
// types through it beside fleetcom and tmux. bench/remote.ts does the same over ssh, in the shape of
// `fleetcom --host H attach`: a client here, ssh carrying its bytes to a bridge there, the server.
//
//   relay serve SOCKET COMMAND   runs COMMAND in a Bun.Terminal once a client connects, and relays
//   relay attach SOCKET          relays this terminal (raw mode) to the server; Ctrl-\ leaves
//   relay bridge SOCKET          relays its stdin and stdout to the server (run by ssh on the remote)
//   relay attach-through ARGV…   relays this terminal (raw mode) to ARGV's stdin and stdout (ssh)
import { rmSync } from "node:fs";

const [mode, path, command] = process.argv.slice(2);

if (mode === "serve") {
  const clients = new Set<{ write(data: Uint8Array): number }>();
  let task: ReturnType<typeof Bun.spawn> | null = null;
  rmSync(path!, { force: true });
  Bun.listen({
    unix: path!,
    socket: {
      open: (socket) => {
        clients.add(socket);
        task ??= Bun.spawn(["/bin/sh", "-c", command!], {
          terminal: {
            cols: 120,
            rows: 40,
            data: (_t, chunk) => {
              for (const c of clients) c.write(chunk);
            },
          },
        });
      },
      data: (_socket, chunk) => void task?.terminal?.write(chunk),
      close: (socket) => void clients.delete(socket),
    },
  });
} else if (mode === "bridge") {
  const socket = await Bun.connect({
    unix: path!,
    socket: { data: (_s, chunk) => void process.stdout.write(chunk), close: () => process.exit(0) },
  });
  for await (const chunk of Bun.stdin.stream()) socket.write(chunk);
  process.exit(0);
} else if (mode === "attach-through") {
  const carrier = Bun.spawn(process.argv.slice(3), { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  relayKeys((chunk) => {
    carrier.stdin.write(chunk);
    carrier.stdin.flush();
  });
  for await (const chunk of carrier.stdout) process.stdout.write(chunk);
  process.exit(0);
} else if (mode === "attach") {
  const socket = await Bun.connect({
    unix: path!,
    socket: { data: (_s, chunk) => void process.stdout.write(chunk), close: () => process.exit(0) },
  });
  relayKeys((chunk) => void socket.write(chunk));
}

/** This terminal's keys, raw, to `send`; Ctrl-\ leaves. */
function relayKeys(send: (chunk: Buffer) => void): void {
  process.stdin.setRawMode(true);
  process.stdin.on("data", (chunk: Buffer) => {
    if (chunk.includes(0x1c)) process.exit(0);
    send(chunk);
  });
}
