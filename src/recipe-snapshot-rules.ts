// The rules of recovery snapshots (recovery.md) as pure functions: the per-supervisor file name, the
// label, which files a prune deletes, whether a pass writes at all and when it runs. The I/O lives in
// daemon-snapshots.ts (the writer inside the daemon) and recipe-snapshots.ts (listing and loading for
// `fleetcom recover`).

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

/** A snapshot file as a prune or a listing sees it: its name and when it was last written (mtime). */
export interface SnapshotFile {
  name: string;
  writtenMs: number;
}

/**
 * Newest first means most recently written (recovery.md): a long-lived supervisor started before
 * many others may hold the freshest recipe. Ties go to the newer name (start time, then PID).
 */
export function compareSnapshotsNewestFirst(a: SnapshotFile, b: SnapshotFile): number {
  return b.writtenMs - a.writtenMs || compareNamesNewestFirst(a.name, b.name);
}

function compareNamesNewestFirst(a: string, b: string): number {
  const pa = parseSnapshotName(a);
  const pb = parseSnapshotName(b);
  if (!pa || !pb) return a < b ? 1 : a > b ? -1 : 0;
  return pb.startedAt.getTime() - pa.startedAt.getTime() || pb.pid - pa.pid;
}

/**
 * The names a prune deletes from a directory listing: never `written`, never a name that is not a
 * snapshot's, never a file whose writer is live (`writerLive` must not trust a reused PID: the
 * process with that PID has to be the supervisor that named the file); of the rest, all but the
 * KEEP_OTHER_SNAPSHOTS most recently written. Taking the newest *names* instead would delete a
 * crashed long-lived supervisor's snapshot as soon as ten younger ones had come and gone.
 */
export function snapshotsToPrune(files: SnapshotFile[], written: string, writerLive: (snapshot: SnapshotName) => boolean): string[] {
  const candidates = files.filter((file) => {
    if (file.name === written) return false;
    const parsed = parseSnapshotName(file.name);
    return parsed !== null && !writerLive(parsed);
  });
  return candidates
    .sort(compareSnapshotsNewestFirst)
    .slice(KEEP_OTHER_SNAPSHOTS)
    .map((file) => file.name);
}

// A PID in a name is its writer's only if the process with that PID started no later than the
// start time in the name (the name's time is the supervisor's own start, truncated to the second).
// A process that got the number after the writer died started later. The slack covers the boot time
// /proc gives in whole seconds and small clock corrections; it can only keep a file, never lose one.
export const WRITER_START_SLACK_MS = 3_000;

/** Pure: whether a process started at `processStartedAtMs` (wall clock) can be the file's writer. */
export function couldBeWriter(snapshot: SnapshotName, processStartedAtMs: number): boolean {
  return processStartedAtMs <= snapshot.startedAt.getTime() + WRITER_START_SLACK_MS;
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

/** `soon`: an ordinary change, written within the delay. `now`: a load just accepted, written at once. */
export type SnapshotUrgency = "soon" | "now";

/**
 * When the pass for the changes no snapshot holds yet runs, after one more change at `nowMs`: `delayMs`
 * after the FIRST of them, so a burst ends in one write, but a later change never puts the pass off.
 * A wait that restarted with every change wrote nothing while a 300-task load spawned for seconds,
 * and a crash then lost the whole load. `dueMs` is when the pending pass runs, null when none waits.
 */
export function snapshotPassDue(dueMs: number | null, nowMs: number, urgency: SnapshotUrgency, delayMs: number): number {
  const wanted = urgency === "now" ? nowMs : nowMs + delayMs;
  return dueMs === null ? wanted : Math.min(dueMs, wanted);
}
