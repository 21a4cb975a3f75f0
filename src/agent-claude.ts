// Claude Code: a new conversation is pinned with `--session-id`, and a settings overlay (merged by
// Claude on top of the user's own settings) adds a SessionStart hook that copies its payload to the
// run's capture file, so `/clear`, `/resume` and compaction are followed. The same overlay's
// UserPromptSubmit, Stop, Notification and SessionEnd hooks append their payloads to the run's
// events file, which is how fleetcom knows Claude waits for its user (task-attention.ts). Exit hint:
// `Resume this session with:` then `claude … --resume <id>`. Store: `<claude home>/projects/<slug>/<id>.jsonl`.
// Live registry (newer Claude): `<claude home>/sessions/<pid>.json` per running process, with the
// conversation it holds (`sessionId`, updated in place on /clear and /resume) and `status` busy, idle
// or waiting (`waitingFor`: "approve Bash", "input needed", "dialog open"…).
import { type Env, homeDir } from "./paths.ts";
import { join } from "node:path";
import { entriesOf, createdMs, member, parsedLine, textOf } from "./agent-files.ts";
import { isFile } from "./files.ts";
import { type AgentSignal, attentionMessage } from "./task-attention.ts";
import { type Agent, type LiveState, idAfterSelector, lastHintId, nearSpawn, newUuid, shellQuote, single, textsAfter, uuidOrNull } from "./agent.ts";

export const CLAUDE_SETTINGS_FILE = "claude-settings.json";

// Written to a temporary name and renamed, so a reader never sees half a payload; no output, since
// a SessionStart hook's stdout becomes part of Claude's context.
export const CAPTURE_HOOK = `umask 077; f="$FLEETCOM_CAPTURE_FILE"; [ -n "$f" ] || exit 0; cat > "$f.$$.tmp" && mv -f "$f.$$.tmp" "$f"`;

// One line per event (JSON holds raw newlines only as whitespace, so dropping them keeps it valid),
// appended with one write; beside the capture file, named from it. Prints nothing: a
// UserPromptSubmit hook's stdout becomes part of Claude's context.
export const EVENT_HOOK = `umask 077; f="$FLEETCOM_CAPTURE_FILE"; [ -n "$f" ] || exit 0; p=$(tr -d '\\r\\n'); printf '%s\\n' "$p" >> "\${f%.json}.events"`;

/** Hook commands of the overlay, by Claude event name. */
export const CLAUDE_HOOKS: Record<string, string> = {
  SessionStart: CAPTURE_HOOK,
  UserPromptSubmit: EVENT_HOOK,
  Stop: EVENT_HOOK,
  Notification: EVENT_HOOK,
  SessionEnd: EVENT_HOOK,
};

/** `<dir>/task-<id>-<run>.events`: where the event hook writes, named from the capture file. */
export function claudeEventsFile(captureFile: string): string {
  return `${captureFile.replace(/\.json$/, "")}.events`;
}

/**
 * What one hook payload says: a prompt submitted means working; Stop means waiting for input, with
 * Claude's last reply as the message when the payload carries it (`last_assistant_message`); a
 * Notification is a permission prompt (its `notification_type`, or for older versions without one,
 * a message about permission) or otherwise a wait for input (idle, a question), except the
 * notice that a login worked; SessionEnd ends the wait.
 */
export function claudeSignal(line: string): AgentSignal | null {
  const payload = parsedLine(line);
  if (payload === undefined) return null;
  const message = attentionMessage(member(payload, "message"));
  switch (member(payload, "hook_event_name")) {
    case "UserPromptSubmit":
      return { kind: "working" };
    case "Stop":
      return { kind: "waiting", state: "input", message: attentionMessage(member(payload, "last_assistant_message")) };
    case "SessionEnd":
      return { kind: "ended" };
    case "Notification": {
      const type = member(payload, "notification_type");
      if (type === "auth_success") return null;
      const permission = type === "permission_prompt" || (type === undefined && /permission/i.test(message ?? ""));
      return { kind: "waiting", state: permission ? "permission" : "input", message };
    }
    default:
      return null;
  }
}

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
  return env.CLAUDE_CONFIG_DIR || join(homeDir(env), ".claude");
}

/** `<claude home>/projects/<slug>/<id>.jsonl`: the conversation's transcript. */
export function claudeTranscript(env: Env, cwd: string, id: string): string {
  return join(claudeHome(env), "projects", claudeSlug(cwd), `${id}.jsonl`);
}

/** Claude's live registry entry: its conversation, and while it waits, what for. */
export function claudeLiveState(entry: unknown): LiveState | null {
  if (typeof entry !== "object" || entry === null) return null;
  const id = uuidOrNull(member(entry, "sessionId"));
  const waitingFor = member(entry, "status") === "waiting" ? attentionMessage(member(entry, "waitingFor")) : null;
  return { id, preview: waitingFor === null ? null : waitingPreview(waitingFor) };
}

function waitingPreview(waitingFor: string): string {
  if (waitingFor.startsWith("approve ")) return `awaiting approval: ${waitingFor.slice("approve ".length)}`;
  if (waitingFor === "input needed") return "awaiting input";
  return `waiting: ${waitingFor}`;
}

export const claude: Agent = {
  name: "claude",
  words: ["claude"],
  selector: "--resume",
  envKeys: ["HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_RESUME_HINT_COMMAND"],

  launchFlags: (launch) => (launch.id === null ? ["--session-id", "--settings"] : ["--settings"]),

  instrument(launch, assets) {
    const settings = assets.asset(CLAUDE_SETTINGS_FILE, claudeSettings(), 0o600);
    const pinned = launch.id ?? newUuid();
    const pin = launch.id === null ? ["--session-id", shellQuote(pinned)] : [];
    return { args: [...pin, "--settings", shellQuote(settings)], env: { FLEETCOM_CAPTURE_FILE: assets.captureFile }, pinned };
  },

  captured: (source) => sessionStartId(textOf(source.captureFile)),

  liveDir: (env) => join(claudeHome(env), "sessions"),
  liveState: claudeLiveState,

  attentionFile: (assets) => claudeEventsFile(assets.captureFile),
  attentionSignal: claudeSignal,

  exitHint(lines, env) {
    const word = env.CLAUDE_CODE_RESUME_HINT_COMMAND || "claude";
    const hints = textsAfter(lines, ["Resume this session with:"]).map(({ text }) =>
      text.startsWith(`${word} `) ? idAfterSelector(text, ["--resume"]) : null,
    );
    return lastHintId(hints);
  },

  // Claude writes the transcript at the first prompt (and at once after /clear); until then
  // `--resume <id>` says "No conversation found with session ID".
  holds: (id, { cwd, env }) => isFile(claudeTranscript(env, cwd, id)),

  fromStore({ cwd, spawnedAt, env, taken }) {
    const dir = join(claudeHome(env), "projects", claudeSlug(cwd));
    const ids = entriesOf(dir)
      .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
      .filter((e) => nearSpawn(createdMs(join(dir, e.name)) ?? Number.NaN, spawnedAt))
      .map((e) => e.name.slice(0, -".jsonl".length));
    return single(ids, taken);
  },
};
