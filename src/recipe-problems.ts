// Why a recipe's entry is dropped, or doubtful, in one line each naming the file, the directory, the
// entry's index and the member: `r.json: dirs["."][0]: unknown member "command" (did you mean "cmd"?);
// dropped`. An unknown member beside a good `cmd` is only a warning, so a file written by a newer
// fleetcom still loads; an empty command is dropped, as `run -- ''` is refused. Pure.
import { nearest } from "./text-nearest.ts";
import { printable } from "./text-printable.ts";

/** The members an entry object may have: what a save writes, and what a snapshot adds. */
const KNOWN_MEMBERS = [
  ...["cmd", "group", "name", "history", "id", "typed", "worktree", "max_memory", "restart", "max_restarts", "restarts"],
  // A service's (recipe-services.ts).
  ...["ready", "ready_timeout", "after", "stop_signal", "stop_timeout", "env", "env_file"],
];
/** What other tools call them (process-compose's `command`, pm2's `script`…). */
const OTHER_NAMES: Record<string, string> = { command: "cmd", script: "cmd", run: "cmd", exec: "cmd", title: "name", label: "name" };
const STRING_MEMBERS = ["cmd", "group", "name"];

/** Where an entry is: `r.json: dirs["."][0]` (a flat file has no `dirs`). */
export function entryPlace(file: string, wrapped: boolean, key: string, index?: number): string {
  return `${printable(file)}: ${wrapped ? "dirs" : ""}[${printable(JSON.stringify(key))}]${index === undefined ? "" : `[${index}]`}`;
}

/** What is wrong with a directory's value that is no list, in words. */
export function notAList(value: unknown): string {
  return `${kindOf(value)}, not a list of commands; dropped`;
}

/**
 * The problems of one entry: `dropped` when it cannot be started (with why), else the members it
 * ignores, each one line (without the place, which the caller puts first).
 */
export function entryProblems(item: unknown): { dropped: boolean; lines: string[] } {
  if (typeof item === "string") return item.trim() === "" ? { dropped: true, lines: [EMPTY] } : { dropped: false, lines: [] };
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    return { dropped: true, lines: [`${kindOf(item)}, not a command or {"cmd": …}; dropped`] };
  }
  const members = Object.keys(item);
  const unknown = members.filter((m) => !KNOWN_MEMBERS.includes(m));
  const wrongType = STRING_MEMBERS.find((m) => Object.hasOwn(item, m) && typeof (item as Record<string, unknown>)[m] !== "string");
  const cmd = (item as Record<string, unknown>).cmd;
  const why =
    wrongType !== undefined
      ? `"${wrongType}" is ${kindOf((item as Record<string, unknown>)[wrongType])}, not a string`
      : cmd === undefined
        ? `no "cmd" member`
        : (cmd as string).trim() === ""
          ? EMPTY_WHY
          : null;
  const lines = unknown.map((m) => `unknown member ${printable(JSON.stringify(m))}${meant(m)}; ${why === null ? "ignored" : "dropped"}`);
  // The member that explains the drop already says so; otherwise the reason is its own line.
  const explained = why === `no "cmd" member` && unknown.some((m) => meantMember(m) === "cmd");
  if (why !== null && !explained) lines.push(`${why}; dropped`);
  return { dropped: why !== null, lines };
}

const EMPTY_WHY = "empty command (as run -- '' is refused)";
const EMPTY = `${EMPTY_WHY}; dropped`;

function meantMember(member: string): string | null {
  return OTHER_NAMES[member.toLowerCase()] ?? nearest(member, KNOWN_MEMBERS);
}

function meant(member: string): string {
  const near = meantMember(member);
  return near === null ? "" : ` (did you mean "${near}"?)`;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
