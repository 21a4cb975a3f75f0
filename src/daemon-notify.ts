// Push (docs/notify.md): `notify`'s destinations told that a task needs its person, or ended. Command
// lines run as FLEETCOM_NOTIFY always has (daemon-notify-command.ts: once per new attention, at once);
// ntfy topics and webhooks get an HTTP POST, at most one per task per `intervalMs` (a later
// transition inside that time waits for its end and is sent then if it is still true), retried with
// a growing delay when the endpoint fails or answers other than 2xx.
//
// Invariant: nothing here holds up the daemon. A send is an async fetch with a timeout; each
// destination has its own queue, bounded (the oldest is dropped), worked one push at a time; a
// retry waits on a timer. The callers only ever enqueue.
import { Buffer } from "node:buffer";
import { type Notice, runNotifier } from "./daemon-notify-command.ts";
import { errorMessage } from "./errors.ts";
import { nodeOs } from "./platform.ts";
import { type NotifyDestination, type NotifyEvent, type NotifyTarget, notifyDestination, targetShown, targetText, wants } from "./config-notify.ts";
import { VERSION } from "./version.ts";
import type { NotifyTestResult, PushStatus } from "./wire-protocol.ts";

export type PushState = "input" | "permission" | "not-ready" | "finished" | "failed";

/** What a webhook receives as JSON, field by field in docs/notify.md. */
export interface PushBody {
  /** The machine the daemon runs on (the remote fleets' hosts tell theirs apart by it). */
  host: string | null;
  task: PushTask;
  state: PushState;
  message: string | null;
  /** The last lines of the task's screen, top to bottom, blank ones at the end left out. */
  screen: string[];
  /** When it happened (ISO 8601). */
  time: string;
}

export interface PushTask {
  id: number;
  /** As every list shows it: its name, else its command. */
  name: string;
  group: string | null;
}

export interface PushTiming {
  /** At most one push per task in this long. */
  intervalMs: number;
  /** The first retry's delay; each next one waits four times longer. */
  backoffMs: number;
  /** Tries per push, the first included. */
  attempts: number;
  /** How long one request may take. */
  timeoutMs: number;
}

export const PUSH_TIMING: PushTiming = { intervalMs: 30_000, backoffMs: 2_000, attempts: 4, timeoutMs: 10_000 };

/**
 * PUSH_TIMING, with FLEETCOM_PUSH_INTERVAL_MS and FLEETCOM_PUSH_BACKOFF_MS over it (whole numbers of
 * milliseconds; for tests, which cannot wait 30 s between two pushes); a bad value is logged and left out.
 */
export function pushTiming(env: Record<string, string | undefined>, log: (message: string) => void): PushTiming {
  const read = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    if (/^\d+$/.test(raw.trim())) return Number(raw);
    log(`${name}='${raw}' is not a whole number of milliseconds; using ${fallback}`);
    return fallback;
  };
  return {
    ...PUSH_TIMING,
    intervalMs: read("FLEETCOM_PUSH_INTERVAL_MS", PUSH_TIMING.intervalMs),
    backoffMs: read("FLEETCOM_PUSH_BACKOFF_MS", PUSH_TIMING.backoffMs),
  };
}

/** Pushes waiting per destination: a dead endpoint costs memory for these and no more. */
export const QUEUE_BOUND = 50;
export const SCREEN_LINES = 10;

/** Whoever stops a task on purpose (`kill`, the daemon's stop, a closed terminal) needs no push about it. */
const STOPPED_ON_PURPOSE = new Set(["SIGHUP", "SIGINT", "SIGTERM", "SIGKILL"]);

interface Outlet {
  destination: NotifyDestination;
  /** As the settings have it: the destination and the events it wants. */
  target: NotifyTarget;
  queue: PushBody[];
  busy: boolean;
  sent: number;
  failed: number;
  lastSent: string | null;
  lastError: { message: string; at: string } | null;
}

/** A task's rate window: when its last push went, and the newest transition held back since. */
interface TaskWindow {
  sentAt: number;
  held: Pending | null;
  timer: ReturnType<typeof setTimeout> | null;
}

/** A push on its way, with the event a destination's `events` filter on, and whose task it is. */
interface Pending {
  body: PushBody;
  event: NotifyEvent;
  origin: Origin | null;
}

