// `fleetcom load [NAME|FILE] [--dry-run] [--json]`, and `fleetcom NAME`. A dry run needs no daemon: it
// parses the recipe, resolves it against the current directory and prints what would start. A real
// load resolves the same way here, in the client, so relative keys and `~` follow the user's shell,
// and the daemon only starts the resolved entries.
import { Buffer } from "node:buffer";
import { existsSync } from "node:fs";
import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { usageError, UserError } from "./errors.ts";
import { cut } from "./ui-format.ts";
import { printable } from "./text-printable.ts";
import type { RecipeEntry } from "./recipe.ts";
import { directoryExists, loadRecipe, resolveSessionTarget, type LoadedRecipe } from "./recipe-sessions.ts";
import { currentDirectory } from "./text-path.ts";

export default defineCommand({
  meta: { name: "load", description: "Start the processes of a saved session or recipe file" },
  args: {
    target: { type: "positional", required: false, description: "Session name, or a path ending in .json" },
    "dry-run": { type: "boolean", description: "Print what would start; needs no daemon" },
    json: { type: "boolean", description: "Print JSON: with --dry-run {name, file, entries, dropped}, else {name, file, started, skipped, dropped}" },
  },
  async run({ args }) {
    if (!args.target) {
      if (args["dry-run"]) throw usageError("load: --dry-run needs a session NAME or a FILE.json");
      const { pickAndLoad } = await import("./ui-picker-sessions.ts");
      return pickAndLoad("saved", args.json);
    }
    const recipe = loadRecipe(args.target, currentDirectory());
    if (args["dry-run"]) printDryRun(recipe, args.json);
    else console.log(await loadAndDescribe(recipe, args.json));
  },
});

export interface LoadResult {
  name: string;
  file: string;
  started: number[];
  skipped: number;
  dropped: number;
}

/**
 * How much of a recipe one `load` request carries. A request frame may hold 4 MiB (wire-framing.ts);
 * a 16 MiB recipe goes in several requests on one connection, in order.
 */
export const LOAD_CHUNK_BYTES = 1024 * 1024;

// The daemon starts one task per entry, skipping entries whose directory is missing.
export async function startRecipe(recipe: LoadedRecipe): Promise<LoadResult> {
  if (recipe.entries.length === 0) {
    throw new UserError(`nothing to load: ${printable(recipe.file)} holds no command (${recipe.dropped} dropped)`);
  }
  const chunks = loadChunks(recipe.entries, recipe.file);
  const { started, skipped } = await withDaemon(async (c) => {
    const total = { started: [] as number[], skipped: 0 };
    for (const entries of chunks) {
      const part = await c.request<{ started: number[]; skipped: number }>("load", { entries });
      total.started.push(...part.started);
      total.skipped += part.skipped;
    }
    return total;
  });
  return { name: recipe.displayName, file: recipe.file, started, skipped, dropped: recipe.dropped };
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

export async function loadAndDescribe(recipe: LoadedRecipe, json = false): Promise<string> {
  const result = await startRecipe(recipe);
  if (json) return JSON.stringify(result);
  const counts = `${result.skipped} skipped (missing directory), ${result.dropped} dropped`;
  return `loaded '${printable(result.name)}': ${result.started.length} task(s), ${counts}`;
}

// `fleetcom WORD`: a word that is no subcommand names a saved session (or, ending in `.json`, a
// recipe file), which is loaded before the dashboard opens.
export function recipeForWord(word: string, nearCommand: string | null = null): LoadedRecipe {
  const file = word.trim() === "" ? null : resolveSessionTarget(word, process.cwd());
  if (file === null || !existsSync(file)) {
    const meant = nearCommand ? ` (did you mean ${nearCommand}?)` : "";
    throw usageError(`unknown command '${printable(word)}'${meant}, and no saved session by that name (see fleetcom --help and fleetcom sessions)`);
  }
  return loadRecipe(word, currentDirectory());
}

export function printDryRun(recipe: LoadedRecipe, json = false): void {
  console.log(json ? dryRunJson(recipe) : dryRunText(recipe));
}

function withMissing(recipe: LoadedRecipe) {
  const missing = new Map<string, boolean>();
  for (const { dir } of recipe.entries) if (!missing.has(dir)) missing.set(dir, !directoryExists(dir));
  return recipe.entries.map((entry) => ({ ...entry, missing: missing.get(entry.dir)! }));
}

function dryRunJson(recipe: LoadedRecipe): string {
  return JSON.stringify({
    name: recipe.displayName,
    file: recipe.file,
    entries: withMissing(recipe),
    dropped: recipe.dropped,
  });
}

function dryRunText(recipe: LoadedRecipe): string {
  const dropped = `${recipe.dropped} dropped`;
  if (recipe.entries.length === 0) {
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
  const skipped = entries.filter((e) => e.missing).length;
  const starting = recipe.entries.length - skipped;
  lines.push(`${starting} task(s) would start, ${skipped} skipped (missing directory), ${dropped}`);
  return lines.join("\n");
}

function labelSuffix(group: string | null, name: string | null): string {
  const parts = [group !== null && `group: ${printable(group)}`, name !== null && `name: ${printable(name)}`];
  const present = parts.filter(Boolean);
  return present.length ? `  [${present.join(", ")}]` : "";
}
