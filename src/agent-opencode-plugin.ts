// opencode's attention (agents.md, opencode): opencode runs plugins (JavaScript modules whose `event`
// function receives every event of its bus) named in the `plugin` list of its config, and it reads
// one more config from `OPENCODE_CONFIG_CONTENT`, adding that one's plugins to those of the user's
// files. So each run gets that variable naming fleetcom's plugin, a file in the supervisor's
// namespace; nothing is written into the user's config. The plugin appends the events that say the
// agent waits or works, one JSON line each, to the run's events file (named from
// `FLEETCOM_CAPTURE_FILE`, as Claude's hooks do): `session.idle` (the turn ended: waiting for
// input, with the session's last reply), `permission.asked` (waiting for permission), `permission.replied` and a busy
// `session.status` (working). A sub-agent's session going idle is not told apart.
import { member, parsedLine } from "./agent-files.ts";
import { type AgentSignal, attentionMessage } from "./task-attention.ts";
import type { RunAssets } from "./agent.ts";
import type { Env } from "./paths.ts";

export const OPENCODE_PLUGIN_FILE = "opencode-attention.js";

const CONFIG_CONTENT = "OPENCODE_CONFIG_CONTENT";

// Runs inside opencode (Bun): plain JavaScript, no imports but node's own, nothing printed. It
// keeps the last finished text part of each session's assistant messages (their roles from
// `message.updated`) and writes it as `reply` with the session's `session.idle`.
export const OPENCODE_PLUGIN = `import { appendFileSync } from "node:fs";
const WANTED = new Set(["session.idle", "session.status", "permission.asked", "permission.replied"]);
const roles = new Map();
const replies = new Map();
function remember(event) {
  const p = event.properties || {};
  if (event.type === "message.updated" && p.info) roles.set(p.info.id, p.info.role);
  const part = p.part;
  if (event.type === "message.part.updated" && part && part.type === "text" && roles.get(part.messageID) === "assistant" && part.text) replies.set(part.sessionID, part.text);
}
export const FleetcomAttention = async () => ({
  event: async ({ event }) => {
    const capture = process.env.FLEETCOM_CAPTURE_FILE;
    if (!capture || !event) return;
    remember(event);
    if (!WANTED.has(event.type)) return;
    const reply = event.type === "session.idle" ? replies.get((event.properties || {}).sessionID) : undefined;
    try {
      appendFileSync(capture.replace(/\\.json$/, "") + ".events", JSON.stringify({ type: event.type, properties: event.properties, reply }) + "\\n", { mode: 0o600 });
    } catch {}
  },
});
`;

/**
 * The run's `OPENCODE_CONFIG_CONTENT`: the user's own (a JSON object) with fleetcom's plugin added
 * to its `plugin` list; null when theirs is something fleetcom cannot add to exactly (not a JSON
 * object, or a `plugin` that is not a list), which is then left alone.
 */
export function opencodeConfigContent(env: Env, pluginPath: string): string | null {
  const theirs = env[CONFIG_CONTENT];
  const config = theirs ? parsedLine(theirs) : {};
  if (typeof config !== "object" || config === null || Array.isArray(config)) return null;
  const plugins = member(config, "plugin") ?? [];
  if (!Array.isArray(plugins)) return null;
  return JSON.stringify({ ...config, plugin: [...plugins, fileUrl(pluginPath)] });
}

/** The environment of a run: the config naming the plugin, and the capture file it writes beside; none when the user's config cannot take it. */
export function opencodeAttentionEnv(assets: RunAssets, env: Env): Record<string, string> {
  const plugin = assets.asset(OPENCODE_PLUGIN_FILE, OPENCODE_PLUGIN, 0o600);
  const content = opencodeConfigContent(env, plugin);
  return content === null ? {} : { [CONFIG_CONTENT]: content, FLEETCOM_CAPTURE_FILE: assets.captureFile };
}

/** What one event line says: the session idle waits for input, a permission asked waits for it (its tool and patterns as the message), a reply or a busy session works. */
export function opencodeSignal(line: string): AgentSignal | null {
  const event = parsedLine(line);
  const properties = member(event, "properties");
  switch (member(event, "type")) {
    case "session.idle":
      return { kind: "waiting", state: "input", message: attentionMessage(member(event, "reply")) };
    case "permission.asked":
      return { kind: "waiting", state: "permission", message: permissionMessage(properties) };
    case "permission.replied":
      return { kind: "working" };
    case "session.status":
      return member(member(properties, "status"), "type") === "busy" ? { kind: "working" } : null;
    default:
      return null;
  }
}

function permissionMessage(properties: unknown): string | null {
  const tool = member(properties, "permission");
  const patterns = member(properties, "patterns");
  const what = Array.isArray(patterns) ? patterns.filter((p) => typeof p === "string").join(", ") : "";
  return attentionMessage(typeof tool === "string" ? (what === "" ? tool : `${tool}: ${what}`) : what);
}

// What node:url encodes in a path that the URL's own path setter leaves as it is.
const ENCODED_FIRST = /[%\\\n\r\t[\]|~]/g;

/**
 * The `file://` URL of an absolute path, as node:url's pathToFileURL writes it under Bun
 * (test/unit/agent-opencode.test.ts holds the two equal): the characters it encodes that the URL's own
 * path setter leaves are encoded first, `%` among them. Not node:url itself: importing it costs every
 * daemon CPU at start, before its first reply.
 */
export function fileUrl(path: string): string {
  const url = new URL("file://");
  url.pathname = path.replace(ENCODED_FIRST, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
  return url.href;
}