/**
 * Another host's task (daemon-notify-hosts.ts): its rate window apart from this machine's tasks of the
 * same id, its host named in the push, and whether a held push is still true asked of that host's link.
 */
export interface Origin {
  key: string;
  host: string;
  stillTrue(body: PushBody): boolean;
}

/** One try's outcome: `HTTP 200 OK`, `exit 0`, or why it failed. */
interface Attempt {
  ok: boolean;
  detail: string;
}

export interface PushOptions {
  timing: PushTiming;
  log(message: string): void;
  /** Whether a push held back by the rate window still says what is true when its turn comes. */
  stillTrue(body: PushBody): boolean;
}

export class Push {
  private outlets: Outlet[] = [];
  private readonly windows = new Map<string, TaskWindow>();
  // Asked at the first push, not at the daemon's start, which would load node:os for it (platform.ts nodeOs).
  private hostName: string | null | undefined;

  constructor(private readonly options: PushOptions) {}

  private host(): string | null {
    if (this.hostName === undefined) this.hostName = nodeOs().hostname() || null;
    return this.hostName;
  }

  /** A finished task is told of only after a run this long; a failure always is. */
  private minRuntimeMs = 0;

  /**
   * The destinations as written (settings.ts has refused the bad ones), and the shortest run whose
   * end is worth a push; a destination kept from before keeps its counts.
   */
  configure(targets: readonly NotifyTarget[], minRuntimeMs = 0): void {
    this.minRuntimeMs = minRuntimeMs;
    const before = new Map(this.outlets.map((o) => [targetShown(o.target), o]));
    this.outlets = targets.flatMap((target) => {
      const parsed = notifyDestination(targetText(target));
      return "ok" in parsed ? [before.get(targetShown(target)) ?? outlet(parsed.ok, target)] : [];
    });
  }

  /**
   * A task started waiting, or waits in another way (isNewAttention): commands run for every such
   * transition, as they always have; a push goes only when its state changes too, so a Claude that
   * rings the bell and then runs its Stop hook (`bell`, then `input`) rings a phone once.
   */
  raised(task: PushTask, before: Notice["attention"] | null, attention: Notice["attention"], screen: () => string[], origin: Origin | null = null): void {
    if (this.outlets.length === 0) return;
    const notice: Notice = { taskId: task.id, label: task.name, attention };
    const event = attentionEvent(attention);
    for (const o of this.outlets) if (o.destination.kind === "command" && wants(o.target, event)) void this.runForAttention(o, o.destination.command, notice);
    if (!this.posts(event)) return;
    const state = pushState(attention);
    if (before && pushState(before) === state) return;
    const body: PushBody = { host: origin?.host ?? this.host(), task, state, message: attention.message, screen: screen(), time: new Date().toISOString() };
    this.throttled({ body, event, origin });
  }

  /**
   * A task's run ended by itself: finished (exit 0), told only after a run of at least the minimum
   * (a quick one-off's end is worth no buzz), or failed, always told, with the screen's last words.
   */
  ended(task: PushTask, exit: { exitCode: number | null; signal: string | null }, ranMs: number, screen: () => string[], origin: Origin | null = null): void {
    if (exit.signal !== null && STOPPED_ON_PURPOSE.has(exit.signal)) return;
    const state = exit.exitCode === 0 ? "finished" : "failed";
    if (!this.posts(state) || (state === "finished" && ranMs < this.minRuntimeMs)) return;
    const lines = screen();
    const how = exit.exitCode === null ? `ended by ${exit.signal}` : `exited with code ${exit.exitCode}`;
    const message = state === "failed" ? failureMessage(how, lines) : how;
    const body: PushBody = { host: origin?.host ?? this.host(), task, state, message, screen: lines, time: new Date().toISOString() };
    this.throttled({ body, event: state, origin });
  }

  /** Whether an ntfy topic or a webhook wants the event (command lines run for waits only). */
  private posts(event: NotifyEvent): boolean {
    return this.outlets.some((o) => o.destination.kind !== "command" && wants(o.target, event));
  }

  /** The task is gone from the fleet: nothing held for it is sent. */
  forget(taskId: number): void {
    const window = this.windows.get(String(taskId));
    if (window?.timer) clearTimeout(window.timer);
    this.windows.delete(String(taskId));
  }

