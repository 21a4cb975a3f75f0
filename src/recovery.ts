// The rules of recovery snapshots (recovery.md) as pure functions: the per-supervisor file name, the
// label, which files a prune deletes and whether a pass writes at all. The I/O lives in snapshots.ts
// (the writer inside the daemon) and recovery-store.ts (listing and loading for `fleetcom recover`).

// A snapshot file is `YYYYMMDDTHHMMSSZ-<pid>.json`: the supervisor's UTC start time, then its PID, so
// concurrent supervisors sharing a directory never write the same file. Only names of exactly this
// shape are snapshots; pruning never touches anything else.
const SNAPSHOT_NAME = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z-([1-9]\d{0,9})\.json$/;

// Of the files no live supervisor owns, this many survive a prune besides the one just written.
export const KEEP_OTHER_SNAPSHOTS = 9;

export interface SnapshotName {
  name: string;
  startedAt: Date;
  pid: number;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

export function snapshotFileName(startedAt: Date, pid: number): string {
  const d = startedAt;
  const date = `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  return `${date}T${time}Z-${pid}.json`;
}

// A name whose digits do not form a real UTC time (month 13, 31 February…) is not a snapshot name.
export function parseSnapshotName(name: string): SnapshotName | null {
  const match = SNAPSHOT_NAME.exec(name);
  if (!match) return null;
  const [year, month, day, hours, minutes, seconds, pid] = match.slice(1).map(Number) as number[];
  const startedAt = new Date(Date.UTC(year!, month! - 1, day!, hours!, minutes!, seconds!));
  if (snapshotFileName(startedAt, pid!) !== name) return null;
  return { name, startedAt, pid: pid! };
}

export function isSnapshotName(name: string): boolean {
  return parseSnapshotName(name) !== null;
}

// `autosaved YYYY-MM-DD HH:MM:SS UTC`, from the time of the write.
export function snapshotLabel(writtenAt: Date): string {
  const d = writtenAt;
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `autosaved ${date} ${time} UTC`;
}

// Newest first: by start time, then by PID for supervisors started in the same second.
export function compareSnapshotNamesNewestFirst(a: SnapshotName, b: SnapshotName): number {
  return b.startedAt.getTime() - a.startedAt.getTime() || b.pid - a.pid;
}

/**
 * The names a prune deletes from `names` (a directory listing): never `written`, never a file whose
 * PID is alive (its supervisor may still write it), never a name that is not a snapshot's; of the
 * rest, all but the KEEP_OTHER_SNAPSHOTS newest.
 */
export function snapshotsToPrune(names: string[], written: string, isAlive: (pid: number) => boolean): string[] {
  const candidates = names
    .filter((name) => name !== written)
    .map(parseSnapshotName)
    .filter((parsed): parsed is SnapshotName => parsed !== null && !isAlive(parsed.pid));
  return candidates
    .sort(compareSnapshotNamesNewestFirst)
    .slice(KEEP_OTHER_SNAPSHOTS)
    .map((parsed) => parsed.name);
}

/** What a pass would write: the destination and the recipe text without its label. */
export interface SnapshotPass {
  file: string;
  tasks: number;
  body: string;
}

// The label carries the time of the write, so the content compared is the recipe without it: an
// unchanged fleet is not rewritten every minute. An empty fleet never replaces the last snapshot.
export function shouldWriteSnapshot(pass: SnapshotPass, last: Omit<SnapshotPass, "tasks"> | null, fileExists: boolean): boolean {
  if (pass.tasks === 0) return false;
  return last === null || !fileExists || last.file !== pass.file || last.body !== pass.body;
}
