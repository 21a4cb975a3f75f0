// Agent conversations (agents.md): which task runs which supported agent, and which conversation it
// is in, so a save, a recovery snapshot and a rerun bring back the same conversation.
//
// SECURITY INVARIANT: every conversation ID this module or an agent module returns is spliced into
// a shell command. Only strings that pass the agent's strict check may ever be returned: `isUuid`
// (36 characters, lowercase hex in 8-4-4-4-12 groups), for opencode `isOpencodeId` (`ses_` and 26
// letters or digits), or a declared agent's own (config-agents.ts `idCheck`: never wider than a
// plain word); anything else from any channel (capture files, exit text, stores, the user's own
// command) is ignored, never interpolated or "cleaned up".
//
// This file holds the interface each agent fills in, the UUID check, command detection, the resume
// form and the precedence of evidence. It does no I/O. One file per agent (agent-<name>.ts) holds
// what is specific to that agent; agent-run.ts lists them and does the I/O around them.
import type { AgentSignal } from "./task-attention.ts";
import type { Env } from "./paths.ts";
import type { UsageShape } from "./config-agents.ts";
import { shellQuote } from "./text-shell.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** The value itself when it is a strict UUID, else null: the one gate every ID passes through. */
export function uuidOrNull(value: unknown): string | null {
  return isUuid(value) ? value : null;
}

const OPENCODE_ID = /^ses_[0-9A-Za-z]{26}$/;

/** opencode's session IDs (`ses_dcdea58c7ffeNrEvGBEzdnCCSL`): not UUIDs, and as strict (letters and digits only). */
export function isOpencodeId(value: unknown): value is string {
  return typeof value === "string" && OPENCODE_ID.test(value);
}

/** A strict conversation ID check: what an agent's IDs look like, and nothing a shell would read as more than a word. */
export type IdCheck = (value: unknown) => value is string;

/** The agent's own ID check: UUIDs unless it names another. */
export function idCheckOf(agent: Agent): IdCheck {
  return agent.isId ?? isUuid;
}

/** A random (version 4) UUID for pinning a new conversation at spawn. */
export function newUuid(): string {
  return crypto.randomUUID();
}

/** Quotes a word for `sh` so it is taken literally (text-shell.ts). */
export { shellQuote };

/** Where a run of an agent keeps its capture assets; made by the supervisor (agent-namespace.ts). */
export interface RunAssets {
  /** The supervisor's private directory (0700). */
  dir: string;
  /** `<dir>/task-<id>-<run>.json`: this run's capture file. */
  captureFile: string;
  /** `<dir>/cc-<id>-<run>`: this run's private scratch base (created by the agent that needs it). */
  scratchBase: string;
  /** Writes a supervisor-wide asset once (0600 files, 0700 scripts) and returns its path. */
  asset(name: string, content: string, mode: number): string;
  /** Creates a private directory (0700). */
  privateDir(path: string): string;
}

/** What a run adds to the string handed to `$SHELL -c`, and the ID it pins, if any. */
export interface Instrumentation {
  /** Extra words, already quoted for sh, inserted right after the program word. */
  args: string[];
  env: Record<string, string>;
  pinned: string | null;
  /** What could not be prepared, the run going on without it (for the daemon log). */
  warning?: string;
}

/** What an agent needs to read its capture channel for one run. */
export interface CaptureSource {
  captureFile: string;
  scratchBase: string;
  cwd: string;
  env: Env;
  uid: number;
}

/** Where an agent looks for one conversation in its own store: the task's cwd and launch environment. */
export interface StoreLocation {
  cwd: string;
  env: Env;
}

/** What an agent needs to find a task's conversation in its own store on disk. */
export interface StoreQuery {
  cwd: string;
  spawnedAt: Date;
  env: Env;
  /** IDs other tasks already hold: never matched again. */
  taken: ReadonlySet<string>;
}

