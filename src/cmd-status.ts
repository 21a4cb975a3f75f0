// `fleetcom status`: never starts a daemon; "not running" is exit 3.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { crashNoticeText, DaemonClient } from "./client.ts";
import { EXIT, UserError } from "./errors.ts";
import type { DaemonStatus } from "./wire-protocol.ts";
import type { Resolved } from "./settings.ts";
import { runtimeDir, sessionDir, socketPath } from "./paths.ts";
import { printable } from "./text-printable.ts";
import { sizeShown } from "./recipe-log.ts";
import { pushStatusText } from "./ui-format.ts";

export default defineCommand({
  facts: { remote: "there", quick: true, plain: true },
  meta: { name: "status", description: "Daemon pid, version, uptime, socket, directories, task counts" },
  args: { json: { type: "boolean", description: "Print JSON" } },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    let status: DaemonStatus;
    try {
      const client = await DaemonClient.open(target, { autostart: false, notices: false });
      status = await client.request("status");
      client.close();
    } catch (error) {
      if (!(error instanceof UserError) || error.exitCode !== EXIT.unreachable) throw error;
      if (args.json) console.log(JSON.stringify({ running: false, socket: socketPath(), sessionDir: sessionDir() }));
      else console.log("not running");
      process.exitCode = EXIT.unreachable;
      return;
    }
    // Whether the fleet outlives a logout (systemd's lingering, logind's KillUserProcesses): Linux only.
    const { logoutOutlookHere } = await import("./client-service-manager.ts");
    const logout = logoutOutlookHere();
    const full = { ...status, sessionDir: sessionDir(), runtimeDir: runtimeDir(), logout };
    if (args.json) return console.log(JSON.stringify(full, null, 2));
    const uptime = Math.round((Date.now() - Date.parse(status.startedAt)) / 1000);
    console.log(
      [
        `running   pid ${status.pid}, fleetcom ${status.version}, up ${uptime}s`,
        `socket    ${printable(status.socket)}`,
        `sessions  ${printable(full.sessionDir)}`,
        `tasks     ${status.tasks.total} (${status.tasks.running} running)`,
        ...(status.snapshotError ? [`snapshots FAILING since ${status.snapshotError.since}: ${printable(status.snapshotError.message)}`] : []),
        historyLine(status.history, status.settings?.history),
        ...(status.resources ? [samplingLine(status.resources)] : []),
        ...logsLine(status.history),
        ...(status.push ?? []).map((p) => `notify    ${printable(pushStatusText(p))}`),
        ...(status.settings?.problems ?? []).map((problem) => `config    ${printable(problem)}`),
        ...(status.crash ? [`previous  ${printable(crashNoticeText(status.crash))}`] : []),
        ...(logout?.advice ? [`logout    ${printable(logout.advice)}`] : []),
      ].join("\n"),
    );
  },
});

/** Whether tasks' CPU and memory are being sampled (docs/daemon.md): only while a client shows them, or a task has --max-memory. */
function samplingLine(r: DaemonStatus["resources"]): string {
  const who = r.watchers > 0 ? `every 2 s for ${r.watchers} client(s)` : "only for an ls, and for tasks with --max-memory (no client shows them)";
  return `sampling  CPU and memory ${who}; ${r.samples} sample(s) so far`;
}

/** The space the tasks' logs take on disk (docs/logs.md), and the failure that stopped a log's writes. */
function logsLine(history: DaemonStatus["history"] | undefined): string[] {
  // With history off the line above says nothing is kept, logs included.
  if (!history?.enabled || history.logBytes === undefined) return [];
  const kept = `${sizeShown(history.logBytes)} on disk (at most ${sizeShown(history.logMax ?? 0)} per task)`;
  return [history.logError ? `logs      FAILING: ${printable(history.logError)} (${kept})` : `logs      ${kept}`];
}

/** Whether task history is kept on disk (docs/recovery.md, History), and how much has been written. */
function historyLine(history: DaemonStatus["history"] | undefined, setting: Resolved<boolean> | undefined): string {
  if (!history?.enabled) return `history   not kept on disk${setting ? ` (off: ${printable(setting.source)})` : ""}`;
  const kept = `kept on disk: ${history.writes} write(s), ${(history.bytes / 1024).toFixed(1)} KiB`;
  return history.error ? `history   FAILING: ${printable(history.error)} (${kept})` : `history   ${kept}`;
}
