// The recovery directory as `fleetcom recover` sees it: the snapshots newest first, each readable or
// damaged, and the newest one that loads. A damaged snapshot never blocks recovery.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { describeFsError } from "./atomic-write.ts";
import { errnoCode, UserError } from "./errors.ts";
import { printable } from "./text-printable.ts";
import { homeDir, recoveryDir, type Env } from "./paths.ts";
import { compareSnapshotsNewestFirst, isSnapshotName } from "./recipe-snapshot-rules.ts";
import { historyPathFor } from "./recipe-history.ts";
import { displayName, readRecipe, type LoadedRecipe } from "./recipe-sessions.ts";
import { currentDirectory } from "./text-path.ts";

export interface SnapshotInfo {
  file: string;
  label: string | null;
  /** Entries a recovery would start. */
  tasks: number;
  /** Tasks that had finished when it was written: recorded apart, never started again. */
  finished: number;
  /** The names (else commands as typed) of the first few tasks it would start, so rows can be told apart. */
  labels: string[];
  dropped: number;
  written: string;
  damaged: string | null;
  /** Written by the supervisor running now: it describes the fleet as it is ("this fleet, running"). */
  thisFleet: boolean;
}

/** How many task names a listing carries per snapshot. */
export const LISTED_LABELS = 4;

interface Listed {
  info: SnapshotInfo;
  recipe: LoadedRecipe | null;
  /** For the order: its name and mtime. */
  file: { name: string; writtenMs: number };
}

// Newest means most recently written: a supervisor started earlier may hold the fresher recipe.
// `own`: the file name the running supervisor writes (null when none runs), marked as this fleet.
export function listSnapshots(env: Env = process.env, cwd = process.cwd(), own: string | null = null): SnapshotInfo[] {
  return readSnapshots(env, cwd).map((s) => ({ ...s.info, thisFleet: basename(s.info.file) === own }));
}

/** Whether `file` is the snapshot the running supervisor (its file name `own`) writes. */
export function isOwnSnapshot(file: string, own: string | null, env: Env = process.env): boolean {
  return own !== null && resolve(file) === resolve(recoveryDir(env), own);
}

// `skip` is the running daemon's own file: loading it back into that daemon would only duplicate
// its tasks, while the fleet to recover is the one a crashed supervisor left behind.
export function latestSnapshot(skip: string | null, env: Env = process.env, cwd = currentDirectory()): LoadedRecipe {
  const others = readSnapshots(env, cwd).filter((s) => basename(s.info.file) !== skip);
  const found = others.find((s) => s.recipe !== null);
  if (!found) throw new UserError(`no loadable recovery snapshot in ${printable(recoveryDir(env))}${whyNoneLoads(others)}`);
  return found.recipe!;
}

/** What stood in the way when snapshots are there and none loads: how many, and the newest one's damage. */
function whyNoneLoads(damaged: readonly Listed[]): string {
  const newest = damaged[0];
  if (newest === undefined) return "";
  return ` (${damaged.length} damaged; the newest, ${printable(basename(newest.info.file))}: ${printable(newest.info.damaged ?? "")})`;
}

// `recover FILE`: a path from the current directory, or else a bare snapshot name from --list --json.
export function snapshotByPath(arg: string, env: Env = process.env, cwd = currentDirectory()): LoadedRecipe {
  const inRecovery = join(recoveryDir(env), arg);
  const file = !existsSync(resolve(cwd, arg)) && !arg.includes("/") && existsSync(inRecovery) ? inRecovery : resolve(cwd, arg);
  return readSnapshot(file, env, cwd);
}

/** A snapshot, each entry's history key turned into the path of its history file beside it (recipe-history.ts). */
function readSnapshot(file: string, env: Env, cwd: string): LoadedRecipe {
  const recipe = readRecipe(file, { home: homeDir(env), cwd });
  const entries = recipe.entries.map(({ history, ...entry }) => {
    const path = history === undefined ? null : historyPathFor(file, history);
    return path === null ? entry : { ...entry, history: path };
  });
  return { ...recipe, entries, file, displayName: displayName(recipe, file) };
}

function readSnapshots(env: Env, cwd: string): Listed[] {
  const dir = recoveryDir(env);
  let names: string[];
  try {
    names = readdirSync(dir).filter(isSnapshotName);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return [];
    throw new UserError(`cannot list ${printable(dir)}: ${describeFsError(error)}`);
  }
  const listed = names.map((name) => describe(join(dir, name), env, cwd)).filter((s): s is Listed => s !== null);
  return listed.sort((a, b) => compareSnapshotsNewestFirst(a.file, b.file));
}

function describe(file: string, env: Env, cwd: string): Listed | null {
  let order: Listed["file"];
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return null;
    order = { name: basename(file), writtenMs: stat.mtimeMs };
  } catch {
    return null; // pruned while we listed
  }
  const base = {
    file,
    written: new Date(order.writtenMs).toISOString(),
    label: null,
    tasks: 0,
    finished: 0,
    labels: [],
    dropped: 0,
    damaged: null,
    thisFleet: false,
  };
  try {
    const recipe = readSnapshot(file, env, cwd);
    const finished = recipe.finished?.length ?? 0;
    if (recipe.entries.length + finished === 0) return { info: { ...base, label: recipe.name, damaged: "holds no command" }, recipe: null, file: order };
    const labels = recipe.entries.slice(0, LISTED_LABELS).map((e) => e.name ?? e.typed ?? e.cmd);
    const info = { ...base, label: recipe.displayName, tasks: recipe.entries.length, finished, labels, dropped: recipe.dropped };
    return { info, recipe, file: order };
  } catch (error) {
    const reason = error instanceof UserError ? error.message : describeFsError(error);
    return { info: { ...base, damaged: reason }, recipe: null, file: order };
  }
}
