// Whether the previous fleet ended unexpectedly. Each supervisor keeps a record for its runtime
// directory: who it is, the snapshot it writes, and, once it stops cleanly, when (the clean-stop
// marker). A supervisor that starts and finds the previous record without that marker knows its
// predecessor crashed, was killed or went down with a logout or a reboot; if the snapshot of that
// fleet is still there and has not been recovered, the first client hears of it once, and
// `status --json` carries it until a recovery of that snapshot clears it (docs/recovery.md, A lost fleet is said once).
//
// The record lives beside the snapshots in the recovery directory, not in the runtime directory:
// logind removes /run/user/UID at logout and a reboot empties it, which are exactly the ends the
// user must hear about. Its name is not a snapshot's, so listings and prunes never touch it.
import { sha256Hex } from "./text-sha256.ts";
import { statSync } from "node:fs";
import { readRegularFile } from "./files.ts";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import { errorMessage } from "./errors.ts";
import { recoveryDir, type Env } from "./paths.ts";
import { ensurePrivateDir } from "./recipe-sessions.ts";
import { latestSnapshot, snapshotByPath } from "./recipe-snapshots.ts";
import type { CrashNotice } from "./wire-protocol.ts";

export interface SupervisorRecord {
  runtimeDir: string;
  pid: number;
  startedAt: string;
  /** The snapshot file name this supervisor writes. */
  snapshot: string;
  /** The clean-stop marker: when it stopped cleanly, or null while it runs (or after it crashed). */
  stoppedAt: string | null;
  /** A crashed fleet's snapshot the user has not recovered yet, carried over a clean restart. */
  unrecovered: string | null;
}

/** One record per runtime directory, named by a hash of its path. */
export function recordPath(runtimeDir: string, env: Env = process.env): string {
  const hash = sha256Hex(runtimeDir).slice(0, 16);
  return join(recoveryDir(env), `supervisor-${hash}.state.json`);
}

export function readRecord(path: string): SupervisorRecord | null {
  try {
    const value = JSON.parse(readRegularFile(path, { maxBytes: 1024 * 1024 }).toString("utf8")) as Partial<SupervisorRecord>;
    if (typeof value.snapshot !== "string" || typeof value.pid !== "number") return null;
    return {
      runtimeDir: String(value.runtimeDir ?? ""),
      pid: value.pid,
      startedAt: String(value.startedAt ?? ""),
      snapshot: basename(value.snapshot),
      stoppedAt: typeof value.stoppedAt === "string" ? value.stoppedAt : null,
      unrecovered: typeof value.unrecovered === "string" ? basename(value.unrecovered) : null,
    };
  } catch {
    return null;
  }
}

/**
 * Pure: the snapshots that may hold a lost fleet, most likely first. A previous supervisor without
 * the clean-stop marker lost its own fleet; one that stopped cleanly may still carry a crash it was
 * told of and nobody recovered.
 */
export function lostFleetCandidates(previous: SupervisorRecord | null): string[] {
  if (!previous) return [];
  const candidates = previous.stoppedAt === null ? [previous.snapshot, previous.unrecovered] : [previous.unrecovered];
  return [...new Set(candidates.filter((c): c is string => c !== null))];
}

/** The notice for the first candidate that still holds something to start; null when none does. */
export function crashNotice(candidates: string[], env: Env = process.env): CrashNotice | null {
  for (const name of candidates) {
    const file = join(recoveryDir(env), name);
    try {
      const recipe = snapshotByPath(file, env);
      if (recipe.entries.length === 0) continue;
      const newest = newestOther(env);
      return {
        snapshot: name,
        tasks: recipe.entries.length,
        writtenAt: statSync(file).mtime.toISOString(),
        recover: newest === name ? "fleetcom recover --latest" : `fleetcom recover ${name}`,
      };
    } catch {
      // pruned, damaged or unreadable: nothing to offer from it
    }
  }
  return null;
}

function newestOther(env: Env): string | null {
  try {
    return basename(latestSnapshot(null, env).file);
  } catch {
    return null;
  }
}

/**
 * How soon a starting supervisor's record is made durable. Its two fsyncs are slow, and would be on the
 * way of an autostarted daemon's first reply (docs/benchmarks.md, cold-start); until then the record is
 * in place for the next daemon should this one crash, and only a machine going down in that second
 * could lose it, when no snapshot of this fleet could be on disk yet either (daemon-snapshots.ts
 * writes 2 s after the first change) but a load's.
 */
const DURABLE_AFTER_MS = 1_000;

/** The record of the supervisor running now; every write is atomic and never fails the supervisor. */
export class CleanStopRecord {
  private record: SupervisorRecord;
  private readonly durableLater: ReturnType<typeof setTimeout>;

  constructor(
    private readonly path: string,
    own: Omit<SupervisorRecord, "stoppedAt" | "unrecovered">,
    unrecovered: string | null,
    private readonly log: (message: string) => void,
    durableAfterMs = DURABLE_AFTER_MS,
  ) {
    this.record = { ...own, stoppedAt: null, unrecovered };
    this.write(false);
    this.durableLater = setTimeout(() => this.write(), durableAfterMs);
    this.durableLater.unref?.();
  }

  /** The lost fleet was recovered: a later restart has nothing to carry. */
  recovered(): void {
    this.record = { ...this.record, unrecovered: null };
    this.write();
  }

  /** The clean-stop marker, unless another supervisor has taken the runtime directory since. */
  stopped(): void {
    clearTimeout(this.durableLater);
    const current = readRecord(this.path);
    if (current && (current.pid !== this.record.pid || current.startedAt !== this.record.startedAt)) return;
    this.record = { ...this.record, stoppedAt: new Date().toISOString() };
    this.write();
  }

  /** The record as it is now; a durable write also stands for the durable one still to come. */
  private write(durable = true): void {
    if (durable) clearTimeout(this.durableLater);
    try {
      ensurePrivateDir(dirname(this.path), "recovery directory");
      writeFileAtomic(this.path, `${JSON.stringify(this.record, null, 2)}\n`, 0o600, durable);
    } catch (error) {
      this.log(`cannot write the supervisor record ${this.path}: ${errorMessage(error)}`);
    }
  }
}
