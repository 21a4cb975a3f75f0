// `fleetcom load [NAME|FILE] [--dry-run] [--json]`. A dry run needs no daemon: it parses the recipe,
// resolves it against the current directory and prints what would start.
import { defineCommand } from "citty";
import { usageError, UserError } from "./errors.ts";
import { printable } from "./labels.ts";
import { directoryExists, loadRecipe, type LoadedRecipe } from "./session-store.ts";

export default defineCommand({
  meta: { name: "load", description: "Start the processes of a saved session or recipe file" },
  args: {
    target: { type: "positional", required: false, description: "Session name, or a path ending in .json" },
    "dry-run": { type: "boolean", description: "Print what would start; needs no daemon" },
    json: { type: "boolean", description: "With --dry-run: print {name, file, entries, dropped} as JSON" },
  },
  run({ args }) {
    if (!args.target) throw usageError("load: give a session NAME or a FILE.json (the session picker is not implemented yet)");
    const recipe = loadRecipe(args.target, process.cwd());
    if (args["dry-run"]) console.log(args.json ? dryRunJson(recipe) : dryRunText(recipe));
    else startRecipe(recipe);
  },
});

// The real load: the daemon starts one task per entry, skipping entries whose directory is missing.
export function startRecipe(_recipe: LoadedRecipe): void {
  throw new UserError("load: the daemon is not implemented yet");
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
