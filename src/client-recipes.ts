// What a client does with recipes, for `load`, `save`, `recover`, `fleetcom NAME` and the dashboard's
// w and o alike: send a recipe to the daemon in request-sized parts and say what started, describe a
// dry run, and save the live fleet. The commands and screens that use it stay leaves.
import { Buffer } from "node:buffer";
import { basename } from "node:path";
import { withDaemon } from "./client.ts";
import { EXIT, UserError } from "./errors.ts";
import type { DaemonStatus } from "./wire-protocol.ts";
import { snapshotFileName } from "./recipe-snapshot-rules.ts";
import { isOwnSnapshot } from "./recipe-snapshots.ts";
import type { RecipeEntry } from "./recipe.ts";
import { sanitizeSessionName } from "./recipe-names.ts";
import { isDirectory } from "./files.ts";
import { saveSession, type LoadedRecipe } from "./recipe-sessions.ts";
import { hasRawBytes } from "./text-path.ts";
import { printable } from "./text-printable.ts";
import { cut } from "./text-width.ts";

export interface LoadResult {
  name: string;
  file: string;
  started: number[];
  /** Tasks whose run failed at once (no PTY to be had: the fd limit), each with the reason. */
  couldNotStart: { id: number; error: string }[];
  skipped: number;
  /** Entries a running task already stands for (sessions.md): not started again unless `again`. */
  alreadyRunning: number;
  /** Tasks a recovery snapshot recorded as finished: never started again (recovery.md). */
  finished: number;
  dropped: number;
}

export interface LoadOptions {
  /** Start entries even when a running task already stands for them (`load --again`). */
  again?: boolean | undefined;
  /** The recovery snapshot's file name: a recovery of the lost previous fleet clears the crash notice. */
  snapshot?: string | undefined;
}

/**
 * How much of a recipe one `load` request carries. A request frame may hold 4 MiB (wire-framing.ts);
 * a 16 MiB recipe goes in several requests on one connection, in order.
 */
export const LOAD_CHUNK_BYTES = 1024 * 1024;

// The daemon starts one task per entry, skipping entries whose directory is missing and, unless
// `again`, entries already running.
export async function startRecipe(recipe: LoadedRecipe, options: LoadOptions = {}): Promise<LoadResult> {
  const finished = recipe.finished?.length ?? 0;
  if (recipe.entries.length === 0) {
    // A snapshot of a fleet whose every task had finished: nothing to start, and that is the answer.
    if (finished > 0) {
      return { name: recipe.displayName, file: recipe.file, started: [], couldNotStart: [], skipped: 0, alreadyRunning: 0, finished, dropped: recipe.dropped };
    }
    throw new UserError(`nothing to load: ${printable(recipe.file)} holds no command (${recipe.dropped} dropped)`);
  }
  const chunks = loadChunks(recipe.entries, recipe.file);
  // A recovery is the remedy the crash notice names: it does not ask to be told of it.
  const { started, couldNotStart, skipped, alreadyRunning } = await withDaemon(
    async (c) => {
      const total = { started: [] as number[], couldNotStart: [] as LoadResult["couldNotStart"], skipped: 0, alreadyRunning: 0 };
      for (const entries of chunks) {
        // What an earlier part started is this load's own, never "already running" for a later part.
        const part = await c.request("load", {
          entries,
          again: options.again ?? false,
          earlier: [...total.started],
          ...(options.snapshot !== undefined && { snapshot: options.snapshot }),
        });
        total.started.push(...part.started);
        total.couldNotStart.push(...part.couldNotStart);
        total.skipped += part.skipped;
        total.alreadyRunning += part.alreadyRunning;
      }
      return total;
    },
    { notices: options.snapshot === undefined },
  );
  return { name: recipe.displayName, file: recipe.file, started, couldNotStart, skipped, alreadyRunning, finished, dropped: recipe.dropped };
}

