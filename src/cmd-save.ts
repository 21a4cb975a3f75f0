// `fleetcom save NAME`: the live fleet's recipe, written as session NAME. The daemon gives the recipe
// (with agent resume forms once captured); directories are tilded with this client's HOME, the same
// HOME a later load expands them with.
import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { printable } from "./text-printable.ts";
import { hasRawBytes } from "./text-path.ts";
import { sanitizeSessionName, type RecipeEntry } from "./recipe.ts";
import { saveSession } from "./recipe-sessions.ts";

export default defineCommand({
  meta: { name: "save", description: "Save the fleet as session NAME (refuses an empty fleet and name collisions)" },
  args: { name: { type: "positional", required: true, description: "Session name" } },
  async run({ args }) {
    console.log(await saveFleet(args.name));
  },
});

/** Saves the live fleet as session `name` (also `w` in the dashboard); returns the line to show. */
export async function saveFleet(name: string): Promise<string> {
  sanitizeSessionName(name); // a bad name is refused before any daemon is started
  const entries = await withDaemon((c) => c.request<RecipeEntry[]>("recipe"));
  const file = saveSession(name, entries);
  const saved = `saved '${printable(name.trim())}': ${entries.length} task(s) → ${printable(file)}`;
  // A recipe is text: such a name is written with U+FFFD in place of its other bytes (recipe.ts).
  const lossy = [...new Set(entries.map((e) => e.dir).filter(hasRawBytes))];
  if (lossy.length === 0) return saved;
  const dirs = lossy.map((d) => printable(d.toWellFormed())).join(", ");
  return `${saved}; warning: ${lossy.length === 1 ? "a directory name is" : `${lossy.length} directory names are`} not UTF-8 and saved with U+FFFD (${dirs}), so a load will skip ${lossy.length === 1 ? "it" : "them"}`;
}
