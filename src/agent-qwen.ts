// Qwen Code: a new conversation is pinned with `--session-id`, resumed with `--resume <id>`, as
// Claude's are. Store: `<runtime dir>/projects/<cwd, every character outside [A-Za-z0-9] as '-'>/chats/<id>.jsonl`,
// the runtime dir `$QWEN_RUNTIME_DIR`, else its home `$QWEN_HOME`, else `~/.qwen`.
// A conversation is resumable once its file records a user message (Gemini, its ancestor, writes the
// file before any turn; no file is trusted for existing alone). Exit hint: `qwen --resume <id>`.
// Attention: Qwen runs Claude-shaped hooks (SessionStart, UserPromptSubmit, Stop with
// `last_assistant_message`, Notification, SessionEnd) from its settings files, concatenating each
// event's list over all of them, and reads the system settings file `QWEN_CODE_SYSTEM_SETTINGS_PATH`
// names with no ownership check (unlike Gemini). So the run's overlay of Claude's hooks goes there,
// adding to the user's hooks and hiding none of their settings; it is left out when the user names a
// system file of their own or has one at the default path, which the variable would hide.
import { type Env, homeDir } from "./paths.ts";
import { isAbsolute, join, resolve } from "node:path";
import { existsSync } from "node:fs";
import { createdMs, entriesOf, lastRecords, member, parsedLine, textOf } from "./agent-files.ts";
import { type AgentSignal, attentionMessage } from "./task-attention.ts";
import { claudeEventsFile, claudeSettings, claudeSignal, claudeSlug, sessionStartId } from "./agent-claude.ts";
import { type Agent, commandHints, lastHintId, nearSpawn, newUuid, shellQuote, single } from "./agent.ts";

export const QWEN_SETTINGS_FILE = "qwen-settings.json";

const SYSTEM_SETTINGS_ENV = "QWEN_CODE_SYSTEM_SETTINGS_PATH";

/** Qwen's own default system settings file: when it exists, fleetcom's overlay would hide it. */
const DEFAULT_SYSTEM_SETTINGS = process.platform === "darwin" ? "/Library/Application Support/QwenCode/settings.json" : "/etc/qwen-code/settings.json";

/** A directory Qwen takes from the environment: `~` is the home, a relative one is taken from the cwd Qwen runs in. */
function qwenPath(value: string, env: Env, cwd: string): string {
  if (value === "~" || value.startsWith("~/")) return join(homeDir(env), value.slice(1));
  return isAbsolute(value) ? value : resolve(cwd, value);
}

/** `$QWEN_HOME`, else `~/.qwen`. */
export function qwenHome(env: Env, cwd: string): string {
  return env.QWEN_HOME ? qwenPath(env.QWEN_HOME, env, cwd) : join(homeDir(env), ".qwen");
}

function chatsDir(env: Env, cwd: string): string {
  const runtime = env.QWEN_RUNTIME_DIR ? qwenPath(env.QWEN_RUNTIME_DIR, env, cwd) : qwenHome(env, cwd);
  return join(runtime, "projects", claudeSlug(cwd), "chats");
}

/** Whether a transcript's text records a user message: one JSON record per line. */
export function holdsUserMessage(text: string | null): boolean {
  return (text ?? "").split("\n").some((line) => member(parsedLine(line), "type") === "user");
}

/** The text of a transcript record that is Qwen's reply: `{type: "assistant", message: {parts: [{text}]}}`. */
export function qwenReply(record: unknown): string | null {
  if (member(record, "type") !== "assistant") return null;
  const parts = member(member(record, "message"), "parts");
  if (!Array.isArray(parts)) return null;
  const texts = parts.map((p) => member(p, "text")).filter((t): t is string => typeof t === "string" && t !== "");
  return texts.length === 0 ? null : texts.join("\n");
}

/**
 * Claude's reading of a hook payload, but for the `idle_prompt` Notification Qwen sends a moment
 * after every Stop ("Qwen Code is waiting for your input"): a wait for input whose message is left
 * to the store (its last reply), so it does not replace the reply Stop gave.
 */
export function qwenSignal(line: string): AgentSignal | null {
  const signal = claudeSignal(line);
  const idle = signal?.kind === "waiting" && member(parsedLine(line), "notification_type") === "idle_prompt";
  return idle ? { kind: "waiting", state: "input", message: null } : signal;
}

export const qwen: Agent = {
  name: "qwen",
  words: ["qwen"],
  selector: "--resume",
  envKeys: ["HOME", "QWEN_HOME", "QWEN_RUNTIME_DIR"],

  launchFlags: (launch) => (launch.id === null ? ["--session-id"] : []),

  instrument(launch, assets, env) {
    const pinned = launch.id ?? newUuid();
    const args = launch.id === null ? ["--session-id", shellQuote(pinned)] : [];
    if (env[SYSTEM_SETTINGS_ENV] || existsSync(DEFAULT_SYSTEM_SETTINGS)) return { args, env: {}, pinned };
    const settings = assets.asset(QWEN_SETTINGS_FILE, claudeSettings(), 0o600);
    return { args, env: { [SYSTEM_SETTINGS_ENV]: settings, FLEETCOM_CAPTURE_FILE: assets.captureFile }, pinned };
  },

  captured: (source) => sessionStartId(textOf(source.captureFile)),

  attentionFile: (assets) => claudeEventsFile(assets.captureFile),
  attentionSignal: qwenSignal,

  exitHint: (lines) => lastHintId(commandHints(lines, ["qwen"], ["--resume"])),

  // `qwen --resume <id>` of one it has no transcript for says "No saved session found with ID <id>".
  holds: (id, { cwd, env }) => holdsUserMessage(textOf(join(chatsDir(env, cwd), `${id}.jsonl`))),

  // A resumed Qwen at its prompt: its last reply, not the input box's placeholder.
  lastReply: (id, { cwd, env }) =>
    attentionMessage(
      lastRecords(join(chatsDir(env, cwd), `${id}.jsonl`))
        .map(qwenReply)
        .findLast((t) => t !== null) ?? null,
    ),

  fromStore({ cwd, spawnedAt, env, taken }) {
    const dir = chatsDir(env, cwd);
    const ids = entriesOf(dir)
      .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
      .filter((e) => nearSpawn(createdMs(join(dir, e.name)) ?? Number.NaN, spawnedAt) && holdsUserMessage(textOf(join(dir, e.name))))
      .map((e) => e.name.slice(0, -".jsonl".length));
    return single(ids, taken);
  },
};