/** Entries in request-sized runs, in order; an entry no request could carry is refused up front. */
export function loadChunks(entries: RecipeEntry[], file: string, budget = LOAD_CHUNK_BYTES): RecipeEntry[][] {
  const chunks: RecipeEntry[][] = [];
  let current: RecipeEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(JSON.stringify(entry), "utf8") + 1;
    if (size > budget) {
      throw new UserError(`${printable(file)}: an entry in ${printable(cut(entry.dir, 80))} is too large to send (${size} bytes; at most ${budget})`);
    }
    if (bytes + size > budget) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

export async function loadAndDescribe(recipe: LoadedRecipe, json = false, options: LoadOptions = {}): Promise<string> {
  const result = await startRecipe(recipe, options);
  // The summary still prints, but a load that could not start everything it started on did not succeed.
  if (result.couldNotStart.length > 0) process.exitCode = EXIT.failure;
  if (json) return JSON.stringify(result);
  return loadSummary(result);
}

/** `loaded 'work': 2 task(s), 3 already running (--again starts them), 0 skipped (missing directory), 0 dropped`. */
export function loadSummary(result: LoadResult): string {
  const failed = result.couldNotStart.length > 0 ? `${result.couldNotStart.length} could not start (${startErrors(result)}), ` : "";
  const running = result.alreadyRunning > 0 ? `${result.alreadyRunning} already running (--again starts them), ` : "";
  const finished = result.finished > 0 ? `${result.finished} had finished (not started), ` : "";
  const counts = `${running}${finished}${result.skipped} skipped (missing directory), ${result.dropped} dropped`;
  return `loaded '${printable(result.name)}': ${result.started.length} task(s), ${failed}${counts}`;
}

/** The distinct reasons tasks could not start, a few at most: twenty of `Failed to open PTY` say it once. */
function startErrors(result: LoadResult): string {
  const reasons = [...new Set(result.couldNotStart.map((f) => printable(f.error)))];
  return reasons.length > 3 ? `${reasons.slice(0, 3).join("; ")}; …` : reasons.join("; ");
}

/** The running supervisor's status, or null when none runs; never starts one. */
export async function runningDaemonStatus(): Promise<DaemonStatus | null> {
  try {
    return await withDaemon((c) => c.request("status"), { autostart: false, notices: false });
  } catch (error) {
    if (error instanceof UserError && error.exitCode === EXIT.unreachable) return null;
    throw error;
  }
}

/** The file name the running supervisor writes its recovery snapshots to. */
export function ownSnapshotName(status: DaemonStatus | null): string | null {
  return status && snapshotFileName(new Date(status.startedAt), status.pid);
}

/**
 * Loads a recovery snapshot (`recover --latest`, `recover FILE`, the picker's recovery list). The
 * running supervisor's own snapshot describes the fleet as it is: recovering it starts nothing
 * unless `again` (sessions.md), which also starts entries already running.
 */
export async function recoverAndDescribe(recipe: LoadedRecipe, json = false, options: LoadOptions = {}): Promise<string> {
  if (!options.again && isOwnSnapshot(recipe.file, ownSnapshotName(await runningDaemonStatus()))) {
    throw new UserError(
      `${printable(basename(recipe.file))} is this fleet's own snapshot (this fleet, running): its tasks are the ones running now, so nothing was started; --again starts them a second time`,
    );
  }
  return loadAndDescribe(recipe, json, { ...options, snapshot: basename(recipe.file) });
}

export function printDryRun(recipe: LoadedRecipe, json = false): void {
  console.log(json ? dryRunJson(recipe) : dryRunText(recipe));
}

// What would start: the history file a snapshot entry brings (recover) is not part of it.
function withMissing(recipe: LoadedRecipe) {
  const missing = new Map<string, boolean>();
  for (const { dir } of recipe.entries) if (!missing.has(dir)) missing.set(dir, !isDirectory(dir));
  return recipe.entries.map(({ history: _history, ...entry }) => ({ ...entry, missing: missing.get(entry.dir)! }));
}

function dryRunJson(recipe: LoadedRecipe): string {
  return JSON.stringify({
    name: recipe.displayName,
    file: recipe.file,
    entries: withMissing(recipe),
    ...(recipe.finished && { finished: recipe.finished }),
    dropped: recipe.dropped,
  });
}

function dryRunText(recipe: LoadedRecipe): string {
  const dropped = `${recipe.dropped} dropped`;
  const finished = recipe.finished ?? [];
  if (recipe.entries.length === 0 && finished.length === 0) {
    return `nothing to load: ${printable(recipe.file)} holds no command (${dropped})`;
  }
  const lines = [`would load '${printable(recipe.displayName)}' from ${printable(recipe.file)}`];
  const entries = withMissing(recipe);
  let currentDir: string | undefined;
  for (const entry of entries) {
    if (entry.dir !== currentDir) {
      currentDir = entry.dir;
      lines.push(`  ${printable(entry.dir)}${entry.missing ? "  (missing: would be skipped)" : ""}`);
    }
    lines.push(`    ${printable(entry.cmd)}${labelSuffix(entry.group, entry.name)}`);
  }
  // A recovery snapshot's finished tasks: one-off commands that had done their work.
  if (finished.length > 0) lines.push("  not started: had finished when the snapshot was written");
  for (const entry of finished) lines.push(`    ${printable(entry.dir)}: ${printable(entry.cmd)}${labelSuffix(entry.group, entry.name)}`);
  const skipped = entries.filter((e) => e.missing).length;
  const starting = recipe.entries.length - skipped;
  const notStarted = finished.length > 0 ? `, ${finished.length} had finished (not started)` : "";
  lines.push(`${starting} task(s) would start, ${skipped} skipped (missing directory)${notStarted}, ${dropped}`);
  return lines.join("\n");
}

function labelSuffix(group: string | null, name: string | null): string {
  const parts = [group !== null && `group: ${printable(group)}`, name !== null && `name: ${printable(name)}`];
  const present = parts.filter(Boolean);
  return present.length ? `  [${present.join(", ")}]` : "";
}

/** Saves the live fleet as session `name` (also `w` in the dashboard); returns the line to show. */
export async function saveFleet(name: string): Promise<string> {
  sanitizeSessionName(name); // a bad name is refused before any daemon is started
  const entries = await withDaemon((c) => c.request("recipe"));
  const file = saveSession(name, entries);
  const saved = `saved '${printable(name.trim())}': ${entries.length} task(s) → ${printable(file)}`;
  // A recipe is text: such a name is written with U+FFFD in place of its other bytes (recipe.ts).
  const lossy = [...new Set(entries.map((e) => e.dir).filter(hasRawBytes))];
  if (lossy.length === 0) return saved;
  const dirs = lossy.map((d) => printable(d.toWellFormed())).join(", ");
  return `${saved}; warning: ${lossy.length === 1 ? "a directory name is" : `${lossy.length} directory names are`} not UTF-8 and saved with U+FFFD (${dirs}), so a load will skip ${lossy.length === 1 ? "it" : "them"}`;
}
