// A recipe entry's service fields (docs/services.md): `ready`, `ready_timeout`, `after`,
// `stop_signal`, `stop_timeout`, `env`, `env_file` (the restart policy's fields are recipe.ts's). Each is checked
// by its schema as an entry is read; a malformed one, a name in `after` that no entry has, or a
// cycle fails the whole recipe before anything starts, naming file, entry and field. Pure.
import { EXIT, UserError, usageError } from "./errors.ts";
import { printable } from "./text-printable.ts";
import { nearest } from "./text-nearest.ts";
import { findCycle, conditionsOf } from "./task-order.ts";
import { patternProblem } from "./config-agents.ts";
import { schema } from "./validator.ts";

// Exactly one kind: each branch forbids the others' keys.
export const readyProbe = schema("readyProbe", (type) =>
  type({ log: "string > 0", "http?": "never", "port?": "never", "cmd?": "never" })
    .or({ http: /^https?:\/\/[^\s]+$/, "log?": "never", "port?": "never", "cmd?": "never" })
    .or({ port: "1 <= number.integer <= 65535", "log?": "never", "http?": "never", "cmd?": "never" })
    .or({ cmd: "string > 0", "log?": "never", "http?": "never", "port?": "never" }),
);
const seconds = schema("serviceSeconds", (type) => type("0 < number <= 86400"));
const after = schema("after", (type) =>
  type(/^[^\0]+$/)
    .array()
    .or({ "[string]": "'started' | 'ready' | 'done'" }),
);
/** The signals a stop may send first; KILL always follows after the timeout. */
export const STOP_SIGNALS = ["TERM", "INT", "HUP", "QUIT", "KILL", "USR1", "USR2"] as const;
const stopSignal = schema("stopSignal", (type) => type(/^(SIG)?(TERM|INT|HUP|QUIT|KILL|USR1|USR2)$/));

/** The fields as a recipe file writes them, every one optional. */
export const serviceFields = schema("serviceFields", (type) =>
  type({
    "ready?": readyProbe.type(),
    "ready_timeout?": seconds.type(),
    "after?": after.type(),
    "stop_signal?": stopSignal.type(),
    "stop_timeout?": seconds.type(),
    "env?": "Record<string, string>",
    "env_file?": /^\/[^\0]*$/,
  }),
);
export type ServiceFields = typeof serviceFields.infer;

/** What each field must be, for the one-line refusal. */
const EXPECTED: Record<keyof ServiceFields, string> = {
  ready: 'expected one of {"log": REGEX}, {"http": "http://…"}, {"port": 1-65535}, {"cmd": "…"}',
  ready_timeout: "expected seconds (a number above 0)",
  after: 'expected a list of entry names or {"NAME": "started" | "ready" | "done"}',
  stop_signal: `expected one of ${STOP_SIGNALS.join(", ")}`,
  stop_timeout: "expected seconds (a number above 0)",
  env: 'expected {"NAME": "value", …}',
  env_file: "expected the absolute path of a .env file",
};
const FIELDS = Object.keys(EXPECTED) as (keyof ServiceFields)[];

/**
 * The service fields an object entry carries, checked one by one (`place` names the entry in
 * refusals); {} when it has none, so an entry without them stays as it was.
 */
export function readServiceFields(item: Record<string, unknown>, file: string, place: string): ServiceFields {
  const found: Record<string, unknown> = {};
  for (const field of FIELDS) {
    if (item[field] === undefined) continue;
    const one = { [field]: item[field] };
    if (!serviceFields.allows(one)) throw serviceRefusal(file, place, field, EXPECTED[field]);
    found[field] = item[field];
  }
  const probe = found.ready as { log?: string } | undefined;
  if (probe?.log !== undefined) {
    const problem = logPatternProblem(probe.log);
    if (problem) throw serviceRefusal(file, place, "ready.log", problem);
  }
  return found as ServiceFields;
}

/** Why a log probe's pattern is refused: not a regular expression, or one that could stall the daemon (config-agents.ts's rule). */
export function logPatternProblem(source: string): string | null {
  return patternProblem(source);
}

/** A bad field of an entry, in the one form every recipe refusal takes: `dev.json: dirs["~/app"][2].after: …`. */
export function serviceRefusal(file: string, place: string, field: string, why: string): UserError {
  return new UserError(`${printable(file)}: ${printable(place)}.${field}: ${why}`, EXIT.usage);
}

