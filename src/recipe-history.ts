// The rules of kept history (docs/recovery.md, History) as pure functions: where a task's history
// file lives beside its snapshot, what the file holds, the marker a recovered task shows above it,
// and which history directories a prune removes. The I/O lives in daemon-history.ts (writing, and
// reading for a recovered task) and recipe-snapshots.ts (the paths `recover` hands the daemon).
//
// A supervisor whose snapshot is `20261129T210433Z-48213.json` keeps its tasks' history in the
// directory `20261129T210433Z-48213.history/` beside it, one gzip file per task, `<key>.txt.gz`.
// The key is the task's id in that supervisor; the snapshot entry carries it as `history`, so
// `recover` finds each entry's file and nothing else has to match.
import { Buffer } from "node:buffer";
import { basename, dirname, join } from "node:path";
import { parseSnapshotName, type SnapshotName } from "./recipe-snapshot-rules.ts";

const HISTORY_DIR = /^(.+)\.history$/;
const HISTORY_KEY = /^[1-9]\d{0,9}$/;
const HEADER = /^fleetcom history 1 (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)$/;
/** Controls cannot come out of the emulator's cells; a file edited by hand must not bring them either. */
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;

/** A history file holds at most this much text (the newest lines): a few lines of megabytes each cannot make it huge. */
export const MAX_HISTORY_BYTES = 4 * 1024 * 1024;
/** How much a history file may hold once unpacked; anything larger is not one of ours. */
export const MAX_HISTORY_FILE_BYTES = MAX_HISTORY_BYTES + 64 * 1024;

/** History kept from before a recovery: its lines, and when they were last written. */
export interface RestoredHistory {
  lines: string[];
  writtenAt: Date;
}

export function historyDirName(snapshotName: string): string {
  return `${snapshotName.replace(/\.json$/, "")}.history`;
}

export function historyFileName(key: string): string {
  return `${key}.txt.gz`;
}

export function isHistoryKey(key: string): boolean {
  return HISTORY_KEY.test(key);
}

/** The history file of an entry of the snapshot `snapshotFile` (any path, as `recover FILE` takes); null for a key that is not one. */
export function historyPathFor(snapshotFile: string, key: string): string | null {
  if (!isHistoryKey(key)) return null;
  return join(dirname(snapshotFile), historyDirName(basename(snapshotFile)), historyFileName(key));
}

/** The snapshot whose history a directory name is, or null when it is no history directory. */
export function parseHistoryDirName(name: string): SnapshotName | null {
  const match = HISTORY_DIR.exec(name);
  return match ? parseSnapshotName(`${match[1]}.json`) : null;
}

// `── restored from before 2026-11-30 14:02 UTC ──`: the minute the history was last written.
export function restoredMarker(writtenAt: Date): string {
  const iso = writtenAt.toISOString();
  return `── restored from before ${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC ──`;
}

/**
 * What a task's history shows: the history restored from before a recovery, the marker, then what
 * the task printed since; the last `limit` lines of it, as if the old lines were scrollback above.
 */
export function withRestored(restored: RestoredHistory | null, live: string[], limit: number): string[] {
  if (!restored) return live.length > limit ? live.slice(-limit) : live;
  const lines = [...restored.lines, restoredMarker(restored.writtenAt), ...live];
  return lines.length > limit ? lines.slice(-limit) : lines;
}

/** The text of a history file: a header line with the time of the write, then one line per line, the newest within MAX_HISTORY_BYTES. */
export function encodeHistory(lines: string[], writtenAt: Date, maxBytes = MAX_HISTORY_BYTES): string {
  let start = lines.length;
  let bytes = 0;
  while (start > 0) {
    // Real UTF-8 bytes: three per UTF-16 unit, a bound that needs no encoding, kept a third of the cap for ASCII.
    const size = Buffer.byteLength(lines[start - 1]!, "utf8") + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    start--;
  }
  const kept = start === 0 ? lines : lines.slice(start);
  return `fleetcom history 1 ${writtenAt.toISOString()}\n${kept.map((l) => `${l}\n`).join("")}`;
}

/** A history file's text back as lines, controls removed; null when it is not a history file (damaged, foreign). */
export function decodeHistory(text: string): RestoredHistory | null {
  const end = text.indexOf("\n");
  if (end === -1) return null;
  const header = HEADER.exec(text.slice(0, end));
  if (!header) return null;
  const writtenAt = new Date(header[1]!);
  if (Number.isNaN(writtenAt.getTime())) return null;
  // Every line ends with a newline: what follows the last one is "" in a whole file, and a line
  // cut short in one that is not (gzip's checksum makes that a disk that lied), left out either way.
  const lines = text.slice(end + 1).split("\n");
  lines.pop();
  return { writtenAt, lines: lines.map((l) => l.replace(CONTROLS, "")) };
}

/**
 * The history directories a prune removes from a listing taken after the snapshots were pruned: a
 * directory goes with its snapshot (gone from `names`) unless its writer is live; with `all` (the
 * history setting is off) every directory of a writer that is not live goes. Only names of exactly
 * the history shape are ever touched.
 */
export function historyDirsToPrune(names: string[], writerLive: (snapshot: SnapshotName) => boolean, all = false): string[] {
  const present = new Set(names);
  return names.filter((name) => {
    const snapshot = parseHistoryDirName(name);
    if (!snapshot || writerLive(snapshot)) return false;
    return all || !present.has(snapshot.name);
  });
}
