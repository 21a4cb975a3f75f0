// The floor under `fleetcom ls`: a Bun program, compiled like fleetcom, that does only what any Bun
// client of the daemon must: connect to its socket (Bun.connect), send the hello and the ls request
// in one write (the same ls request `fleetcom ls` makes), wait for the reply and print how many tasks
// there are. No peer check, no runtime directory check, no table. bench/cli.ts builds it and times it
// beside `fleetcom ls` and `tmux ls`. A refusal (a protocol this daemon does not speak) fails it
// loudly: a floor that is refused measures a handshake, not an ls.
import { writeSync } from "node:fs";
import { encodeControl as control, PROTOCOL_VERSION } from "../../src/wire-framing.ts";

const env: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
let received = new Uint8Array(0);
const socket = await Bun.connect({
  unix: `${process.env.FLEETCOM_RUNTIME_DIR}/default.sock`,
  socket: {
    data(s, chunk) {
      const joined = new Uint8Array(received.length + chunk.length);
      joined.set(received);
      joined.set(chunk, received.length);
      received = joined;
      while (received.length >= 5) {
        const length = new DataView(received.buffer, received.byteOffset).getUint32(0);
        if (received.length < 5 + length) return;
        const message = JSON.parse(new TextDecoder().decode(received.subarray(5, 5 + length)));
        received = received.subarray(5 + length);
        if (message.type === "refused") {
          writeSync(2, `floor-ls: refused: ${message.error}\n`);
          process.exit(1);
        }
        if (message.type === "reply") {
          writeSync(1, `${message.result.length} tasks\n`);
          s.end();
          process.exit(0);
        }
      }
    },
  },
});
const hello = control({ type: "hello", protocol: PROTOCOL_VERSION, version: "floor", cwd: process.cwd(), env, cols: 120, rows: 40 });
const ls = control({ type: "request", id: 1, op: "ls", args: { resources: true } });
const both = new Uint8Array(hello.length + ls.length);
both.set(hello);
both.set(ls, hello.length);
socket.write(both);