/** An entry as the order check sees it: its name, its `after`, and where it is. */
export interface OrderedEntry {
  name: string | null;
  after?: ServiceFields["after"];
  place: string;
}

/**
 * Every name in an `after` is some entry's, and no entry waits on itself through others; checked
 * before anything starts (`dev.json: dirs["~/app"][2].after: no entry named "dbb" (did you mean "db"?)`);
 * `field` is what the file calls it (process-compose: `depends_on`).
 */
export function checkOrder(entries: readonly OrderedEntry[], file: string, field = "after"): void {
  const names = entries.flatMap((e) => (e.name === null ? [] : [e.name]));
  const graph = new Map<string, string[]>();
  for (const entry of entries) {
    const waits = conditionsOf(entry.after).map((c) => c.name);
    for (const name of waits) {
      if (names.includes(name)) continue;
      const near = nearest(name, names);
      throw serviceRefusal(file, entry.place, field, `no entry named ${JSON.stringify(name)}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ""}`);
    }
    if (entry.name !== null) graph.set(entry.name, [...(graph.get(entry.name) ?? []), ...waits]);
  }
  const cycle = findCycle(graph);
  if (!cycle) return;
  const at = entries.find((e) => e.name === cycle[0])!;
  throw serviceRefusal(file, at.place, field, `a cycle: ${cycle.join(" → ")}; nothing was started`);
}

// ---- `run`'s flags ---------------------------------------------------------------------------
// `--ready-log`, `--ready-http`, `--ready-port`, `--ready-cmd` (one at a time), `--ready-timeout`,
// `--stop-signal`, `--stop-timeout`: the same fields, so a saved task keeps them.

export interface ServiceFlagValues {
  "ready-log"?: string | undefined;
  "ready-http"?: string | undefined;
  "ready-port"?: string | undefined;
  "ready-cmd"?: string | undefined;
  "ready-timeout"?: string | undefined;
  "stop-signal"?: string | undefined;
  "stop-timeout"?: string | undefined;
}

/** The service fields the flags give, or null for none. */
export function serviceFlags(args: ServiceFlagValues): ServiceFields | null {
  const probes = (["ready-log", "ready-http", "ready-port", "ready-cmd"] as const).filter((f) => args[f] !== undefined);
  if (probes.length > 1) throw usageError(`run: one readiness probe at a time (given: --${probes.join(", --")})`);
  const fields: ServiceFields = {};
  const probe = probes[0];
  if (probe !== undefined) fields.ready = probeFlag(probe, args[probe]!);
  if (args["ready-timeout"] !== undefined) {
    if (probe === undefined) throw usageError("run: --ready-timeout goes with a --ready-* probe");
    fields.ready_timeout = secondsFlag("ready-timeout", args["ready-timeout"]);
  }
  if (args["stop-signal"] !== undefined) fields.stop_signal = args["stop-signal"].toUpperCase();
  if (args["stop-timeout"] !== undefined) fields.stop_timeout = secondsFlag("stop-timeout", args["stop-timeout"]);
  if (fields.stop_signal !== undefined && !serviceFields.allows({ stop_signal: fields.stop_signal }))
    throw usageError(`run: --stop-signal: expected TERM, INT, HUP, QUIT, KILL, USR1 or USR2, got '${args["stop-signal"]}'`);
  return Object.keys(fields).length > 0 ? fields : null;
}

function probeFlag(flag: "ready-log" | "ready-http" | "ready-port" | "ready-cmd", value: string): NonNullable<ServiceFields["ready"]> {
  if (flag === "ready-log") {
    const problem = logPatternProblem(value);
    if (problem) throw usageError(`run: --ready-log: ${problem}`);
    return { log: value };
  }
  if (flag === "ready-http") {
    if (!serviceFields.allows({ ready: { http: value } })) throw usageError(`run: --ready-http: expected an http:// or https:// URL, got '${value}'`);
    return { http: value };
  }
  if (flag === "ready-port") {
    const port = Number(value);
    if (!serviceFields.allows({ ready: { port } })) throw usageError(`run: --ready-port: expected a port 1-65535, got '${value}'`);
    return { port };
  }
  if (value.trim() === "") throw usageError("run: --ready-cmd: give the command to try");
  return { cmd: value };
}

function secondsFlag(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !serviceFields.allows({ stop_timeout: n })) throw usageError(`run: --${flag}: expected seconds above 0, got '${value}'`);
  return n;
}
