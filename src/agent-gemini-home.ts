// The private home through which a Gemini run gets fleetcom's hooks (agents.md, Gemini).
//
// Gemini 0.61 takes a system settings file only when it and every directory above it are owned by
// root and not group- or other-writable, which never holds for a normal user's runtime directory
// (and not under /tmp for root); it has no flag that adds settings, and the user's own settings file
// and extensions folder are theirs. What it does take for any user is `GEMINI_CLI_HOME`: the home
// whose `.gemini` it reads. So each run gets an overlay home whose `.gemini` holds a symbolic link to
// every entry of the user's own `.gemini` (settings, credentials, the conversation store `tmp`, the
// registry, their extensions one by one), plus one extension of fleetcom's whose hooks append to the
// run's events file. Gemini reads and writes the user's own files through the links; extension
// hooks run whether or not the folder is trusted. A file Gemini replaces by renaming a new one over
// it (its project registry) is replaced in the overlay, not in the user's folder: the project's
// `.project_root` marker, written in the shared `tmp`, still names it (gemini.ts reads that too).
import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeSettings } from "./agent-claude.ts";

/** The extension fleetcom adds; a user extension of that name is left out of the overlay (its name would clash). */
export const GEMINI_EXTENSION = "fleetcom-attention";

/**
 * Files Gemini creates at the top of its folder on first use. When the user has none yet, the overlay
 * holds a link to where it would be, so the first write lands in the user's folder (a write follows
 * the link), not in the overlay that goes with the run.
 */
const CREATED_ON_FIRST_USE = [
  "settings.json",
  "oauth_creds.json",
  "google_accounts.json",
  "installation_id",
  "projects.json",
  "trustedFolders.json",
  "state.json",
];

/**
 * Folders Gemini makes at every start (`<folder>/<project>` below each): through a link to a missing
 * folder that would fail, and made in the overlay they would go with it, so the user's are made as
 * Gemini would make them. `tmp` holds the conversations, `history` the project's history.
 */
const MADE_AT_START = ["tmp", "history"];

/**
 * Makes the overlay home at `overlay` for the user's Gemini folder `userGemini` (`<home>/.gemini`),
 * with the hooks given (by Gemini event name) in fleetcom's extension; returns the overlay home.
 * `userAgents` is the user's `~/.agents`, which Gemini also looks for under its home.
 */
export function makeGeminiHome(overlay: string, userGemini: string, userAgents: string, hooks: Record<string, string>): string {
  for (const name of MADE_AT_START) mkdirSync(join(userGemini, name), { recursive: true, mode: 0o700 });
  const dot = join(overlay, ".gemini");
  mkdirSync(join(dot, "extensions"), { recursive: true, mode: 0o700 });
  for (const name of new Set([...readdirSync(userGemini), ...CREATED_ON_FIRST_USE])) {
    if (name !== "extensions") link(join(userGemini, name), join(dot, name));
  }
  const extensions = join(userGemini, "extensions");
  for (const name of existsSync(extensions) ? readdirSync(extensions) : []) {
    if (name !== GEMINI_EXTENSION) link(join(extensions, name), join(dot, "extensions", name));
  }
  const ours = join(dot, "extensions", GEMINI_EXTENSION);
  mkdirSync(join(ours, "hooks"), { recursive: true, mode: 0o700 });
  writeFileSync(join(ours, "gemini-extension.json"), `${JSON.stringify({ name: GEMINI_EXTENSION, version: "1.0.0" })}\n`, { mode: 0o600 });
  // Where it was installed from: a user whose `security.allowedExtensions` does not admit it then
  // gets it skipped with a warning, where an extension with no such record stops Gemini's start.
  writeFileSync(join(ours, ".gemini-extension-install.json"), `${JSON.stringify({ source: ours, type: "local" })}\n`, { mode: 0o600 });
  writeFileSync(join(ours, "hooks", "hooks.json"), claudeSettings(hooks), { mode: 0o600 });
  link(userAgents, join(overlay, ".agents"));
  return overlay;
}

function link(target: string, path: string): void {
  if (!isEntry(path)) symlinkSync(target, path);
}

function isEntry(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
