// The session directory on disk: list, read, save, remove and rename recipe files (sessions.md).
// Recipes hold full command lines, which can embed secrets: the directory is kept 0700 and every
// file 0600, and every write goes through writeFileAtomic so a crash never leaves a torn recipe.
import { exists, FileRefused, readRegularFile } from "./files.ts";
import { chmodSync, mkdirSync, readdirSync, statSync, unlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { removeStaleTempFiles, writeFileAtomic, describeFsError } from "./atomic-write.ts";
import { errnoCode, UserError } from "./errors.ts";
import { byCodeUnits } from "./text-order.ts";
import { printable } from "./text-printable.ts";
import { homeDir, sessionDir, tildePath, type Env } from "./paths.ts";
import { decodeRecipe, type DirContext, formatRecipe, type HostedEntry, parseRecipe, type ParsedRecipe, type RecipeEntry } from "./recipe.ts";
import { resolveSessionTarget, sanitizeSessionName, sessionFile } from "./recipe-names.ts";
import { schema } from "./validator.ts";

// A hand-edited recipe is small; the cap keeps a stray multi-gigabyte file from exhausting memory.
export const MAX_RECIPE_BYTES = 16 * 1024 * 1024;

// One row of `fleetcom sessions`. `damaged` holds the one-line reason when the file cannot be read.
export const sessionInfo = schema("sessionInfo", (type) =>
  type({
    name: "string",
    storedName: "string | null",
    file: "string",
    tasks: "number",
    dropped: "number",
    dirs: "string[]",
    modified: "string",
    damaged: "string | null",
  }),
);
export type SessionInfo = typeof sessionInfo.infer;

export type LoadedRecipe = ParsedRecipe & { file: string; displayName: string };

export function ensureSessionDir(env: Env = process.env): string {
  return ensurePrivateDir(sessionDir(env), "session directory");
}

// Created 0700, and an existing one loses its group and other permissions: both hold command lines.
export function ensurePrivateDir(dir: string, what: string): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const mode = statSync(dir).mode & 0o777;
    if (mode & 0o077) chmodSync(dir, mode & 0o700);
  } catch (error) {
    throw new UserError(`cannot prepare ${what} ${printable(dir)}: ${describeFsError(error)}`);
  }
  return dir;
}

// Only a regular file is read (a FIFO would wait for a writer forever, a device can block or never
// end), checked on the path and again on the opened fd (files.ts readRegularFile).
export function readRecipeBytes(file: string): Uint8Array {
  try {
    return readRegularFile(file, { maxBytes: MAX_RECIPE_BYTES });
  } catch (error) {
    if (error instanceof FileRefused && error.kind === "irregular") throw new UserError(`${error.message}; a recipe must be a plain JSON file`);
    if (error instanceof UserError) throw error;
    // describeFsError speaks for writes, where ENOENT means the directory is missing; here it is the file.
    if (errnoCode(error) === "ENOENT") throw new UserError(`no such file: ${printable(file)}`);
    throw new UserError(`cannot read ${printable(file)}: ${describeFsError(error)}`);
  }
}

export function readRecipe(file: string, ctx: DirContext): ParsedRecipe {
  return parseRecipe(decodeRecipe(readRecipeBytes(file), file), file, ctx);
}

// A flat file, or a wrapped one without a readable `name`, is known by its file name stem.
export function displayName(recipe: ParsedRecipe, file: string): string {
  return recipe.name ?? basename(file, ".json");
}

/** `host`: the added hosts a directory key may name (`gpu1:/srv/train`); without it every key is a path here. */
export function loadRecipe(arg: string, cwd: string, env: Env = process.env, host?: DirContext["host"]): LoadedRecipe {
  const file = resolveSessionTarget(arg, cwd, env);
  if (!arg.endsWith(".json") && !exists(file)) {
    // `load ./nope` is a session name too (`work/api` is one): for a word that reads as a file
    // (`./x.yaml`), the session file it was mapped to means nothing to the user; how a file is named does.
    const fileLike = /^(\.{1,2}\/|\/|~)/.test(arg.trim()) || /\.[A-Za-z0-9]+$/.test(arg.trim());
    const why = fileLike ? "a recipe file is given by a path ending in .json; fleetcom sessions lists the saved ones" : `looked for ${printable(file)}`;
    throw new UserError(`no saved session '${printable(arg.trim())}' (${why})`);
  }
  const recipe = withoutRecoveryKeys(readRecipe(file, { home: homeDir(env), cwd, ...(host && { host }) }));
  return { ...recipe, file, displayName: displayName(recipe, file) };
}

