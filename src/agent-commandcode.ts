// Command Code: no flag chooses or reports the ID, but at start-up it creates its scratchpad at
// `$COMMANDCODE_SCRATCHPAD_BASE/commandcode-<uid>/<cwd slug>/<id>/scratchpad`; a private base per
// run makes the ID directory there this task's conversation. Exit hint: `Resume this session with:`
// then `<word as invoked> --resume <id>`. Store: `~/.commandcode/projects/<slug>/<id>.jsonl`.
// Attention: Command Code runs Claude-shaped hooks from `~/.commandcode/settings.json` only (no flag
// or variable adds one), and that file is the user's. So each run gets `FLEETCOM_CAPTURE_FILE`, and a
// Stop hook the user puts there once (agents.md gives it: Claude's event hook, which does nothing
// outside fleetcom) lands in the run's events file, read as Claude's. 1.64 has no UserPromptSubmit
// (its events: PreToolUse, PostToolUse, Stop, SessionStart, SessionEnd), and runs Stop just before
// it writes the turn to the transcript, whose last reply is the wait's message: so the wait is held
// until the transcript changes (replyWrittenAfterHook).
import { createRequire } from "node:module";
import { type Env, homeDir } from "./paths.ts";
import { isAbsolute, join } from "node:path";
import { contentText, entriesOf, firstRecord, lastRecords, member, modifiedMs } from "./agent-files.ts";
import { attentionMessage } from "./task-attention.ts";
import { isFile } from "./files.ts";
import { claudeEventsFile, claudeSignal } from "./agent-claude.ts";
import { type Agent, isUuid, lastHintId, single, textsAfter } from "./agent.ts";

const WORDS = ["command-code", "cmd", "cmdc", "commandcode"];

/**
 * The project folder Command Code names for a cwd: `@sindresorhus/slugify` of it, as Command Code
 * itself computes it (`/src/MyApp` → `src-my-app`, `R&D` → `r-and-d`, `Größe` → `groesse`,
 * `API2Server` → `api-2-server`). A rule of fleetcom's own differed on exactly those names, and
 * their conversations were never found.
 */
export function commandCodeSlug(cwd: string): string {
  return loadSlugify()(cwd);
}

let slugify: ((text: string) => string) | undefined;

/**
 * The slugify package, loaded on first use: evaluating it (and its transliteration tables) cost every
 * starting daemon and client CPU (docs/benchmarks.md), though only a Command Code task reads it. The bundler
 * keeps a `require`d module in the binary and evaluates it when called (term-screen.ts loadXterm).
 */
function loadSlugify(): (text: string) => string {
  // `require("…")` written out, so that the bundler sees it and puts the package in the binary.
  slugify ??= (
    (typeof require === "function" ? require("@sindresorhus/slugify") : createRequire(import.meta.url)("@sindresorhus/slugify")) as {
      default: (text: string) => string;
    }
  ).default;
  return slugify;
}

/**
 * The conversation directory under a private scratch base: the one UUID-named directory two levels
 * below `commandcode-<uid>/`, or, after a new conversation inside the agent, the newest of them.
 */
export function scratchpadId(base: string, uid: number): string | null {
  const root = join(base, `commandcode-${uid}`);
  const found: { id: string; time: number }[] = [];
  for (const slug of entriesOf(root).filter((e) => e.isDirectory())) {
    for (const e of entriesOf(join(root, slug.name))) {
      const time = modifiedMs(join(root, slug.name, e.name));
      if (e.isDirectory() && isUuid(e.name) && time !== null) found.push({ id: e.name, time });
    }
  }
  return newestOnly(found);
}

/** The newest entry's ID, or null when there is none or the newest is tied: no guessing. */
export function newestOnly(found: readonly { id: string; time: number }[]): string | null {
  const sorted = [...found].sort((a, b) => b.time - a.time);
  if (sorted.length === 0 || (sorted.length > 1 && sorted[1]!.time === sorted[0]!.time)) return null;
  return isUuid(sorted[0]!.id) ? sorted[0]!.id : null;
}

/** The project transcript's first record names this ID, the task's cwd and a time at or after the spawn. */
export function transcriptBelongsTo(first: unknown, id: string, cwd: string, spawnedAt: Date): boolean {
  const time = Date.parse(String(member(first, "timestamp")));
  return member(first, "type") === "session" && member(first, "id") === id && member(first, "cwd") === cwd && time >= spawnedAt.getTime();
}

/**
 * The text of a transcript record that is Command Code's reply. Its record shape has not been seen
 * from the real CLI, so both shapes its Claude lineage suggests are read: `{type: "assistant",
 * message: {content}}` and `{role: "assistant", content}`.
 */
export function commandCodeReply(record: unknown): string | null {
  const message = member(record, "message");
  if (member(record, "type") === "assistant" || member(message, "role") === "assistant") return contentText(member(message, "content") ?? message);
  if (member(record, "role") === "assistant") return contentText(member(record, "content"));
  return null;
}

/** `~/.commandcode/projects/<slug>`: where the project's transcripts are. */
function projectDir(env: Env, cwd: string): string {
  return join(homeDir(env), ".commandcode", "projects", commandCodeSlug(cwd));
}

export const commandCode: Agent = {
  name: "command-code",
  words: WORDS,
  selector: "--resume",
  envKeys: ["HOME"],

  // Only environment: nothing on the command line to check against the binary.
  launchFlags: () => [],

  instrument(launch, assets) {
    if (!isAbsolute(assets.scratchBase)) return null;
    const base = assets.privateDir(assets.scratchBase);
    return { args: [], env: { COMMANDCODE_SCRATCHPAD_BASE: base, FLEETCOM_CAPTURE_FILE: assets.captureFile }, pinned: launch.id };
  },

  captured: ({ scratchBase, uid }) => scratchpadId(scratchBase, uid),

  attentionFile: (assets) => claudeEventsFile(assets.captureFile),
  attentionSignal: claudeSignal,

  exitHint(lines) {
    const hints = textsAfter(lines, ["Resume this session with:"]).map(({ text }) => {
      const words = text.split(/\s+/);
      const word = words[0]!.slice(words[0]!.lastIndexOf("/") + 1);
      return words.length === 3 && WORDS.includes(word) && words[1] === "--resume" ? words[2]! : null;
    });
    return lastHintId(hints);
  },

  // The transcript is written when the first turn completes; until then `--resume <id>` says
  // 'No session named "<id>" found.'
  holds: (id, { cwd, env }) => isFile(join(projectDir(env, cwd), `${id}.jsonl`)),

  replyWrittenAfterHook: (id, { cwd, env }) => join(projectDir(env, cwd), `${id}.jsonl`),

  lastReply: (id, { cwd, env }) =>
    attentionMessage(
      lastRecords(join(projectDir(env, cwd), `${id}.jsonl`))
        .map(commandCodeReply)
        .findLast((t) => t !== null) ?? null,
    ),

  fromStore({ cwd, spawnedAt, env, taken }) {
    const dir = projectDir(env, cwd);
    const ids = entriesOf(dir)
      .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
      .map((e) => e.name.slice(0, -".jsonl".length))
      .filter((id) => isUuid(id) && transcriptBelongsTo(firstRecord(join(dir, `${id}.jsonl`)), id, cwd, spawnedAt));
    return single(ids, taken);
  },
};
