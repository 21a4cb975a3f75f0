// The floor under rss-idle: a Bun program, compiled like fleetcom, that loads what the daemon must
// load whatever it does and then sits idle. `imports validator` loads the socket protocol's schemas
// (wire-protocol.ts) as the daemon does: their checks precompiled at build time (validator.ts), with
// arktype itself left unloaded until a message is refused, and @xterm/headless (each task's screen);
// `imports` loads @xterm/headless alone, so the two lines' difference is what the validator costs. It
// prints "ready" once loaded; bench/memory.ts reads its VmRSS after the same settling time as the
// daemon's.
import { writeSync } from "node:fs";

const loaded: unknown[] = [await import("@xterm/headless")];
if (process.argv[2] === "validator") {
  const protocol = await import("../../src/wire-protocol.ts");
  loaded.push(protocol.hello, protocol.request, protocol.opArgs);
}
writeSync(1, `ready ${loaded.length}\n`);
setInterval(() => {}, 1 << 30);