/** Only `recover` restores kept history and ids: a session, even a copied snapshot, loads as commands alone. */
function withoutRecoveryKeys<R extends { entries: RecipeEntry[] }>(recipe: R): R {
  if (!recipe.entries.some((e) => e.history !== undefined || e.id !== undefined)) return recipe;
  return { ...recipe, entries: recipe.entries.map(({ history: _history, id: _id, ...entry }) => entry) };
}

// --- listing --------------------------------------------------------------------------------------

function isSessionFileName(name: string): boolean {
  return name.endsWith(".json") && !name.startsWith(".");
}

// Directories are listed as `fleetcom load` would resolve them from cwd, with $HOME shown as `~`; a
// host's (`host`: the added hosts) as the recipe names it, `gpu1:~/train`.
export function listSessions(env: Env = process.env, cwd: string = process.cwd(), host?: DirContext["host"]): SessionInfo[] {
  const dir = sessionDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return [];
    throw new UserError(`cannot list ${printable(dir)}: ${describeFsError(error)}`);
  }
  const rows: SessionInfo[] = [];
  for (const name of names.filter(isSessionFileName)) {
    const row = describeSessionFile(join(dir, name), env, cwd, host);
    if (row) rows.push(row);
  }
  return rows.sort((a, b) => byCodeUnits(a.name, b.name));
}

function describeSessionFile(file: string, env: Env, cwd: string, host: DirContext["host"]): SessionInfo | null {
  let modified: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return null; // the recovery/ directory, or anything else that is not a recipe
    modified = stat.mtime.toISOString();
  } catch {
    return null; // removed while we listed
  }
  const stem = basename(file, ".json");
  const base = { file, modified, tasks: 0, dropped: 0, dirs: [] as string[], storedName: null, damaged: null };
  try {
    const recipe = readRecipe(file, { home: homeDir(env), cwd, ...(host && { host }) });
    return {
      ...base,
      name: displayName(recipe, file),
      storedName: recipe.name,
      tasks: recipe.entries.length,
      dropped: recipe.dropped,
      dirs: [...new Set(recipe.entries.map((e) => (e.host ? `${e.host.name}:${tildePath(e.dir, e.host.home)}` : tildePath(e.dir, homeDir(env)))))],
    };
  } catch (error) {
    const reason = error instanceof UserError ? error.message : describeFsError(error);
    return { ...base, name: stem, damaged: reason };
  }
}

// --- saving, removing, renaming ---------------------------------------------------------------------

// The stored name of an existing file, null when it has none (flat, or no readable `name`), and an
// error when the file is damaged: overwriting a file we cannot read could destroy another session.
function storedNameOf(file: string, env: Env, action: string): string | null {
  try {
    return readRecipe(file, { home: homeDir(env), cwd: sessionDir(env) }).name;
  } catch (error) {
    const reason = error instanceof UserError ? error.message : describeFsError(error);
    throw new UserError(`cannot ${action}: ${reason}; fix or remove that file first`);
  }
}

function refuseOtherSession(file: string, name: string, env: Env, action: string): void {
  if (!exists(file)) return;
  refuseMismatch(file, name, storedNameOf(file, env, action), action);
}

function refuseMismatch(file: string, name: string, stored: string | null, action: string): void {
  if (stored === null || stored === name.trim()) return;
  throw new UserError(`cannot ${action}: '${printable(name.trim())}' and '${printable(stored)}' share the file ${printable(file)}; choose another name`);
}

