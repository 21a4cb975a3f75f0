// Readiness (docs/services.md): when a started task counts as up. A probe says it (a line of output,
// an HTTP answer, a TCP connect, a command's exit 0), tried every second until it passes or the
// timeout ends; until then the task is starting. Pure: the probes' I/O is daemon-ready.ts's.

/** What `run --ready-*` and a recipe's `ready` say; exactly one kind. */
export type ReadyProbe = { log: string } | { http: string } | { port: number } | { cmd: string };

export const DEFAULT_READY_TIMEOUT_S = 60;
/** How often a probe is tried. */
export const PROBE_INTERVAL_MS = 1_000;
/** The longest line a log probe's pattern is run on: the backtracking rule (config-agents.ts) keeps matching polynomial in the length, and this keeps the length small. */
export const MAX_MATCHED_LINE = 512;

export type ReadyState = "starting" | "ready" | "not-ready";

/** A task's readiness as every client sees it (TaskInfo `readiness`). */
export interface Readiness {
  state: ReadyState;
  /** `log`, `http`, `port` or `cmd`. */
  probe: keyof ReadyProbeUnion;
  timeoutSeconds: number;
  /** When it became ready or gave up (ISO 8601); null while starting. */
  since: string | null;
}

// CSI and OSC sequences and two-byte escapes: a coloured `listening on :3000` still matches.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[^[\]]/g;

function stripAnsi(line: string): string {
  return line.includes("\x1b") ? line.replace(ESCAPES, "") : line;
}

type ReadyProbeUnion = { log: string; http: string; port: number; cmd: string };

export function probeKind(probe: ReadyProbe): Readiness["probe"] {
  return Object.keys(probe)[0] as Readiness["probe"];
}

/** `not ready after 60s`: what ls and the attention say of a probe that never passed. */
export function notReadyText(timeoutSeconds: number): string {
  return `not ready after ${timeoutSeconds}s`;
}

/** A short word for ls's state column, or null when readiness has nothing to add (no probe, or the task ended). */
export function readinessText(readiness: Readiness | null, running: boolean): string | null {
  if (!readiness || !running) return null;
  if (readiness.state === "not-ready") return notReadyText(readiness.timeoutSeconds);
  return readiness.state;
}

/**
 * Output read as lines for a log probe: escape sequences stripped, each complete line tested once.
 * Bounded: a partial line longer than MAX_MATCHED_LINE is cut to that many characters and tested.
 */
export class LineMatcher {
  private partial = "";
  private readonly decoder = new TextDecoder();

  constructor(private readonly pattern: RegExp) {}

  /** Whether a line completed by `chunk` (or a partial one grown past the bound) matches. */
  push(chunk: Uint8Array): boolean {
    const text = this.partial + this.decoder.decode(chunk, { stream: true });
    const lines = text.split(/\r?\n|\r/);
    this.partial = lines.pop() ?? "";
    if (this.partial.length > MAX_MATCHED_LINE) {
      lines.push(this.partial.slice(0, MAX_MATCHED_LINE));
      this.partial = "";
    }
    return lines.some((line) => this.pattern.test(stripAnsi(line).slice(0, MAX_MATCHED_LINE)));
  }
}
