// The agents a user declares in config.toml (agents.md, "Agents you declare"): one `[agents.NAME]`
// table each, checked field by field with arktype, so a bad entry is one line naming the file, the
// line, the entry and the field, and only that entry is left out. Nothing here runs a program.
//
// SECURITY: a declared ID shape is the user's regular expression, and every ID it lets through is
// spliced into a shell command (single-quoted) and into a store path. So an ID must also be a plain
// word of letters, digits, `.`, `_`, `:` and `-` (no `/`, no quote, no blank), at most 128
// characters: no pattern can widen that.
import { schema } from "./validator.ts";

/** A declared agent as checked: what agent-declared.ts turns into an Agent. */
export interface DeclaredAgentSpec {
  name: string;
  /** The executable's name: the last path component of the program word. */
  match: string;
  /** Words added after the program word to start a conversation with a chosen ID (`{id}` stands for it); null when it has none. */
  pin: string[] | null;
  /** The word before the ID in the resume form (`--resume` of `["--resume", "{id}"]`). */
  selector: string;
  /** Where a conversation lives: `~/` or `/`, with `{id}` once. */
  store: string;
  /** `"uuid"`, or the source of a regular expression every ID must match whole. */
  id: string;
  /** Whose record shape the store is written in, for its tokens (docs/usage.md); null: it records none fleetcom reads. */
  usage: UsageShape | null;
}

/** The built-in agents whose store records a declared agent's store may share (a fork of Gemini CLI writes Gemini's). */
export const USAGE_SHAPES = ["claude", "codex", "gemini", "qwen"] as const;
export type UsageShape = (typeof USAGE_SHAPES)[number];

/** The one shape any declared agent's ID must have as well as its own. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

const agentName = schema("declaredAgent.name", (type) => type(/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/));
const agentMatch = schema("declaredAgent.match", (type) => type(/^[A-Za-z0-9_][A-Za-z0-9._+-]{0,63}$/));
const agentPin = schema("declaredAgent.pin", (type) =>
  type(/^[^\0\n\r]+$/)
    .array()
    .atLeastLength(1),
);
const agentResume = schema("declaredAgent.resume", (type) => type([/^-{0,2}[A-Za-z0-9][A-Za-z0-9_-]*$/, /^\{id\}$/]));
const agentStore = schema("declaredAgent.store", (type) => type(/^(?:~\/|\/)[^\0\n\r]*$/));
const agentId = schema("declaredAgent.id", (type) => type("string > 0"));
const agentUsage = schema("declaredAgent.usage", (type) => type.enumerated(...USAGE_SHAPES));

const FIELDS = ["match", "pin", "resume", "store", "id", "usage"] as const;

/** What the config file holds under `agents`, as settings.ts read it: the value and the file's lines. */
export interface AgentsTable {
  value: unknown;
  file: string;
  lines: readonly string[];
}

/** The entries that pass, and one line per entry that does not (that entry left out). */
export function checkedAgents(table: AgentsTable | null): { agents: DeclaredAgentSpec[]; problems: string[] } {
  const agents: DeclaredAgentSpec[] = [];
  const problems: string[] = [];
  if (table === null) return { agents, problems };
  const { value, file, lines } = table;
  if (!isTable(value)) {
    problems.push(`${file}:${lineOf(lines, "agents")}: agents: expected tables such as [agents.myagent], got ${kind(value)}; ignored`);
    return { agents, problems };
  }
  for (const [name, entry] of Object.entries(value)) {
    const checked = checkedEntry(name, entry);
    if ("spec" in checked) agents.push(checked.spec);
    else
      problems.push(
        `${file}:${lineOf(lines, name, checked.field)}: agents.${name}: ${checked.field ? `${checked.field}: ` : ""}${checked.error}; agent ignored`,
      );
  }
  return { agents, problems };
}

type Checked = { spec: DeclaredAgentSpec } | { field: string | null; error: string };

