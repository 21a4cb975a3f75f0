// Attention (agents.md, "Attention"): whether a task is waiting for its user, as a pure state
// machine. Inputs are what the daemon sees: the agent's own events (working, waiting for input or
// permission, session ended), a BEL in the output, ordinary output, the user typing into the task
// (keys while attached, `send`; attaching alone is looking, not answering), the run ending. The output is the attention shown everywhere, or null.
//
// The agent's channel beats the screen: while an agent says it waits, a BEL changes nothing and
// output never lowers it (agents redraw while they wait). A bell is the screen's own prompt: output
// that comes once the bell has settled means the program moved on (its prompt was answered, or it
// was only a notice), and lowers it; the redraw that comes with the bell does not.

/**
 * `not-ready`: a readiness probe gave up (task-ready.ts); `crash-loop`: a restart policy gave up on the
 * task (task-restart.ts). Each one's message says how.
 */
export type AttentionState = "input" | "permission" | "bell" | "not-ready" | "crash-loop";
export interface Attention {
  state: AttentionState;
  /** When the task started waiting in this state (ISO 8601). */
  since: string;
  message: string | null;
}

/** What an agent's own channel says about attention (agent-<name>.ts turns its events into these). */
export type AgentSignal = { kind: "working" } | { kind: "ended" } | { kind: "waiting"; state: "input" | "permission"; message: string | null };

export type AttentionEvent =
  | { type: "agent"; signal: AgentSignal }
  | { type: "bell" }
  | { type: "output" }
  | { type: "attended" } // the user typed into the task (attaching alone is only looking)
  | { type: "not-ready"; message: string } // its readiness probe never passed (task-ready.ts)
  | { type: "exited" }
  | { type: "crash-loop"; message: string }; // the restart policy gave up on the task
/** Output this long after the last bell means the program moved on. */
export const BELL_SETTLE_MS = 1_000;

export interface AttentionTracker {
  attention: Attention | null;
  /** When the last bell rang (monotonic ms), for the settle rule. */
  bellAt: number | null;
}

/** A moment on both clocks: wall for the `since` people read, monotonic for the settle rule. */
export interface Instant {
  wall: number;
  mono: number;
}

export const NO_ATTENTION: AttentionTracker = { attention: null, bellAt: null };

export function nextAttention(current: AttentionTracker, event: AttentionEvent, now: Instant): AttentionTracker {
  const { attention } = current;
  switch (event.type) {
    case "attended":
    case "exited":
      return NO_ATTENTION;
    case "agent":
      return fromAgent(current, event.signal, now);
    case "not-ready":
      return { attention: raised("not-ready", event.message, now), bellAt: null };
    case "bell":
      if (attention && attention.state !== "bell") return current;
      return { attention: attention ?? raised("bell", null, now), bellAt: now.mono };
    case "crash-loop":
      return { attention: raised("crash-loop", event.message, now), bellAt: null };
    case "output":
      if (attention?.state === "bell" && current.bellAt !== null && now.mono - current.bellAt >= BELL_SETTLE_MS) return NO_ATTENTION;
      return current;
  }
}

function fromAgent(current: AttentionTracker, signal: AgentSignal, now: Instant): AttentionTracker {
  if (signal.kind !== "waiting") return NO_ATTENTION;
  const { attention } = current;
  // The same state again (a hook that fires twice) is no new transition: it keeps its time.
  if (attention?.state === signal.state) return { attention: { ...attention, message: signal.message ?? attention.message }, bellAt: null };
  return { attention: raised(signal.state, signal.message, now), bellAt: null };
}

function raised(state: AttentionState, message: string | null, now: Instant): Attention {
  return { state, since: new Date(now.wall).toISOString(), message };
}

/** A transition into attention, or into another attention state: what FLEETCOM_NOTIFY runs for. */
export function isNewAttention(before: Attention | null, after: Attention | null): boolean {
  return after !== null && after.state !== before?.state;
}

// Lines that are the prompt's own chrome, not something said: box drawing and rules, a bare prompt
// glyph, the input box's edges.
const CHROME = /^[\s\u2500-\u257f\u2580-\u259f│|>❯›$#%]*$/u;

/**
 * When an agent waits without saying why (Claude's Stop without its last reply, a resumed agent
 * at its prompt): the last line on screen, from the cursor's row up, that says something. Prompt
 * chrome (rules, box edges, a bare `❯`) is skipped, so under Claude's input box this is its reply,
 * and for `Overwrite? [y/N]` it is the question.
 */
export function promptLine(rowsToCursor: readonly string[]): string | null {
  for (let i = rowsToCursor.length - 1; i >= 0; i--) {
    const row = rowsToCursor[i]!;
    if (!CHROME.test(row)) return attentionMessage(row.replace(/^[\s│|]+|[\s│|]+$/gu, ""));
  }
  return null;
}

/** A resumed agent that has drawn and then been quiet this long is at its prompt. */
export const RESUMED_QUIET_MS = 2_000;

const MESSAGE_MAX = 200;

/** An agent's message made safe to show and pass on: one line, no control characters, capped. */
export function attentionMessage(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const line = raw.replace(/[\p{Cc}\s]+/gu, " ").trim();
  if (line === "") return null;
  return [...line].length > MESSAGE_MAX ? `${[...line].slice(0, MESSAGE_MAX - 1).join("")}…` : line;
}
