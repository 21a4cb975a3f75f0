// Codex: `-c notify=[…]` points Codex's notify program at fleetcom's script, which appends each
// payload to the run's capture file and then runs the user's own one-line notifier, if any, with the
// payload. Codex's title-generation thread notifies too; its ID must never win, and it never raises
// attention, while a turn completed on the real thread means Codex waits for input. Exit hint: `codex
// resume <id>` in three wordings. Store: dated rollout files whose first record names the cwd.
import { type Env, homeDir } from "./paths.ts";
import { join } from "node:path";
import { readRegularFile } from "./files.ts";
import { contentText, entriesOf, firstRecord, lastRecords, member, parsedLine, textOf } from "./agent-files.ts";
import { type AgentSignal, attentionMessage } from "./task-attention.ts";
import { type Agent, isUuid, lastHintId, nearSpawn, shellQuote, single, textsAfter, uuidOrNull } from "./agent.ts";
import { errnoCode } from "./errors.ts";

export const CODEX_NOTIFY_SCRIPT = "codex-notify.sh";

// The chain travels newline-joined (argv elements with newlines are refused as unrepresentable);
// an empty chain runs nothing, so a value inherited from elsewhere can never run.
export const NOTIFY_SCRIPT = `#!/bin/sh
# fleetcom: keep Codex's notify payload for this task, then run the user's own notifier with it.
umask 077
if [ -n "$FLEETCOM_CAPTURE_FILE" ]; then printf '%s\\n' "$1" >> "$FLEETCOM_CAPTURE_FILE"; fi
[ -n "$FLEETCOM_NOTIFY_CHAIN" ] || exit 0
IFS='
'
set -f
set -- $FLEETCOM_NOTIFY_CHAIN "$1"
exec "$@"
`;

const TITLE_PROMPT = "Generate a concise, single-line task title";

export function codexHome(env: Env): string {
  return env.CODEX_HOME || join(homeDir(env), ".codex");
}

const NOTIFY_KEY = /^\s*(notify|"notify"|'notify')\s*=/;
const ONE_LINE_NOTIFY = /^\s*notify\s*=\s*\[(.*)\]\s*(#.*)?$/;
const ARRAY_ELEMENT = /^\s*(?:"([^"\\\n]*)"|'([^'\n]*)')\s*(?:,|$)/;

/**
 * The user's notifier argv from their config.toml text: [] when there is none, null when it is set
 * in any way fleetcom cannot reproduce exactly (several assignments, inside a table, multi-line,
 * escapes, empty elements), in which case nothing is injected at all.
 */
