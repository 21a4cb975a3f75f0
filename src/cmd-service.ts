// `fleetcom service install|uninstall|status`: a systemd user unit (Linux) or a launchd agent (macOS)
// that runs `fleetcom daemon` at login, so the fleet does not depend on which shell autostarted it;
// autostart then finds the daemon the service started. The texts and the steps are in
// client-service-manager.ts; this file only reads the arguments and prints.
import { HERE } from "./client-target.ts";
import { defineCommand } from "citty";
import { existsSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { UserError, usageError } from "./errors.ts";
import { printable } from "./text-printable.ts";
import type { ServiceContext } from "./client-service-manager.ts";

async function context(): Promise<ServiceContext> {
  const [{ selfCommand }, { runningDaemonStatus }, { daemonSettingsFromEnvironment, loadSettings }] = await Promise.all([
    import("./platform.ts"),
    import("./client-running-daemon.ts"),
    import("./settings.ts"),
  ]);
  const status = await runningDaemonStatus(HERE);
  const settings = loadSettings();
  return {
    env: process.env,
    os: process.platform,
    daemon: [...selfCommand(), "daemon"],
    runningPid: status?.pid ?? null,
    uid: process.getuid?.() ?? 0,
    configFile: settings.file,
    fromEnvironment: daemonSettingsFromEnvironment(settings),
  };
}

/** `fleetcom web` on the service's port, from the same fleetcom as the daemon's command. */
function webCommand(daemon: string[], port: number, write: boolean): string[] {
  return [...daemon.slice(0, -1), "web", "--port", String(port), ...(write ? ["--write"] : [])];
}

async function perform(step: (m: typeof import("./client-service-manager.ts"), ctx: ServiceContext) => string[]): Promise<void> {
  const [manager, ctx] = await Promise.all([import("./client-service-manager.ts"), context()]);
  try {
    for (const line of step(manager, ctx)) console.log(printable(line));
  } catch (error) {
    if (error instanceof manager.ServiceError) throw new UserError(error.message);
    throw error;
  }
}

const install = defineCommand({
  meta: { name: "install", description: "Write and enable a systemd user unit (Linux) or launchd agent (macOS) running fleetcom daemon at login" },
  args: {
    web: { type: "boolean", description: "Also keep fleetcom web running beside it, on 127.0.0.1:7681 (docs/web.md)" },
    write: { type: "boolean", description: "With --web: the web view takes --write (the page may type into tasks)" },
  },
  async run({ args }) {
    if (args.write && !args.web) throw usageError("service install: --write goes with --web");
    await perform((m, ctx) =>
      m.installOrUndo(
        args.web ? { ...ctx, web: webCommand(ctx.daemon, m.WEB_PORT, Boolean(args.write)) } : ctx,
        (path, text) => {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, text, { mode: 0o644 });
        },
        (path) => rmSync(path, { force: true }),
      ),
    );
  },
});

const uninstall = defineCommand({
  meta: { name: "uninstall", description: "Disable and remove the unit or agent; a daemon running now keeps running" },
  async run() {
    await perform((m, ctx) =>
      m.uninstallService(ctx, (path) => {
        if (!existsSync(path)) return false;
        unlinkSync(path);
        return true;
      }),
    );
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Whether the unit or agent is installed, enabled and running, and whether lingering is on" },
  async run() {
    await perform((m, ctx) => m.serviceStatus(ctx, existsSync));
  },
});

export default defineCommand({
  meta: { name: "service", description: "Install, remove or inspect the systemd user unit or launchd agent that runs the daemon at login" },
  default: "status",
  subCommands: { install: async () => install, uninstall: async () => uninstall, status: async () => status },
});