  status(): PushStatus[] {
    return this.outlets.map((o) => ({
      destination: targetShown(o.target),
      sent: o.sent,
      failed: o.failed,
      queued: o.queue.length,
      lastSent: o.lastSent,
      lastError: o.lastError,
    }));
  }

  /** `fleetcom notify test`: one sample to every destination, tried once each, all at once. */
  test(): Promise<NotifyTestResult[]> {
    const time = new Date().toISOString();
    const task: PushTask = { id: 0, name: "fleetcom notify test", group: null };
    const message = "a test from fleetcom notify test";
    const body: PushBody = { host: this.host(), task, state: "input", message, screen: [], time };
    const notice: Notice = { taskId: 0, label: task.name, attention: { state: "input", since: time, message } };
    return Promise.all(
      this.outlets.map(async (o): Promise<NotifyTestResult> => {
        const d = o.destination;
        const result = d.kind === "command" ? await this.runCommand(o, d.command, notice) : await this.attempt(d, body).then((a) => this.record(o, a, ""));
        return { destination: targetShown(o.target), ok: result.ok, detail: result.detail };
      }),
    );
  }

  /** A command is never retried: a failed run is given up at once. */
  private async runForAttention(o: Outlet, command: string, notice: Notice): Promise<void> {
    const run = await this.runCommand(o, command, notice);
    if (!run.ok) o.failed++;
  }

  private async runCommand(o: Outlet, command: string, notice: Notice): Promise<Attempt> {
    const failure = await runNotifier(command, notice, this.options.log);
    return this.record(o, failure === null ? { ok: true, detail: "exit 0" } : { ok: false, detail: failure }, "");
  }

  private record(o: Outlet, attempt: Attempt, suffix: string): Attempt {
    const at = new Date().toISOString();
    if (attempt.ok) {
      o.sent++;
      o.lastSent = at;
    } else o.lastError = { message: `${attempt.detail}${suffix}`, at };
    return attempt;
  }

  private throttled(pending: Pending): void {
    const key = pending.origin?.key ?? String(pending.body.task.id);
    const { intervalMs } = this.options.timing;
    const now = performance.now();
    const window = this.windows.get(key);
    if (!window || now - window.sentAt >= intervalMs) {
      if (window?.timer) clearTimeout(window.timer);
      this.windows.set(key, { sentAt: now, held: null, timer: null });
      this.fanOut(pending);
      return;
    }
    window.held = pending;
    if (window.timer) return;
    window.timer = setTimeout(() => this.release(key), window.sentAt + intervalMs - now);
    window.timer.unref?.();
  }

  private release(key: string): void {
    const window = this.windows.get(key);
    if (!window) return;
    const held = window.held;
    window.timer = null;
    window.held = null;
    if (!held || !(held.origin ? held.origin.stillTrue(held.body) : this.options.stillTrue(held.body))) return;
    window.sentAt = performance.now();
    this.fanOut(held);
  }

  private fanOut({ body, event }: Pending): void {
    for (const o of this.outlets) {
      if (o.destination.kind === "command" || !wants(o.target, event)) continue;
      o.queue.push(body);
      if (o.queue.length > QUEUE_BOUND) {
        o.queue.shift();
        o.failed++;
        this.options.log(`push to ${o.destination.written}: ${QUEUE_BOUND} pushes waiting; the oldest dropped`);
      }
      void this.pump(o);
    }
  }

  private async pump(o: Outlet): Promise<void> {
    if (o.busy) return;
    o.busy = true;
    try {
      for (let body = o.queue.shift(); body; body = o.queue.shift()) await this.deliver(o, body);
    } finally {
      o.busy = false;
    }
  }

  private async deliver(o: Outlet, body: PushBody): Promise<void> {
    const { attempts, backoffMs } = this.options.timing;
    const d = o.destination;
    if (d.kind === "command") return;
    for (let n = 1; n <= attempts; n++) {
      const attempt = this.record(o, await this.attempt(d, body), ` (attempt ${n} of ${attempts})`);
      if (attempt.ok) return;
      if (n < attempts) await delay(backoffMs * 4 ** (n - 1));
      else {
        o.failed++;
        this.options.log(`push to ${d.written} about task ${body.task.id} (${body.state}) given up after ${attempts} attempts: ${attempt.detail}`);
      }
    }
  }