export interface Agent {
  /** Shown as `agent` in `ls --json`. */
  readonly name: string;
  /** Accepted last path components of the program word. */
  readonly words: readonly string[];
  /** What goes between the program word and the ID in the resume form. */
  readonly selector: string;
  /** Its conversation IDs' strict format, when they are not UUIDs (opencode's `ses_…`, a declared agent's `id`). */
  readonly isId?: IdCheck;
  /** Environment variables (of the launching client) the other steps read; nothing else is kept. */
  readonly envKeys: readonly string[];
  /**
   * The launch flags `instrument` adds to this launch. Each must be listed in the binary's own
   * `--help`, or nothing is injected (agent-probe.ts): an option the binary does not know makes
   * it exit at once.
   */
  launchFlags(launch: Launch): readonly string[];
  /** Assets and arguments for one run (in the task's cwd); throwing means the run goes uninstrumented. */
  instrument(launch: Launch, assets: RunAssets, env: Env, cwd?: string): Instrumentation | null;
  /**
   * Whether the agent's own store holds this conversation, found by the ID itself: only then can
   * its resume form start (the real CLIs refuse an ID they have no transcript for).
   */
  holds(id: string, where: StoreLocation): boolean;
  /** The conversation named by the run's capture channel, re-read at each use. */
  captured(source: CaptureSource): string | null;
  /** The conversation named by the last exit hint in the final screen and scrollback (logical lines). */
  exitHint(lines: readonly string[], env: Env): string | null;
  /** The single entry of the agent's own store matching the task, else null (save and snapshots only). */
  fromStore(query: StoreQuery): string | null;
  /**
   * The directory of the agent's live registry, one `<pid>.json` per running process (Claude's
   * `<claude home>/sessions`); absent when it keeps none.
   */
  liveDir?(env: Env): string;
  /** What one registry entry says: the conversation the process holds and a preview of what it waits for. */
  liveState?(entry: unknown): LiveState | null;
  /**
   * The agent's last reply in the conversation, from its own store: what a wait it gives no reason
   * for shows (a resumed agent at its prompt), rather than screen chrome. Absent when unknown.
   */
  lastReply?(id: string, where: StoreLocation): string | null;
  /**
   * A declared agent's conversation file whose records have a built-in agent's shape (its `usage`),
   * for its tokens (agent-usage.ts); absent when it records none fleetcom reads.
   */
  usageFile?(id: string, where: StoreLocation): { path: string; shape: UsageShape };
  /**
   * The file the agent writes its reply to only after its hook said the turn ended (Command Code's
   * transcript): a wait with no message of its own is held back, a moment at most, until that file
   * changes, so that its message is the reply. Absent for an agent whose store is written first.
   */
  replyWrittenAfterHook?(id: string, where: StoreLocation): string;
  /** The run's file where the agent's attention events land, one JSON per line; absent when it has none. */
  attentionFile?(assets: RunAssets): string;
  /** What one line of that file says about attention, or null when it says nothing. */
  attentionSignal?(line: string): AgentSignal | null;
}

/** A running agent process as its live registry describes it. */
export interface LiveState {
  id: string | null;
  /** What the task's row shows instead of its last screen line (`awaiting approval: Bash`), or null. */
  preview: string | null;
}

/** A command that takes part: the agent, the program word as typed, and the ID of a resume form. */
export interface Launch {
  agent: Agent;
  program: string;
  id: string | null;
}

