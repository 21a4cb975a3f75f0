// Claude Code: a new conversation is pinned with `--session-id`, and a settings overlay (merged by
// Claude on top of the user's own settings) adds a SessionStart hook that copies its payload to the
// run's capture file, so `/clear`, `/resume` and compaction are followed. Exit hint: `Resume this
// session with:` then `claude … --resume <id>`. Store: `<claude home>/projects/<slug>/<id>.jsonl`.
import { join } from "node:path";
import { entriesOf, createdMs, member, textOf } from "./agent-files.ts";
import {
  type Agent,
  type Env,
  homeOf,
  idAfterSelector,
  lastHintId,
  nearSpawn,
  newUuid,
  shellQuote,
  single,
  textsAfter,
  uuidOrNull,
} from "./agents.ts";

export const CLAUDE_SETTINGS_FILE = "claude-settings.json";

// Written to a temporary name and renamed, so a reader never sees half a payload; no output, since
// a SessionStart hook's stdout becomes part of Claude's context.
const CAPTURE_HOOK = `umask 077; f="$FLEETCOM_CAPTURE_FILE"; [ -n "$f" ] || exit 0; cat > "$f.$$.tmp" && mv -f "$f.$$.tmp" "$f"`;

/** Hook commands of the overlay, by Claude event name. The attention hooks join this table. */
export const CLAUDE_HOOKS: Record<string, string> = { SessionStart: CAPTURE_HOOK };

export function claudeSettings(hooks: Record<string, string> = CLAUDE_HOOKS): string {
  const entries = Object.entries(hooks).map(([event, command]) => [event, [{ hooks: [{ type: "command", command }] }]]);
  return `${JSON.stringify({ hooks: Object.fromEntries(entries) }, null, 2)}\n`;
}

/** The SessionStart payload's `session_id`, when it is a strict UUID. */
export function sessionStartId(payload: string | null): string | null {
  if (payload === null) return null;
  try {
    return uuidOrNull(member(JSON.parse(payload), "session_id"));
  } catch {
    return null;
  }
}

/** `/tmp/My.Proj_x y` → `-tmp-My-Proj-x-y`: every character outside [A-Za-z0-9] becomes `-`. */
export function claudeSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

export function claudeHome(env: Env): string {
  return env.CLAUDE_CONFIG_DIR || join(homeOf(env), ".claude");
}

export const claude: Agent = {
  name: "claude",
  words: ["claude"],
  selector: "--resume",
  envKeys: ["HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_RESUME_HINT_COMMAND"],

  instrument(launch, assets) {
    const settings = assets.asset(CLAUDE_SETTINGS_FILE, claudeSettings(), 0o600);
    const pinned = launch.id ?? newUuid();
    const pin = launch.id === null ? ["--session-id", shellQuote(pinned)] : [];
    return { args: [...pin, "--settings", shellQuote(settings)], env: { FLEETCOM_CAPTURE_FILE: assets.captureFile }, pinned };
  },

  captured: (source) => sessionStartId(textOf(source.captureFile)),

  exitHint(lines, env) {
    const word = env.CLAUDE_CODE_RESUME_HINT_COMMAND || "claude";
    const hints = textsAfter(lines, ["Resume this session with:"]).map(({ text }) =>
      text.startsWith(`${word} `) ? idAfterSelector(text, ["--resume"]) : null,
    );
    return lastHintId(hints);
  },

  fromStore({ cwd, spawnedAt, env, taken }) {
    const dir = join(claudeHome(env), "projects", claudeSlug(cwd));
    const ids = entriesOf(dir)
      .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
      .filter((e) => nearSpawn(createdMs(join(dir, e.name)) ?? Number.NaN, spawnedAt))
      .map((e) => e.name.slice(0, -".jsonl".length));
    return single(ids, taken);
  },
};
