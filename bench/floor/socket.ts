// The floor under rss-dashboard and rss-attach: a Bun program, compiled like fleetcom, that holds one
// socket to the daemon and nothing else: it connects (Bun.connect), sends the hello, reads whatever
// comes and keeps it nowhere. It prints "ready" once the daemon has greeted it; bench/clients.ts
// reads its VmRSS after the same settling time as the clients'. What a client holds above this is
// what the client itself keeps: its modules, its screen, its model of the fleet.
import { writeSync } from "node:fs";
import { encodeControl as control, PROTOCOL_VERSION } from "../../src/wire-framing.ts";

const env: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
let greeted = false;
const socket = await Bun.connect({
  unix: `${process.env.FLEETCOM_RUNTIME_DIR}/default.sock`,
  socket: {
    data(_socket, chunk) {
      if (greeted) return;
      if (new TextDecoder().decode(chunk).includes('"refused"'))
        throw new Error(`the daemon refused the floor: ${new TextDecoder().decode(chunk.subarray(5))}`);
      greeted = true;
      writeSync(1, "ready\n");
    },
    close: () => process.exit(0),
  },
});
socket.write(control({ type: "hello", protocol: PROTOCOL_VERSION, version: "floor", cwd: process.cwd(), env, cols: 120, rows: 40 }));
setInterval(() => {}, 1 << 30);