export function notifyChain(configText: string | null): string[] | null {
  if (configText === null) return [];
  let inTable = false;
  const assignments: string[] = [];
  for (const line of configText.split(/\r?\n/)) {
    if (/^\s*\[/.test(line)) inTable = true;
    else if (NOTIFY_KEY.test(line)) {
      if (inTable) return null;
      assignments.push(line);
    }
  }
  if (assignments.length === 0) return [];
  if (assignments.length > 1) return null;
  const array = ONE_LINE_NOTIFY.exec(assignments[0]!);
  return array ? arrayElements(array[1]!) : null;
}

function arrayElements(inner: string): string[] | null {
  const elements: string[] = [];
  let rest = inner;
  while (rest.trim() !== "") {
    const m = ARRAY_ELEMENT.exec(rest);
    if (!m) return null;
    const value = m[1] ?? m[2]!;
    if (value === "") return null;
    elements.push(value);
    rest = rest.slice(m[0].length);
  }
  return elements;
}

/** Codex's own config is larger than fleetcom's (MCP servers, profiles) but never near this. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** The config file's text; null when there is none. Any other failure throws (leave the user alone). */
function readConfig(env: Env): string | null {
  try {
    return readRegularFile(join(codexHome(env), "config.toml"), { maxBytes: MAX_CONFIG_BYTES }).toString("utf8");
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return null;
    throw error;
  }
}

interface TurnPayload {
  thread: string;
  title: boolean;
  message: string | null;
}

/** One line of the capture file, when it is an `agent-turn-complete` payload whose thread ID is a strict UUID. */
export function turnPayload(line: string): TurnPayload | null {
  const payload = parsedLine(line);
  if (payload === undefined) return null;
  const thread = member(payload, "thread-id");
  if (member(payload, "type") !== "agent-turn-complete" || !isUuid(thread)) return null;
  const inputs = member(payload, "input-messages");
  const first = Array.isArray(inputs) ? inputs[0] : undefined;
  return { thread, title: typeof first === "string" && first.startsWith(TITLE_PROMPT), message: attentionMessage(member(payload, "last-assistant-message")) };
}

/** Every turn payload in the capture file (one JSON per line). */
export function turnPayloads(capture: string | null): TurnPayload[] {
  return (capture ?? "").split("\n").flatMap((line) => turnPayload(line) ?? []);
}

/** A turn completed on a real thread: Codex waits for input. The title thread's turn says nothing. */
export function codexSignal(line: string): AgentSignal | null {
  const turn = turnPayload(line);
  return turn && !turn.title ? { kind: "waiting", state: "input", message: turn.message } : null;
}

/** The task's thread: the latest non-title thread, preferring one that has a rollout file. */
export function capturedThread(payloads: readonly TurnPayload[], hasRollout: (id: string) => boolean): string | null {
  const threads = payloads.filter((p) => !p.title).map((p) => p.thread);
  const withRollout = threads.filter(hasRollout);
  return uuidOrNull(withRollout.at(-1) ?? threads.at(-1) ?? null);
}

/** The millisecond timestamp inside a version 7 UUID, or null for any other UUID. */
export function uuidV7Time(id: string): number | null {
  if (!isUuid(id) || id[14] !== "7") return null;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

function dayFolder(home: string, time: number, localDates: boolean): string {
  const d = new Date(time);
  const [y, m, day] = localDates ? [d.getFullYear(), d.getMonth() + 1, d.getDate()] : [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
  return join(home, "sessions", String(y), String(m).padStart(2, "0"), String(day).padStart(2, "0"));
}

const DAY_MS = 86_400_000;

/** The rollout files (path and thread ID) in the day folders within `days` of a time. */
function rolloutsAround(home: string, time: number, days: number, localDates: boolean): { path: string; id: string }[] {
  const found: { path: string; id: string }[] = [];
  for (let offset = -days; offset <= days; offset++) {
    const folder = dayFolder(home, time + offset * DAY_MS, localDates);
    for (const e of entriesOf(folder)) {
      const m = /^rollout-.+-([0-9a-f-]{36})\.jsonl$/.exec(e.name);
      if (e.isFile() && m && isUuid(m[1])) found.push({ path: join(folder, e.name), id: m[1] });
    }
  }
  return found;
}

/**
 * Whether a rollout file names this thread. A version 7 ID carries the time the thread began, so
 * its own day folders (± 1 day, local dates) are enough; any other ID means walking every day.
 */
export function hasRollout(home: string, id: string): boolean {
  return rolloutOf(home, id) !== null;
}

/** The rollout file of a thread, or null. */
export function rolloutOf(home: string, id: string): string | null {
  const time = uuidV7Time(id);
  if (time !== null) return rolloutsAround(home, time, 1, true).find((r) => r.id === id)?.path ?? null;
  for (const folder of everyDayFolder(home)) {
    const found = entriesOf(folder).find((e) => e.isFile() && e.name.endsWith(`-${id}.jsonl`) && e.name.startsWith("rollout-"));
    if (found) return join(folder, found.name);
  }
  return null;
}

/**
 * The text of a rollout record that is Codex's reply: a `response_item` message of the assistant,
 * or an `agent_message` event; null for any other record.
 */
export function codexReply(record: unknown): string | null {
  const payload = member(record, "payload");
  if (member(record, "type") === "event_msg" && member(payload, "type") === "agent_message") return contentText(member(payload, "message"));
  if (member(record, "type") === "response_item" && member(payload, "type") === "message" && member(payload, "role") === "assistant")
    return contentText(member(payload, "content"));
  return null;
}

function everyDayFolder(home: string): string[] {
  const sessions = join(home, "sessions");
  const numbered = (dir: string) =>
    entriesOf(dir)
      .filter((e) => e.isDirectory() && /^\d+$/.test(e.name))
      .map((e) => join(dir, e.name));
  return numbered(sessions).flatMap(numbered).flatMap(numbered);
}

/** A rollout's first record names the task's cwd, and is not a sub-agent's thread. */
export function rolloutBelongsTo(first: unknown, cwd: string): boolean {
  const payload = member(first, "payload");
  const source = member(payload, "source");
  const subAgent = typeof source === "object" && source !== null && member(source, "subagent") !== undefined;
  return member(payload, "cwd") === cwd && !subAgent;
}

// With and without the colon: Codex prints both the two-line and the one-line wording.
const HINT_HEADERS = ["To continue this session, run:", "To continue this session, run", "To reconnect, run:", "To reconnect, run", "Session ID:"];

export const codex: Agent = {
  name: "codex",
  words: ["codex"],
  selector: "resume",
  envKeys: ["HOME", "CODEX_HOME"],

  launchFlags: () => ["-c"],

  instrument(launch, assets, env) {
    const chain = notifyChain(readConfig(env));
    if (chain === null) return null;
    const script = assets.asset(CODEX_NOTIFY_SCRIPT, NOTIFY_SCRIPT, 0o700);
    // The path goes inside a TOML basic string: anything needing an escape is not injected.
    if (/["\\\p{Cc}]/u.test(script)) return null;
    return {
      args: ["-c", shellQuote(`notify=["${script}"]`)],
      env: { FLEETCOM_CAPTURE_FILE: assets.captureFile, FLEETCOM_NOTIFY_CHAIN: chain.join("\n") },
      pinned: launch.id,
    };
  },

  captured({ captureFile, env }) {
    const home = codexHome(env);
    return capturedThread(turnPayloads(textOf(captureFile)), (id) => hasRollout(home, id));
  },

  attentionFile: (assets) => assets.captureFile,
  attentionSignal: codexSignal,

  exitHint(lines) {
    const hints = textsAfter(lines, HINT_HEADERS).map(({ header, text }) => {
      const words = text.split(/\s+/);
      if (header === "Session ID:") return words.length === 1 ? words[0]! : null;
      return words.length === 3 && words[0] === "codex" && words[1] === "resume" ? words[2]! : null;
    });
    return lastHintId(hints);
  },

  // A thread has a rollout once its first turn ran; `codex resume <id>` of one without says "No
  // saved session found with ID".
  holds: (id, { env }) => hasRollout(codexHome(env), id),

  lastReply(id, { env }) {
    const rollout = rolloutOf(codexHome(env), id);
    return rollout === null
      ? null
      : attentionMessage(
          lastRecords(rollout)
            .map(codexReply)
            .findLast((t) => t !== null) ?? null,
        );
  },

  fromStore({ cwd, spawnedAt, env, taken }) {
    const ids = rolloutsAround(codexHome(env), spawnedAt.getTime(), 2, false)
      .filter((r) => nearSpawn(uuidV7Time(r.id) ?? Number.NaN, spawnedAt))
      .filter((r) => rolloutBelongsTo(firstRecord(r.path), cwd))
      .map((r) => r.id);
    return single(ids, taken);
  },
};