export function saveSession(name: string, entries: HostedEntry[], env: Env = process.env): string {
  const stem = sanitizeSessionName(name);
  if (entries.length === 0) {
    throw new UserError(`cannot save '${printable(name.trim())}': the fleet is empty, there is nothing to relaunch`);
  }
  const dir = ensureSessionDir(env);
  const file = join(dir, `${stem}.json`);
  refuseOtherSession(file, name, env, `save '${printable(name.trim())}'`);
  removeStaleTempFiles(dir);
  writeFileAtomic(file, formatRecipe(name, entries, homeDir(env)));
  return file;
}

/** The file of the saved session `name`; an error naming the file looked for when there is none. */
export function existingSession(name: string, env: Env = process.env): string {
  const file = sessionFile(name, env);
  if (!exists(file)) throw new UserError(`no saved session '${printable(name.trim())}' (looked for ${printable(file)})`);
  return file;
}

export function removeSession(name: string, env: Env = process.env): string {
  const action = `remove '${printable(name.trim())}'`;
  const file = existingSession(name, env);
  // A damaged file may always be removed: that is how the user gets rid of it.
  refuseMismatch(file, name, readableStoredName(file, env), action);
  return unlinkSession(file, action);
}

/**
 * The picker's Ctrl-D: removes the file it lists, whatever name the file holds. A hand-edited
 * `name` may differ from the file's stem (`k_API.json` holding `API`), and looking the name up again
 * would find another file or none.
 */
export function removeSessionFile(file: string, env: Env = process.env): string {
  return unlinkSession(file, `remove '${printable(shownName(file, env))}'`);
}

function unlinkSession(file: string, action: string): string {
  try {
    unlinkSync(file);
  } catch (error) {
    throw new UserError(`cannot ${action}: ${describeFsError(error)}`);
  }
  return file;
}

function readableStoredName(file: string, env: Env): string | null {
  try {
    return readRecipe(file, { home: homeDir(env), cwd: sessionDir(env) }).name;
  } catch {
    return null;
  }
}

function shownName(file: string, env: Env): string {
  return readableStoredName(file, env) ?? basename(file, ".json");
}

// Rewrites only `name` (and wraps a flat file): directory keys and entries stay exactly as written,
// even relative keys and entries a load would drop.
export function renameSession(oldName: string, newName: string, env: Env = process.env): string {
  const action = `rename '${printable(oldName.trim())}' to '${printable(newName.trim())}'`;
  sanitizeSessionName(newName);
  const oldFile = existingSession(oldName, env);
  refuseOtherSession(oldFile, oldName, env, action);
  return moveSession(oldFile, newName, env, action);
}

/** The picker's Ctrl-R: renames the file it lists, whatever name the file holds (see removeSessionFile). */
export function renameSessionFile(file: string, newName: string, env: Env = process.env): string {
  const action = `rename '${printable(shownName(file, env))}' to '${printable(newName.trim())}'`;
  sanitizeSessionName(newName);
  storedNameOf(file, env, action); // a damaged file is refused, as `sessions mv` refuses it
  return moveSession(file, newName, env, action);
}

function moveSession(oldFile: string, newName: string, env: Env, action: string): string {
  const dir = ensureSessionDir(env);
  const newFile = join(dir, `${sanitizeSessionName(newName)}.json`);
  if (newFile !== oldFile && exists(newFile)) {
    const holder = readableStoredName(newFile, env) ?? basename(newFile, ".json");
    throw new UserError(`cannot ${action}: ${printable(newFile)} already holds session '${printable(holder)}'`);
  }
  writeFileAtomic(newFile, renamedText(oldFile, newName));
  // A crash between these two steps leaves both files, never neither.
  if (newFile !== oldFile) unlinkSync(oldFile);
  return newFile;
}

function renamedText(file: string, newName: string): string {
  const doc = JSON.parse(decodeRecipe(readRecipeBytes(file), file)) as Record<string, unknown>;
  const wrapped = typeof doc.dirs === "object" && doc.dirs !== null && !Array.isArray(doc.dirs);
  const { version, ...rest } = doc;
  const dirs = wrapped ? doc.dirs : rest;
  return `${JSON.stringify({ version: version ?? 1, name: newName.trim(), dirs }, null, 2)}\n`;
}
