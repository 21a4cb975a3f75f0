// Gemini CLI: a new conversation is pinned with `--session-id`, resumed with `--resume <id>`.
// Store: `~/.gemini/tmp/<project id>/chats/session-<YYYY-MM-DDThh-mm>-<id first 8>.jsonl`, the
// project id from `~/.gemini/projects.json` (cwd → id). The file is written when the TUI starts,
// before any turn, and Gemini resumes only a session with an exchange in it (`--resume` of one
// without says "No previous sessions found for this project.", exit 42): so the store holds a
// conversation only once its file records a user message and Gemini's reply (B1).
// Exit hint, in a box: `│  To resume this session: gemini --resume <id>  │`.
// Attention: Gemini takes Claude-shaped hooks (BeforeAgent, AfterAgent, Notification, SessionEnd)
// from its settings files; it has no flag naming one, but `GEMINI_CLI_SYSTEM_SETTINGS_PATH` names
// the system settings file, merged over the user's. fleetcom points it at its own overlay only when
// the user has none (the variable unset and no file at the default path), so nothing of theirs is hidden.
import { type Env, homeDir } from "./paths.ts";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { contentText, entriesOf, createdMs, firstRecord, lastRecords, member, parsedLine, textOf } from "./agent-files.ts";
import { type AgentSignal, attentionMessage } from "./task-attention.ts";
import { CAPTURE_HOOK, EVENT_HOOK, claudeEventsFile, claudeSettings, sessionStartId } from "./agent-claude.ts";
import { type Agent, commandHints, isUuid, lastHintId, nearSpawn, newUuid, shellQuote, single } from "./agent.ts";

export const GEMINI_SETTINGS_FILE = "gemini-settings.json";

const SYSTEM_SETTINGS_ENV = "GEMINI_CLI_SYSTEM_SETTINGS_PATH";

/** Gemini's own default system settings file: when it exists, fleetcom's overlay would hide it. */
const DEFAULT_SYSTEM_SETTINGS = process.platform === "darwin" ? "/Library/Application Support/GeminiCli/settings.json" : "/etc/gemini-cli/settings.json";

/** Hook commands of the overlay, by Gemini event name: the same scripts as Claude's. */
export const GEMINI_HOOKS: Record<string, string> = {
  SessionStart: CAPTURE_HOOK,
  BeforeAgent: EVENT_HOOK,
  AfterAgent: EVENT_HOOK,
  Notification: EVENT_HOOK,
  SessionEnd: EVENT_HOOK,
};

/**
 * What one hook payload says: a prompt sent means working; AfterAgent means waiting for input, with
 * Gemini's reply (`prompt_response`) as the message; a Notification is a permission prompt when its
 * type is `ToolPermission`, else a wait for input; SessionEnd ends the wait.
 */
export function geminiSignal(line: string): AgentSignal | null {
  const payload = parsedLine(line);
  if (payload === undefined) return null;
  switch (member(payload, "hook_event_name")) {
    case "BeforeAgent":
      return { kind: "working" };
    case "AfterAgent":
      return { kind: "waiting", state: "input", message: attentionMessage(member(payload, "prompt_response")) };
    case "Notification": {
      const permission = member(payload, "notification_type") === "ToolPermission";
      return { kind: "waiting", state: permission ? "permission" : "input", message: attentionMessage(member(payload, "message")) };
    }
    case "SessionEnd":
      return { kind: "ended" };
    default:
      return null;
  }
}

function geminiHome(env: Env): string {
  return join(homeDir(env), ".gemini");
}

// A project id names a directory under tmp/: a single plain path component, nothing else.
const PROJECT_ID = /^(?!\.\.?$)[A-Za-z0-9._-]+$/;

/** The project id `~/.gemini/projects.json` gives the cwd (`{"projects": {cwd: id}}`, or the map alone), or null. */
export function geminiProjectId(env: Env, cwd: string): string | null {
  let registry: unknown;
  try {
    registry = JSON.parse(textOf(join(geminiHome(env), "projects.json")) ?? "null");
  } catch {
    return null;
  }
  const projects = member(registry, "projects") ?? registry;
  const id = member(projects, cwd);
  return typeof id === "string" && PROJECT_ID.test(id) ? id : null;
}

function chatsDir(env: Env, cwd: string): string | null {
  const project = geminiProjectId(env, cwd);
  return project === null ? null : join(geminiHome(env), "tmp", project, "chats");
}

/** A session file's records: its first names the session, and an exchange is a user message and a reply. */
export function holdsExchange(text: string | null): boolean {
  const types = new Set((text ?? "").split("\n").map((line) => recordType(line)));
  return types.has("user") && types.has("gemini");
}

function recordType(line: string): unknown {
  return member(parsedLine(line), "type");
}

/** The session files in the chats directory whose first record names a strict UUID, by that ID. */
function sessionFiles(dir: string, id8 = ""): { id: string; path: string }[] {
  return entriesOf(dir)
    .filter((e) => e.isFile() && e.name.startsWith("session-") && e.name.endsWith(`${id8}.jsonl`))
    .map((e) => ({ id: member(firstRecord(join(dir, e.name)), "sessionId"), path: join(dir, e.name) }))
    .filter((f): f is { id: string; path: string } => isUuid(f.id));
}

export const gemini: Agent = {
  name: "gemini",
  words: ["gemini"],
  selector: "--resume",
  envKeys: ["HOME"],

  launchFlags: (launch) => (launch.id === null ? ["--session-id"] : []),

  instrument(launch, assets, env) {
    const pinned = launch.id ?? newUuid();
    const args = launch.id === null ? ["--session-id", shellQuote(pinned)] : [];
    if (env[SYSTEM_SETTINGS_ENV] || existsSync(DEFAULT_SYSTEM_SETTINGS)) return { args, env: {}, pinned };
    const settings = assets.asset(GEMINI_SETTINGS_FILE, claudeSettings(GEMINI_HOOKS), 0o600);
    return { args, env: { [SYSTEM_SETTINGS_ENV]: settings, FLEETCOM_CAPTURE_FILE: assets.captureFile }, pinned };
  },

  captured: (source) => sessionStartId(textOf(source.captureFile)),

  attentionFile: (assets) => claudeEventsFile(assets.captureFile),
  attentionSignal: geminiSignal,

  exitHint: (lines) => lastHintId(commandHints(lines, ["gemini"], ["--resume"])),

  holds(id, { cwd, env }) {
    const dir = chatsDir(env, cwd);
    return dir !== null && sessionFiles(dir, id.slice(0, 8)).some((f) => f.id === id && holdsExchange(textOf(f.path)));
  },

  // A resumed Gemini at its prompt: its last reply, not the input box's placeholder.
  lastReply(id, { cwd, env }) {
    const dir = chatsDir(env, cwd);
    const file = dir === null ? undefined : sessionFiles(dir, id.slice(0, 8)).find((f) => f.id === id);
    if (file === undefined) return null;
    const replies = lastRecords(file.path).filter((r) => member(r, "type") === "gemini");
    return attentionMessage(contentText(member(replies.at(-1), "content")));
  },

  fromStore({ cwd, spawnedAt, env, taken }) {
    const dir = chatsDir(env, cwd);
    if (dir === null) return null;
    const ids = sessionFiles(dir)
      .filter((f) => nearSpawn(createdMs(f.path) ?? Number.NaN, spawnedAt) && holdsExchange(textOf(f.path)))
      .map((f) => f.id);
    return single(ids, taken);
  },
};
