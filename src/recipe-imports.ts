// `fleetcom load Procfile` and `load process-compose.yaml` (docs/services.md): another tool's file
// made into a fleetcom recipe, then read as any recipe is (recipe.ts), so the same checks hold (an
// unknown name in `after`, a cycle, a bad pattern) and `save` writes what was imported. Which format
// a file is: `--format`, else its name (Procfile, Procfile.*; *.yaml, *.yml).
import { basename, dirname, resolve } from "node:path";
import { EXIT, UserError, usageError } from "./errors.ts";
import { homeDir } from "./paths.ts";
import { fromProcessCompose, type ImportedEntry } from "./recipe-compose.ts";
import { envFileBeside, isProcfileName, parseProcfile } from "./recipe-procfile.ts";
import { decodeRecipe, parseRecipe } from "./recipe.ts";
import { type LoadedRecipe, readRecipeBytes } from "./recipe-sessions.ts";
import { printable } from "./text-printable.ts";

export const IMPORT_FORMATS = ["procfile", "process-compose"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The format `target` is read in, or null for a fleetcom recipe (a session or .json). */
export function importFormatOf(target: string, flag: string | undefined): ImportFormat | null {
  if (flag !== undefined) {
    if (flag === "fleetcom") return null;
    if (!(IMPORT_FORMATS as readonly string[]).includes(flag))
      throw usageError(`load: --format: expected procfile, process-compose or fleetcom, got '${flag}'`);
    return flag as ImportFormat;
  }
  const base = basename(target);
  if (isProcfileName(base)) return "procfile";
  return /\.ya?ml$/i.test(base) ? "process-compose" : null;
}

/** The file as a recipe named after its directory, and the line of what it had that fleetcom does not do (null for none). */
export async function loadImported(target: string, format: ImportFormat, cwd: string): Promise<LoadedRecipe & { warning: string | null }> {
  const file = resolve(cwd, target);
  const text = decodeRecipe(readRecipeBytes(file), file);
  const name = basename(dirname(file));
  const { dirs, unsupported } = format === "procfile" ? fromProcfile(text, file) : fromProcessCompose(await parseYaml(text, file), file, dirname(file));
  const recipe = parseRecipe(JSON.stringify({ version: 1, name, dirs }), file, { home: homeDir(), cwd });
  const warning = unsupported.length === 0 ? null : `${printable(basename(file))}: not supported, ignored: ${unsupported.map(printable).join(", ")}`;
  return { ...recipe, file, displayName: name, warning };
}

function fromProcfile(text: string, file: string): { dirs: Record<string, ImportedEntry[]>; unsupported: string[] } {
  const env = envFileBeside(file);
  const entries = parseProcfile(text, file).map(({ name, command }) => ({ cmd: command, name, ...(env && { env_file: env }) }));
  return { dirs: { [dirname(file)]: entries }, unsupported: [] };
}

/** YAML by the `yaml` package, loaded only for such a file; a syntax error names the file and line. */
async function parseYaml(text: string, file: string): Promise<unknown> {
  const { parse } = await import("yaml");
  try {
    return parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new UserError(`${printable(file)}: invalid YAML: ${printable((error as Error).message.split("\n")[0] ?? "")}`, EXIT.usage);
  }
}
