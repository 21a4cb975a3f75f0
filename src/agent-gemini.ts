// Gemini CLI: a new conversation is pinned with `--session-id`, resumed with `--resume <id>`.
// Its folder is `$GEMINI_CLI_HOME/.gemini`, default `~/.gemini`. Store:
// `<folder>/tmp/<project id>/chats/session-<YYYY-MM-DDThh-mm>-<id first 8>.jsonl`, the project id
// from `<folder>/projects.json` (cwd → id) or the `.project_root` file naming the cwd in
// `tmp/<project id>/`. The file is written when the TUI starts, before any turn, and Gemini resumes
// only a session with an exchange in it (`--resume` of one without says "No previous sessions found
// for this project.", exit 42): so the store holds a conversation only once its file records a user
// message and Gemini's reply (B1). Every resume writes one more header-only file of the same session
// while the turns go on in the first, so a reply is read from the file that holds the exchange.
// Exit hint, in a box: `│  To resume this session: gemini --resume <id>  │`.
// Attention: Gemini runs Claude-shaped hooks (BeforeAgent, AfterAgent, Notification, SessionEnd).
// fleetcom's come in an extension of a private overlay home (agent-gemini-home.ts), the one channel
// Gemini 0.61 takes from a normal user without fleetcom writing the user's own files.
import { type Env, homeDir } from "./paths.ts";
import { isAbsolute, join, resolve } from "node:path";
import { contentText, entriesOf, createdMs, firstRecord, lastRecords, member, modifiedMs, parsedLine, textOf } from "./agent-files.ts";
import { type AgentSignal, attentionMessage } from "./task-attention.ts";
import { CAPTURE_HOOK, EVENT_HOOK, claudeEventsFile, sessionStartId } from "./agent-claude.ts";
import { makeGeminiHome } from "./agent-gemini-home.ts";
import { type Agent, commandHints, isUuid, lastHintId, nearSpawn, newUuid, shellQuote, single } from "./agent.ts";

/** Hook commands of fleetcom's extension, by Gemini event name: the same scripts as Claude's. */
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

/** The home Gemini takes its folder from: `$GEMINI_CLI_HOME` (taken from the cwd Gemini runs in when relative), else HOME. */
function geminiUserHome(env: Env, cwd: string): string {
  const chosen = env.GEMINI_CLI_HOME;
  return chosen ? (isAbsolute(chosen) ? chosen : resolve(cwd, chosen)) : homeDir(env);
}

/** The user's Gemini folder, `<home>/.gemini`. */
export function geminiHome(env: Env, cwd = "/"): string {
  return join(geminiUserHome(env, cwd), ".gemini");
}

// A project id names a directory under tmp/: a single plain path component, nothing else.
const PROJECT_ID = /^(?!\.\.?$)[A-Za-z0-9._-]+$/;

/**
 * The cwd's project id: the one `projects.json` gives it (`{"projects": {cwd: id}}`, or the map
 * alone) unless that project's `.project_root` names another directory, else the one project whose
 * `.project_root` names the cwd (Gemini's own rule of ownership); null when neither says.
 */
export function geminiProjectId(env: Env, cwd: string): string | null {
  const folder = geminiHome(env, cwd);
  const owner = (id: string) => textOf(join(folder, "tmp", id, ".project_root"))?.trim() ?? null;
  const listed = member(member(registryOf(folder), "projects") ?? registryOf(folder), cwd);
  if (typeof listed === "string" && PROJECT_ID.test(listed) && (owner(listed) ?? cwd) === cwd) return listed;
  const marked = entriesOf(join(folder, "tmp")).filter((e) => e.isDirectory() && PROJECT_ID.test(e.name) && owner(e.name) === cwd);
  return marked.length === 1 ? marked[0]!.name : null;
}

function registryOf(folder: string): unknown {
  try {
    return JSON.parse(textOf(join(folder, "projects.json")) ?? "null");
  } catch {
    return null;
  }
}

function chatsDir(env: Env, cwd: string): string | null {
  const project = geminiProjectId(env, cwd);
  return project === null ? null : join(geminiHome(env, cwd), "tmp", project, "chats");
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
  envKeys: ["HOME", "GEMINI_CLI_HOME"],

  launchFlags: (launch) => (launch.id === null ? ["--session-id"] : []),

  // The overlay home for this run, beside its capture file (so it goes with the task).
  instrument(launch, assets, env, cwd) {
    const pinned = launch.id ?? newUuid();
    const args = launch.id === null ? ["--session-id", shellQuote(pinned)] : [];
    const userHome = geminiUserHome(env, cwd ?? "/");
    let overlay: string;
    try {
      overlay = makeGeminiHome(
        assets.privateDir(`${assets.captureFile.replace(/\.json$/, "")}.gemini-home`),
        join(userHome, ".gemini"),
        join(userHome, ".agents"),
        GEMINI_HOOKS,
      );
    } catch (error) {
      // The pin still holds the conversation; only the hooks are lost.
      return { args, env: {}, pinned, warning: `no hooks: cannot make its overlay home: ${(error as Error)?.message ?? error}` };
    }
    // Trust the user gives a folder inside the run is written by rename: to their own file, not the overlay's link.
    const trusted = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH ? {} : { GEMINI_CLI_TRUSTED_FOLDERS_PATH: join(userHome, ".gemini", "trustedFolders.json") };
    return { args, env: { GEMINI_CLI_HOME: overlay, ...trusted, FLEETCOM_CAPTURE_FILE: assets.captureFile }, pinned };
  },

  captured: (source) => sessionStartId(textOf(source.captureFile)),

  attentionFile: (assets) => claudeEventsFile(assets.captureFile),
  attentionSignal: geminiSignal,

  exitHint: (lines) => lastHintId(commandHints(lines, ["gemini"], ["--resume"])),

  holds(id, { cwd, env }) {
    const dir = chatsDir(env, cwd);
    return dir !== null && sessionFiles(dir, id.slice(0, 8)).some((f) => f.id === id && holdsExchange(textOf(f.path)));
  },

  // A resumed Gemini at its prompt: its last reply, not the input box's placeholder. Of the session's
  // files (one more per resume, with no exchange), the one that holds its replies, whatever the
  // directory's order; should several, the most recently written.
  lastReply(id, { cwd, env }) {
    const dir = chatsDir(env, cwd);
    const files = dir === null ? [] : sessionFiles(dir, id.slice(0, 8)).filter((f) => f.id === id);
    const replies = files
      .map((f) => ({ replies: lastRecords(f.path).filter((r) => member(r, "type") === "gemini"), time: modifiedMs(f.path) ?? 0 }))
      .filter((f) => f.replies.length > 0)
      .sort((a, b) => b.time - a.time)[0]?.replies;
    return attentionMessage(contentText(member(replies?.at(-1), "content")));
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