function checkedEntry(name: string, entry: unknown): Checked {
  if (!agentName.allows(name)) return { field: null, error: "the name must be letters, digits, '_' or '-' (at most 32)" };
  if (!isTable(entry)) return { field: null, error: `expected a table of match, resume, store (and pin, id), got ${kind(entry)}` };
  const unknown = Object.keys(entry).find((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) return { field: unknown, error: `unknown field (known: ${FIELDS.join(", ")})` };
  const { match, pin, resume, store, id = "uuid", usage } = entry;
  if (!agentMatch.allows(match)) return { field: "match", error: `expected the executable's name, such as "myagent" (no '/'), got ${kind(match)}` };
  if (!agentResume.allows(resume))
    return { field: "resume", error: `expected two words, an option and the ID, such as ["--resume", "{id}"], got ${kind(resume)}` };
  if (!agentStore.allows(store) || !onceId(store))
    return {
      field: "store",
      error: `expected a path starting with ~/ or / that holds {id} once, such as "~/.myagent/sessions/{id}.jsonl", got ${kind(store)}`,
    };
  if (pin !== undefined && (!agentPin.allows(pin) || !pin.includes("{id}")))
    return { field: "pin", error: `expected words that hold "{id}", such as ["--session-id", "{id}"], got ${kind(pin)}` };
  if (!agentId.allows(id)) return { field: "id", error: `expected "uuid" or a regular expression, got ${kind(id)}` };
  if (id !== "uuid") {
    const problem = patternProblem(id);
    if (problem !== null) return { field: "id", error: problem };
    // fleetcom makes a pinned ID itself, and it makes UUIDs.
    if (pin !== undefined && !new RegExp(`^(?:${id})$`).test(crypto.randomUUID()))
      return { field: "id", error: `a pin needs IDs fleetcom can make: id = "uuid", or a pattern a UUID matches` };
  }
  if (usage !== undefined && !agentUsage.allows(usage))
    return {
      field: "usage",
      error: `expected the agent whose record shape its store has: ${USAGE_SHAPES.map((u) => `"${u}"`).join(", ")}, got ${kind(usage)}`,
    };
  return { spec: { name, match, pin: pin ?? null, selector: resume[0], store, id, usage: usage ?? null } };
}

/** Why `source` is refused as a pattern the daemon runs: not a regular expression, or one that could backtrack without end. */
export function patternProblem(source: string): string | null {
  try {
    new RegExp(source);
  } catch (error) {
    return `not a regular expression (${(error as Error).message})`;
  }
  return backtrackingProblem(source);
}

/** Variable repeats (`*`, `+`, `?`, `{m,n}`) one pattern may hold: four side by side cost milliseconds per ID, five a good part of a second. */
const MAX_VARIABLE_REPEATS = 3;

/**
 * Why matching `source` could take exponential or high-polynomial time, else null. The daemon matches
 * IDs on its one thread, so a pattern such as `(a|aa)+` on forty-odd characters would stop every
 * task and client for seconds, and longer with each character. Refused: a repeated group holding a
 * repeat or an alternation (`(a+)+`, `(a|aa)+`, `(a*){9}`), a back-reference or lookaround (an ID is
 * a plain word and needs neither), and more than MAX_VARIABLE_REPEATS variable repeats in all. What is
 * left backtracks at most polynomially in an ID's length, which SAFE_ID bounds before the pattern runs.
 */
function backtrackingProblem(source: string): string | null {
  interface Group {
    repeats: boolean;
    alternates: boolean;
  }
  const groups: Group[] = [{ repeats: false, alternates: false }];
  let closed: Group | null = null;
  let variable = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    const repeat = repeatAt(source, i);
    if (repeat !== null) {
      if (closed !== null && repeat.max > 1 && (closed.repeats || closed.alternates))
        return closed.repeats
          ? "a repeated group holds a repeat (such as (a+)+): matching could take exponential time"
          : "a repeated group holds an alternation (such as (a|aa)+; a character class such as [ab]+ does not): matching could take exponential time";
      if (repeat.max !== repeat.min) {
        variable++;
        groups.at(-1)!.repeats = true;
      }
      i += repeat.length - 1;
      closed = null;
      continue;
    }
    closed = null;
    if (char === "\\") {
      if (/[1-9k]/.test(source[i + 1] ?? "")) return "a back-reference: an ID pattern needs none";
      i++;
    } else if (char === "[") {
      i = classEnd(source, i);
    } else if (char === "(") {
      if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) return "a lookaround: an ID pattern needs none";
      groups.push({ repeats: false, alternates: false });
      // `(?:` and `(?<name>` open a group too; their `?` is no repeat.
      if (source[i + 1] === "?") i = source[i + 2] === "<" ? source.indexOf(">", i) : i + 2;
    } else if (char === ")") {
      closed = groups.pop()!;
      const outer = groups.at(-1)!;
      outer.repeats ||= closed.repeats;
      outer.alternates ||= closed.alternates;
    } else if (char === "|") {
      groups.at(-1)!.alternates = true;
    }
  }
  if (variable > MAX_VARIABLE_REPEATS) return `${variable} variable repeats (*, +, ?, {m,n}): at most ${MAX_VARIABLE_REPEATS}, so matching stays fast`;
  return null;
}

/** The repeat at `i` (`*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}`, each maybe lazy), else null. */
function repeatAt(source: string, i: number): { min: number; max: number; length: number } | null {
  const match = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(source.slice(i, i + 24));
  if (match === null) return null;
  const [whole, sign, min, comma, max] = match;
  if (sign === "*") return { min: 0, max: Infinity, length: whole.length };
  if (sign === "+") return { min: 1, max: Infinity, length: whole.length };
  if (sign === "?") return { min: 0, max: 1, length: whole.length };
  const least = Number(min);
  return { min: least, max: comma === undefined ? least : max ? Number(max) : Infinity, length: whole.length };
}

/** Where the character class opening at `i` closes (a `]` first in it is a member, as is an escaped one). */
function classEnd(source: string, i: number): number {
  let at = i + 1;
  if (source[at] === "^") at++;
  if (source[at] === "]") at++;
  while (at < source.length && source[at] !== "]") at += source[at] === "\\" ? 2 : 1;
  return at;
}

/** The ID check of a declared agent: its own pattern, whole, and the safe shape. */
export function idCheck(id: string): (value: unknown) => value is string {
  const own = id === "uuid" ? /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/ : new RegExp(`^(?:${id})$`);
  return (value): value is string => typeof value === "string" && SAFE_ID.test(value) && own.test(value);
}

function onceId(store: string): boolean {
  return store.split("{id}").length === 2;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function kind(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return JSON.stringify(value).slice(0, 80);
  return isTable(value) ? "a table" : String(value);
}

/** The line of `field =` in the entry's table, else of its `[agents.NAME]` header, else of `agents`; 0 when none is found. */
function lineOf(lines: readonly string[], name: string, field: string | null = null): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const header = lines.findIndex((l) => new RegExp(`^\\s*\\[\\s*agents\\s*\\.\\s*["']?${escaped}["']?\\s*\\]`).test(l));
  if (header !== -1 && field !== null) {
    for (let i = header + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) if (new RegExp(`^\\s*${field}\\s*=`).test(lines[i]!)) return i + 1;
  }
  if (header !== -1) return header + 1;
  return lines.findIndex((l) => /^\s*\[?\s*agents\b/.test(l)) + 1;
}
