// `fleetcom daemon`: the supervisor in the foreground of this process, no dashboard. Autostart runs
// it detached; service managers run it directly.
import { defineCommand } from "citty";
import { writeSync } from "node:fs";
import { logLine } from "./text-printable.ts";
import { handshakeTimeoutSetting, historySetting, scrollbackSetting } from "./settings.ts";

// Straight to fd 2, which is the log under autostart: Bun's process.stderr keeps a copy of the fd of
// its own, which would go on writing into a removed log after the daemon opened a new one (daemon-endpoint.ts).
function log(message: string): void {
  try {
    writeSync(2, logLine(message));
  } catch {}
}

export default defineCommand({
  meta: { name: "daemon", description: "Run the supervisor in the foreground (what autostart runs)" },
  args: {
    scrollback: { type: "string", description: "Lines of scrollback per task (default 2000, max 100000, 0 off)" },
  },
  async run({ args }) {
    const scrollback = scrollbackSetting(args.scrollback, process.env.FLEETCOM_SCROLLBACK, log);
    const handshakeTimeoutMs = handshakeTimeoutSetting(process.env.FLEETCOM_HANDSHAKE_TIMEOUT_MS, log);
    const { startSupervisor } = await import("./daemon-supervisor.ts");
    const history = historySetting(process.env.FLEETCOM_HISTORY, log);
    const supervisor = await startSupervisor({ scrollback, history, handshakeTimeoutMs, log });
    if (!supervisor) {
      log("another daemon holds the lock; exiting");
      return;
    }
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => supervisor.daemon.stop());
    await supervisor.stopped;
    log("stopped");
    process.exit(0);
  },
});