  /** One POST; its answer's status, or why there was none. */
  private async attempt(d: Exclude<NotifyDestination, { kind: "command" }>, body: PushBody): Promise<Attempt> {
    const { url, init } = pushRequest(d, body);
    try {
      const response = await fetch(url, { ...init, method: "POST", signal: AbortSignal.timeout(this.options.timing.timeoutMs) });
      await response.body?.cancel();
      const detail = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
      return { ok: response.ok, detail };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      return { ok: false, detail: timedOut ? `no answer in ${this.options.timing.timeoutMs / 1000}s` : errorMessage(error) };
    }
  }
}

/** A bell is the screen's own prompt: it asks for input. */
export function pushState(attention: Notice["attention"]): "input" | "permission" | "not-ready" | "failed" {
  if (attention.state === "not-ready") return "not-ready";
  // A restart policy that gave up (task-restart.ts) is the one failure of all the runs it made.
  if (attention.state === "crash-loop") return "failed";
  return attention.state === "permission" ? "permission" : "input";
}

/** The event a wait is filtered on: a bell asks for input as a prompt does. */
export function attentionEvent(attention: Notice["attention"]): NotifyEvent {
  if (attention.state === "crash-loop" || attention.state === "not-ready") return attention.state;
  return attention.state === "permission" ? "permission" : "input";
}

/** Lines of a failure's screen worth reading on a phone: the last few that say something. */
export const FAILURE_LINES = 3;

/**
 * How a failed run ended, then the last lines of its screen that are not blank: the error a person
 * would have read had they been looking (ntfy's body and the webhook's message alike).
 */
export function failureMessage(how: string, screen: readonly string[]): string {
  const said = screen.map((line) => line.trim()).filter((line) => line !== "");
  return [how, ...said.slice(-FAILURE_LINES).map((line) => line.slice(0, 200))].join("\n");
}

function outlet(destination: NotifyDestination, target: NotifyTarget): Outlet {
  return { destination, target, queue: [], busy: false, sent: 0, failed: 0, lastSent: null, lastError: null };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

const NTFY_LOOK: Record<PushState, { verb: string; priority: string; tags: string }> = {
  input: { verb: "waits for input", priority: "default", tags: "bell" },
  permission: { verb: "asks for permission", priority: "high", tags: "warning" },
  "not-ready": { verb: "is not ready", priority: "high", tags: "warning" },
  finished: { verb: "finished", priority: "default", tags: "white_check_mark" },
  failed: { verb: "failed", priority: "high", tags: "x" },
};

/**
 * The request for one push (pure). A webhook gets the body as JSON. ntfy gets a title, a priority,
 * tags and, when the destination names one, a click URL as headers, and the message as the body:
 * never the screen (a topic on a public server is readable by whoever knows its name) but for the
 * lines a failure's message carries, which say what went wrong.
 */
export function pushRequest(
  d: Exclude<NotifyDestination, { kind: "command" }>,
  body: PushBody,
): { url: string; init: { headers: Record<string, string>; body: string } } {
  const userAgent = `fleetcom/${VERSION}`;
  if (d.kind === "webhook")
    return { url: d.url, init: { headers: { "Content-Type": "application/json", "User-Agent": userAgent }, body: JSON.stringify(body) } };
  const look = NTFY_LOOK[body.state];
  // Another host's task is named by it already (`gpu1:3 claude`).
  const named = body.host !== null && body.task.name.startsWith(`${body.host}:`);
  const title = `${body.task.name} ${look.verb}${body.host && !named ? ` (${body.host})` : ""}`;
  const headers: Record<string, string> = { Title: headerText(title), Priority: look.priority, Tags: look.tags, "User-Agent": userAgent };
  if (d.click) headers.Click = d.click;
  if (d.authorization) headers.Authorization = d.authorization;
  return { url: d.url, init: { headers, body: body.message ?? look.verb } };
}

/** A header value as ntfy reads it: ASCII as is, anything else as an RFC 2047 encoded word (ntfy decodes those). */
export function headerText(text: string): string {
  const oneLine = text.replace(/[\p{Cc}]+/gu, " ");
  return /^[\x20-\x7e]*$/.test(oneLine) ? oneLine : `=?UTF-8?B?${Buffer.from(oneLine, "utf8").toString("base64")}?=`;
}
