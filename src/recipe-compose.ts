// A process-compose.yaml as a recipe (docs/services.md): its processes' command, directory,
// environment, depends_on, readiness probe, availability and shutdown, as the service fields
// fleetcom keeps (recipe-services.ts) and the restart policy's fields (task-restart.ts). What fleetcom has no equivalent for is listed, never dropped
// in silence. Pure: the YAML is parsed by the `yaml` package before it gets here.
import { resolve } from "node:path";
import { EXIT, UserError } from "./errors.ts";
import { checkOrder, type ServiceFields } from "./recipe-services.ts";
import type { AfterForm } from "./task-order.ts";
import type { RestartPolicy } from "./task-restart.ts";
import { printable } from "./text-printable.ts";
import { schema } from "./validator.ts";

const composeProcess = schema("composeProcess", (type) =>
  type({
    command: "string > 0",
    "working_dir?": "string",
    "environment?": type("string[]").or("Record<string, string | number | boolean>"),
    "depends_on?": type({ "[string]": { "condition?": "string" } }),
    "readiness_probe?": type({
      "exec?": { command: "string > 0" },
      "http_get?": { "host?": "string", port: "1 <= number.integer <= 65535", "path?": "string", "scheme?": "'http' | 'https'" },
    }),
    "ready_log_line?": "string > 0",
    "availability?": type({ "restart?": "string", "backoff_seconds?": "number >= 0", "max_restarts?": "number.integer >= 0" }),
    "shutdown?": type({ "signal?": "number.integer", "timeout_seconds?": "number > 0" }),
    "disabled?": "boolean",
  }),
);
type ComposeProcess = typeof composeProcess.infer;

/** Every key fleetcom reads; any other is listed in the one warning. */
const SUPPORTED: Record<string, readonly string[]> = {
  "": ["command", "working_dir", "environment", "depends_on", "readiness_probe", "ready_log_line", "availability", "shutdown", "disabled"],
  readiness_probe: ["exec", "http_get"],
  availability: ["restart", "max_restarts"],
  shutdown: ["signal", "timeout_seconds"],
};
const TOP_LEVEL = ["version", "processes"];

const CONDITIONS: Record<string, AfterForm> = {
  process_started: "started",
  process_healthy: "ready",
  process_completed_successfully: "done",
  process_log_ready: "ready",
};
const RESTARTS: Record<string, RestartPolicy> = { no: "no", on_failure: "on-failure", always: "always" };
const SIGNALS: Record<number, string> = { 1: "HUP", 2: "INT", 3: "QUIT", 9: "KILL", 10: "USR1", 12: "USR2", 15: "TERM" };

/** An entry as a fleetcom recipe file writes it. */
export type ImportedEntry = { cmd: string; name: string; restart?: RestartPolicy; max_restarts?: number } & ServiceFields;

export interface ImportedCompose {
  /** Entries by directory key (absolute). */
  dirs: Record<string, ImportedEntry[]>;
  /** `processes.web.disabled`, `log_location`, …: what fleetcom does not do. */
  unsupported: string[];
}

export function fromProcessCompose(doc: unknown, file: string, fileDir: string): ImportedCompose {
  if (!isRecord(doc) || !isRecord(doc.processes)) throw refused(file, "processes", "expected a map of processes");
  const unsupported = Object.keys(doc)
    .filter((k) => !TOP_LEVEL.includes(k))
    .map((k) => k);
  const dirs: Record<string, ImportedEntry[]> = {};
  for (const [name, value] of Object.entries(doc.processes)) {
    if (!composeProcess.allows(value)) throw refused(file, `processes.${name}`, processProblem(value));
    unsupported.push(...unsupportedKeys(value as Record<string, unknown>, `processes.${name}`));
    // As process-compose does: a disabled process is not started (one that waits on it is refused below).
    if (value.disabled) continue;
    const dir = resolve(fileDir, value.working_dir ?? ".");
    (dirs[dir] ??= []).push(toEntry(name, value, file, unsupported));
  }
  // Said in the file's own terms, before the recipe's check would say it in fleetcom's.
  const entries = Object.values(dirs).flat();
  checkOrder(
    entries.map((e) => ({ name: e.name, after: e.after, place: `processes.${e.name}` })),
    file,
    "depends_on",
  );
  return { dirs, unsupported };
}

