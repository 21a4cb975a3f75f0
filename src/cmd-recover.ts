// `fleetcom recover [--latest|--list|N|FILE] [--dry-run] [--again] [--json]`: the recovery snapshots the
// daemon wrote by itself. A snapshot loads exactly like a session; afterwards the user is told how to
// keep the recovered fleet under a permanent name, since the next prune may delete the snapshot. The
// running supervisor's own snapshot is the fleet as it runs now: listed as such, recovered only with --again.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { SAVE_HINT, snapshotListRow, writeStdout } from "./ui-format.ts";
import { age } from "./view-task.ts";
import { existsSync } from "node:fs";
import { UserError, usageError } from "./errors.ts";
import type { DaemonStatus } from "./wire-protocol.ts";
import { printable } from "./text-printable.ts";
import { recoveryDir } from "./paths.ts";
import type { SnapshotInfo } from "./recipe-snapshots.ts";

export default defineCommand({
  facts: { remote: "there", plain: true },
  meta: { name: "recover", description: "List or load the recovery snapshots the daemon writes by itself" },
  args: {
    file: {
      type: "positional",
      required: false,
      valueHint: "[N|FILE]",
      description: "The N-th snapshot of recover --list (1 is the newest), or a snapshot file to load",
    },
    latest: { type: "boolean", description: "Load the newest loadable snapshot (not the running fleet's own)" },
    list: { type: "boolean", description: "List snapshots, newest first, numbered (recover 2 loads the second)" },
    "dry-run": { type: "boolean", description: "Print what would start (and what is already running); starts no daemon" },
    again: { type: "boolean", description: "Start tasks even when they are running now (the running fleet's own snapshot, or entries already running)" },
    json: { type: "boolean", description: "Print JSON (the list, the dry run, or the load summary)" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const [
      { latestSnapshot, listSnapshots, snapshotByPath },
      { ownSnapshotName, printDryRun, recoverAndDescribe, sayProblems },
      { runningDaemonStatus, withRunningDaemon },
    ] = await Promise.all([import("./recipe-snapshots.ts"), import("./client-recipes.ts"), import("./client-running-daemon.ts")]);
    const chosen = [args.latest, args.list, args.file !== undefined].filter(Boolean).length;
    if (chosen === 0) {
      if (args["dry-run"]) throw usageError("recover: --dry-run goes with --latest or FILE");
      const { pickAndLoad } = await import("./ui-picker-sessions.ts");
      return pickAndLoad("recovery", args.json === true, { again: args.again, target });
    }
    if (chosen > 1) throw usageError("recover: give only one of --latest, --list and FILE");
    if (args.list) {
      if (args["dry-run"]) throw usageError("recover: --dry-run goes with --latest or FILE");
      const status = await runningDaemonStatus(target);
      return printList(listSnapshots(process.env, process.cwd(), ownSnapshotName(status)), runningDaemonWarning(status), args.json);
    }
    // One connection to the running daemon, if any: its status picks the snapshot and guards its own,
    // and the load goes on the same connection (a daemon is started only when none runs).
    await withRunningDaemon(target, async (client) => {
      const status = client && (await client.request("status"));
      const own = ownSnapshotName(status);
      const recipe = args.latest ? latestSnapshot(own) : snapshotByPath(numberedSnapshot(args.file!, listSnapshots, own) ?? args.file!);
      sayProblems(recipe);
      if (args["dry-run"]) return printDryRun(recipe, args.json, { again: args.again, client });
      console.log(await recoverAndDescribe(recipe, args.json === true, { again: args.again, reportFailures: true, target }, { client, status }));
      if (!args.json) console.log(SAVE_HINT);
    });
  },
});

function printList(snapshots: SnapshotInfo[], warning: string | null, json = false): void {
  if (json) return writeStdout(`${JSON.stringify({ dir: recoveryDir(), snapshots, warning })}\n`);
  if (warning) process.stderr.write(`fleetcom: warning: ${warning}\n`);
  if (snapshots.length === 0) return writeStdout(`no recovery snapshots (in ${printable(recoveryDir())})\n`);
  const width = String(snapshots.length).length;
  const rows = snapshots.map((s, i) => `${String(i + 1).padStart(width)}  ${snapshotListRow(s)}`);
  writeStdout(`${rows.join("\n")}\n${LIST_HINT}\n`);
}

const LIST_HINT = "fleetcom recover N loads the N-th (--dry-run shows it first); fleetcom recover opens the same list as a picker";

/**
 * The file of the N-th snapshot of `recover --list` when `word` is a number N and no file of that
 * name is here; null for a file name, which is read as one.
 */
function numberedSnapshot(word: string, list: (env: NodeJS.ProcessEnv, cwd: string, own: string | null) => SnapshotInfo[], own: string | null): string | null {
  if (!/^\d+$/.test(word) || existsSync(word)) return null;
  const snapshots = list(process.env, process.cwd(), own);
  const n = Number(word);
  if (n < 1 || n > snapshots.length) {
    throw new UserError(`no snapshot ${word}: recover --list shows ${snapshots.length === 0 ? "none" : `1 to ${snapshots.length}`}`);
  }
  return snapshots[n - 1]!.file;
}

// The running daemon knows whether its fleet changed since its last good snapshot; no daemon, no word.
function runningDaemonWarning(status: DaemonStatus | null, now = Date.now()): string | null {
  const error = status?.snapshotError;
  if (!error) return null;
  const changed = status.snapshotPendingSince ? `changed ${age(status.snapshotPendingSince, now)} ago and ` : "";
  return `the running daemon's fleet ${changed}is newer than every snapshot listed: writing snapshots has failed for ${age(error.since, now)} (${printable(error.message)})`;
}