// Characters that make a program word more than a plain path (agents.md).
const UNSAFE_PROGRAM = /[|;&<>$#`()\\'"=*?[\]{}\n]/;

function programMatches(word: string, agent: Agent): boolean {
  if (UNSAFE_PROGRAM.test(word)) return false;
  return agent.words.includes(word.slice(word.lastIndexOf("/") + 1));
}

function resumeId(word: string, isId: IdCheck): string | null {
  const bare = word.length > 2 && word.startsWith("'") && word.endsWith("'") ? word.slice(1, -1) : word;
  return isId(bare) ? bare : null;
}

/**
 * The agent a command runs, when it has exactly one of the accepted shapes: the program word alone,
 * or followed by the selector and an ID of the agent's strict format (bare or single-quoted). Anything else is an ordinary
 * command. Leading and trailing blanks are ignored.
 */
export function detect(command: string, agents: readonly Agent[]): Launch | null {
  const words = command.split(/[ \t]+/).filter((w) => w !== "");
  if (words.length !== 1 && words.length !== 3) return null;
  const [program, selector, idWord] = words as [string, string?, string?];
  for (const agent of agents) {
    if (!programMatches(program, agent)) continue;
    if (words.length === 1) return { agent, program, id: null };
    if (selector !== agent.selector) return null;
    const id = resumeId(idWord!, idCheckOf(agent));
    return id ? { agent, program, id } : null;
  }
  return null;
}

/** `<program word as typed> <selector> '<id>'`; null when the ID does not pass the agent's strict check. */
export function resumeCommand(launch: Launch, id: string | null): string | null {
  if (!idCheckOf(launch.agent)(id)) return null;
  return `${launch.program} ${launch.agent.selector} ${shellQuote(id)}`;
}

/** The string handed to `$SHELL -c`: the extra words right after the program word. */
export function instrumentedCommand(launch: Launch, args: readonly string[]): string {
  const rest = launch.id === null ? [] : [launch.agent.selector, shellQuote(launch.id)];
  return [launch.program, ...args, ...rest].join(" ");
}

/** The evidence a task has about its conversation, strongest first (agents.md, precedence). */
export interface Evidence {
  exitHint?: string | null;
  captured?: string | null;
  /** What the agent's live registry says the running process holds (Claude's sessions/<pid>.json). */
  live?: string | null;
  pinned?: string | null;
  store?: () => string | null;
}

/**
 * The first piece of evidence that passes the strict check (UUIDs by default); the store is only
 * asked when nothing else is. The live registry comes after the capture channel (ours, per run) and
 * before the pin (it follows `/clear` and `/resume` where no capture was injected).
 */
export function conversationId(evidence: Evidence, isId: IdCheck = isUuid): string | null {
  for (const id of [evidence.exitHint, evidence.captured, evidence.live, evidence.pinned]) if (isId(id)) return id;
  const stored = evidence.store?.() ?? null;
  return isId(stored) ? stored : null;
}

// --- helpers the agent modules share ------------------------------------------------------------

/**
 * For each line that starts with one of the headers (after trimming), in screen order: the text that
 * follows the header, which is the rest of that line or, when the header ends the line, the next
 * non-blank line. Trimmed.
 */
export function textsAfter(lines: readonly string[], headers: readonly string[]): { header: string; text: string }[] {
  const found: { header: string; text: string }[] = [];
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    const header = headers.find((h) => trimmed.startsWith(h));
    if (header === undefined) return;
    const rest = trimmed.slice(header.length).trim();
    const text =
      rest !== ""
        ? rest
        : lines
            .slice(i + 1)
            .find((l) => l.trim() !== "")
            ?.trim();
    if (text !== undefined) found.push({ header, text });
  });
  return found;
}

/** The ID of the last hint, if it is a strict UUID; an earlier hint never stands in for a bad last one. */
export function lastHintId(ids: readonly (string | null)[]): string | null {
  return ids.length === 0 ? null : uuidOrNull(ids[ids.length - 1]);
}

/** The ID word at the end of a hint line `<...> <selector> <id>`, or null when the shape is off. */
export function idAfterSelector(line: string, selectors: readonly string[]): string | null {
  const words = line.split(/\s+/);
  if (words.length < 2) return null;
  return selectors.includes(words[words.length - 2]!) ? words[words.length - 1]! : null;
}

/**
 * The ID word of each line that ends `<program> <selector> <id>`, the program a word (or a path)
 * ending in one of the agent's words, after the box edges a TUI draws around it (`│ … │`). In screen order.
 */
export function commandHints(lines: readonly string[], words: readonly string[], selectors: readonly string[]): string[] {
  return lines.flatMap((line) => {
    const parts = line.replace(/^[\s│|]+|[\s│|]+$/gu, "").split(/\s+/);
    if (parts.length < 3) return [];
    const [program, selector, id] = parts.slice(-3) as [string, string, string];
    return words.includes(program.slice(program.lastIndexOf("/") + 1)) && selectors.includes(selector) ? [id] : [];
  });
}

/** Within `windowMs` of the spawn, either side. */
export function nearSpawn(timeMs: number, spawnedAt: Date, windowMs = 30_000): boolean {
  return Math.abs(timeMs - spawnedAt.getTime()) <= windowMs;
}

/** The one ID left, or null: ambiguity is none by design, since resuming the wrong conversation is worse than none. */
export function single(ids: readonly string[], taken: ReadonlySet<string> = new Set(), isId: IdCheck = isUuid): string | null {
  const free = [...new Set(ids.filter(isId))].filter((id) => !taken.has(id));
  return free.length === 1 ? free[0]! : null;
}

/**
 * The pin of the agents that take a chosen conversation ID as `--session-id ID` at a bare start and
 * need nothing else injected (xAI's grok): a resume form is run as it is.
 */
export const SESSION_ID_PIN = {
  launchFlags: (launch: Launch): string[] => (launch.id === null ? ["--session-id"] : []),
  instrument(launch: Launch): Instrumentation {
    if (launch.id !== null) return { args: [], env: {}, pinned: launch.id };
    const pinned = newUuid();
    return { args: ["--session-id", shellQuote(pinned)], env: {}, pinned };
  },
} satisfies Pick<Agent, "launchFlags" | "instrument">;
