// `fleetcom daemon`: the supervisor in the foreground of this process, no dashboard. Autostart runs
// it detached; service managers run it directly.
import { defineCommand } from "citty";
import { logLine } from "./printable.ts";
import { scrollbackSetting } from "./scrollback.ts";
import { startSupervisor } from "./supervisor.ts";

function log(message: string): void {
  process.stderr.write(logLine(message));
}

export default defineCommand({
  meta: { name: "daemon", description: "Run the supervisor in the foreground (what autostart runs)" },
  args: {
    scrollback: { type: "string", description: "Lines of scrollback per task (default 2000, max 100000, 0 off)" },
  },
  async run({ args }) {
    const scrollback = scrollbackSetting(args.scrollback, process.env.FLEETCOM_SCROLLBACK, log);
    const supervisor = await startSupervisor({ scrollback, log });
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
