// `fleetcom recover [--latest|--list|FILE] [--dry-run] [--json]`: the recovery snapshots the daemon
// wrote by itself. A snapshot loads exactly like a session; afterwards the user is told how to keep
// the recovered fleet under a permanent name, since the next prune may delete the snapshot.
import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { age, SAVE_HINT, snapshotListRow } from "./ui-format.ts";
import { EXIT, usageError, UserError } from "./errors.ts";
import type { DaemonStatus } from "./wire-protocol.ts";
import { printable } from "./text-printable.ts";
import { recoveryDir } from "./paths.ts";
import { snapshotFileName } from "./recipe-snapshot-rules.ts";
import type { SnapshotInfo } from "./recipe-snapshots.ts";

export default defineCommand({
  meta: { name: "recover", description: "List or load the recovery snapshots the daemon writes by itself" },
  args: {
    file: { type: "positional", required: false, description: "A snapshot file to load" },
    latest: { type: "boolean", description: "Load the newest loadable snapshot" },
    list: { type: "boolean", description: "List snapshots, newest first" },
    "dry-run": { type: "boolean", description: "Print what would start; needs no daemon" },
    json: { type: "boolean", description: "Print JSON (the list, the dry run, or the load summary)" },
  },
  async run({ args }) {
    const [{ latestSnapshot, listSnapshots, snapshotByPath }, { loadAndDescribe, printDryRun }] = await Promise.all([
      import("./recipe-snapshots.ts"),
      import("./client-recipes.ts"),
    ]);
    const chosen = [args.latest, args.list, args.file !== undefined].filter(Boolean).length;
    if (chosen === 0) {
      if (args["dry-run"]) throw usageError("recover: --dry-run goes with --latest or FILE");
      const { pickAndLoad } = await import("./ui-picker-sessions.ts");
      return pickAndLoad("recovery", args.json);
    }
    if (chosen > 1) throw usageError("recover: give only one of --latest, --list and FILE");
    if (args.list) {
      if (args["dry-run"]) throw usageError("recover: --dry-run goes with --latest or FILE");
      return printList(listSnapshots(), await runningDaemonWarning(), args.json);
    }
    const recipe = args.latest ? latestSnapshot(await runningDaemonSnapshot()) : snapshotByPath(args.file!);
    if (args["dry-run"]) return printDryRun(recipe, args.json);
    console.log(await loadAndDescribe(recipe, args.json));
    if (!args.json) console.log(SAVE_HINT);
  },
});

function printList(snapshots: SnapshotInfo[], warning: string | null, json = false): void {
  if (json) return console.log(JSON.stringify({ dir: recoveryDir(), snapshots, warning }));
  if (warning) process.stderr.write(`fleetcom: warning: ${warning}\n`);
  if (snapshots.length === 0) return console.log(`no recovery snapshots (in ${printable(recoveryDir())})`);
  console.log(snapshots.map((s) => snapshotListRow(s)).join("\n"));
}

// The running daemon knows whether its fleet changed since its last good snapshot; no daemon, no word.
async function runningDaemonWarning(now = Date.now()): Promise<string | null> {
  const status = await runningDaemonStatus();
  const error = status?.snapshotError;
  if (!error) return null;
  const changed = status.snapshotPendingSince ? `changed ${age(status.snapshotPendingSince, now)} ago and ` : "";
  return `the running daemon's fleet ${changed}is newer than every snapshot listed: writing snapshots has failed for ${age(error.since, now)} (${printable(error.message)})`;
}

async function runningDaemonStatus(): Promise<DaemonStatus | null> {
  try {
    return await withDaemon((c) => c.request("status"), { autostart: false });
  } catch (error) {
    if (error instanceof UserError && error.exitCode === EXIT.unreachable) return null;
    throw error;
  }
}

// The file name the running daemon writes its snapshots to; null when no daemon is running.
async function runningDaemonSnapshot(): Promise<string | null> {
  const status = await runningDaemonStatus();
  return status && snapshotFileName(new Date(status.startedAt), status.pid);
}
