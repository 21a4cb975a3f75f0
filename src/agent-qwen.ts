// Qwen Code: a new conversation is pinned with `--session-id`, resumed with `--resume <id>`, as
// Claude's are. Store: `~/.qwen/projects/<cwd, every character outside [A-Za-z0-9] as '-'>/chats/<id>.jsonl`.
// A conversation is resumable once its file records a user message (Gemini, its ancestor, writes the
// file before any turn; no file is trusted for existing alone). Exit hint: `qwen --resume <id>`.
// Qwen has Claude-like hooks too, but no way to add them without editing the user's settings was
// tried against the real CLI, so it raises no attention of its own (the screen and the bell still do).
import { type Env, homeDir } from "./paths.ts";
import { join } from "node:path";
import { createdMs, entriesOf, member, parsedLine, textOf } from "./agent-files.ts";
import { claudeSlug } from "./agent-claude.ts";
import { type Agent, commandHints, lastHintId, nearSpawn, SESSION_ID_PIN, single } from "./agent.ts";

function chatsDir(env: Env, cwd: string): string {
  return join(homeDir(env), ".qwen", "projects", claudeSlug(cwd), "chats");
}

/** Whether a transcript's text records a user message: one JSON record per line. */
export function holdsUserMessage(text: string | null): boolean {
  return (text ?? "").split("\n").some((line) => member(parsedLine(line), "type") === "user");
}

export const qwen: Agent = {
  name: "qwen",
  words: ["qwen"],
  selector: "--resume",
  envKeys: ["HOME"],

  ...SESSION_ID_PIN,

  captured: () => null,

  exitHint: (lines) => lastHintId(commandHints(lines, ["qwen"], ["--resume"])),

  // `qwen --resume <id>` of one it has no transcript for says "No saved session found with ID <id>".
  holds: (id, { cwd, env }) => holdsUserMessage(textOf(join(chatsDir(env, cwd), `${id}.jsonl`))),

  fromStore({ cwd, spawnedAt, env, taken }) {
    const dir = chatsDir(env, cwd);
    const ids = entriesOf(dir)
      .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
      .filter((e) => nearSpawn(createdMs(join(dir, e.name)) ?? Number.NaN, spawnedAt) && holdsUserMessage(textOf(join(dir, e.name))))
      .map((e) => e.name.slice(0, -".jsonl".length));
    return single(ids, taken);
  },
};