function toEntry(name: string, p: ComposeProcess, file: string, unsupported: string[]): ImportedEntry {
  const entry: ImportedEntry = { cmd: p.command, name };
  const env = environment(p.environment);
  if (env) entry.env = env;
  const ready = probe(p);
  if (ready) entry.ready = ready;
  const after = dependsOn(p.depends_on, name, file);
  if (after) entry.after = after;
  const restart = p.availability?.restart;
  if (restart !== undefined) {
    if (RESTARTS[restart]) entry.restart = RESTARTS[restart];
    else unsupported.push(`processes.${name}.availability.restart: ${restart}`);
  }
  if (p.availability?.max_restarts !== undefined) entry.max_restarts = p.availability.max_restarts;
  const signal = p.shutdown?.signal;
  if (signal !== undefined) {
    if (SIGNALS[signal]) entry.stop_signal = SIGNALS[signal];
    else throw refused(file, `processes.${name}.shutdown.signal`, `signal ${signal} is not one fleetcom sends (${Object.keys(SIGNALS).join(", ")})`);
  }
  if (p.shutdown?.timeout_seconds !== undefined) entry.stop_timeout = p.shutdown.timeout_seconds;
  return entry;
}

function environment(env: ComposeProcess["environment"]): Record<string, string> | null {
  if (env === undefined) return null;
  if (!Array.isArray(env)) return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
  const pairs = env.flatMap((kv) => (kv.includes("=") ? [[kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)] as const] : []));
  return Object.fromEntries(pairs);
}

/** readiness_probe's exec or http_get, else ready_log_line as a log probe matching that text. */
function probe(p: ComposeProcess): ServiceFields["ready"] | null {
  const exec = p.readiness_probe?.exec;
  if (exec) return { cmd: exec.command };
  const http = p.readiness_probe?.http_get;
  if (http) return { http: `${http.scheme ?? "http"}://${http.host ?? "127.0.0.1"}:${http.port}${http.path ?? "/"}` };
  if (p.ready_log_line !== undefined) return { log: p.ready_log_line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") };
  return null;
}

function dependsOn(deps: ComposeProcess["depends_on"], name: string, file: string): Record<string, AfterForm> | null {
  if (deps === undefined) return null;
  const after: Record<string, AfterForm> = {};
  for (const [dep, { condition = "process_started" }] of Object.entries(deps)) {
    const form = CONDITIONS[condition];
    if (!form) throw refused(file, `processes.${name}.depends_on.${dep}.condition`, `expected one of ${Object.keys(CONDITIONS).join(", ")}`);
    after[dep] = form;
  }
  return after;
}

function unsupportedKeys(process: Record<string, unknown>, at: string): string[] {
  const found: string[] = [];
  for (const [key, value] of Object.entries(process)) {
    if (!SUPPORTED[""]!.includes(key)) found.push(`${at}.${key}`);
    else if (SUPPORTED[key] && isRecord(value))
      for (const inner of Object.keys(value)) if (!SUPPORTED[key].includes(inner)) found.push(`${at}.${key}.${inner}`);
  }
  return found;
}

function processProblem(value: unknown): string {
  if (!isRecord(value)) return "expected a map with a command";
  if (typeof value.command !== "string" || value.command === "") return "needs a command";
  return "a field has the wrong type (command, working_dir, environment, depends_on, readiness_probe, ready_log_line, availability, shutdown)";
}

function refused(file: string, at: string, why: string): UserError {
  return new UserError(`${printable(file)}: ${printable(at)}: ${why}`, EXIT.usage);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
