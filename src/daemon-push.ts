// Push (docs/notify.md): `notify`'s destinations told that a task needs its person, or ended. Command
// lines run as FLEETCOM_NOTIFY always has (daemon-notifier.ts: once per new attention, at once);
// ntfy topics and webhooks get an HTTP POST, at most one per task per `intervalMs` (a later
// transition inside that time waits for its end and is sent then if it is still true), retried with
// a growing delay when the endpoint fails or answers other than 2xx.
//
// Invariant: nothing here holds up the daemon. A send is an async fetch with a timeout; each
// destination has its own queue, bounded (the oldest is dropped), worked one push at a time; a
// retry waits on a timer. The callers only ever enqueue.
import { Buffer } from "node:buffer";
import { type Notice, runNotifier } from "./daemon-notifier.ts";
import { errorMessage } from "./errors.ts";
import { nodeOs } from "./platform.ts";
import { type NotifyDestination, notifyDestination } from "./settings.ts";
import type { Task } from "./daemon-task.ts";
import { label } from "./task-labels.ts";
import { VERSION } from "./version.ts";
import type { NotifyTestResult, PushStatus, TaskInfo } from "./wire-protocol.ts";

/** A task as a push names it. */
export function pushTask(info: TaskInfo): PushTask {
  return { id: info.id, name: label(info), group: info.group };
}

/** The last lines of a task's screen, for a webhook. */
export function screenLines(task: Task): string[] {
  const text = task.screen.text(SCREEN_LINES);
  return text === "" ? [] : text.split("\n");
}

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
  held: PushBody | null;
  timer: ReturnType<typeof setTimeout> | null;
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
  private readonly windows = new Map<number, TaskWindow>();
  // Asked at the first push, not at the daemon's start, which would load node:os for it (platform.ts nodeOs).
  private hostName: string | null | undefined;

  constructor(private readonly options: PushOptions) {}

  private host(): string | null {
    if (this.hostName === undefined) this.hostName = nodeOs().hostname() || null;
    return this.hostName;
  }

  /** The destinations as written (settings.ts has refused the bad ones); one kept from before keeps its counts. */
  configure(written: readonly string[]): void {
    const before = new Map(this.outlets.map((o) => [o.destination.written, o]));
    this.outlets = written.flatMap((w) => {
      const parsed = notifyDestination(w);
      return "ok" in parsed ? [before.get(w) ?? outlet(parsed.ok)] : [];
    });
  }

  /**
   * A task started waiting, or waits in another way (isNewAttention): commands run for every such
   * transition, as they always have; a push goes only when its state changes too, so a Claude that
   * rings the bell and then runs its Stop hook (`bell`, then `input`) rings a phone once.
   */
  raised(task: PushTask, before: Notice["attention"] | null, attention: Notice["attention"], screen: () => string[]): void {
    if (this.outlets.length === 0) return;
    const notice: Notice = { taskId: task.id, label: task.name, attention };
    for (const o of this.outlets) if (o.destination.kind === "command") void this.runForAttention(o, o.destination.command, notice);
    if (!this.outlets.some((o) => o.destination.kind !== "command")) return;
    const state = pushState(attention);
    if (before && pushState(before) === state) return;
    this.throttled({ host: this.host(), task, state, message: attention.message, screen: screen(), time: new Date().toISOString() });
  }

  /** A task's run ended by itself: finished (exit 0) or failed. */
  ended(task: PushTask, exit: { exitCode: number | null; signal: string | null }, screen: () => string[]): void {
    if (!this.outlets.some((o) => o.destination.kind !== "command")) return;
    if (exit.signal !== null && STOPPED_ON_PURPOSE.has(exit.signal)) return;
    const state = exit.exitCode === 0 ? "finished" : "failed";
    const message = exit.exitCode === null ? `ended by ${exit.signal}` : `exited with code ${exit.exitCode}`;
    this.throttled({ host: this.host(), task, state, message, screen: screen(), time: new Date().toISOString() });
  }

  /** The task is gone from the fleet: nothing held for it is sent. */
  forget(taskId: number): void {
    const window = this.windows.get(taskId);
    if (window?.timer) clearTimeout(window.timer);
    this.windows.delete(taskId);
  }

  status(): PushStatus[] {
    return this.outlets.map((o) => ({
      destination: o.destination.written,
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
        return { destination: d.written, ok: result.ok, detail: result.detail };
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

  private throttled(body: PushBody): void {
    const { intervalMs } = this.options.timing;
    const now = performance.now();
    const window = this.windows.get(body.task.id);
    if (!window || now - window.sentAt >= intervalMs) {
      if (window?.timer) clearTimeout(window.timer);
      this.windows.set(body.task.id, { sentAt: now, held: null, timer: null });
      this.fanOut(body);
      return;
    }
    window.held = body;
    if (window.timer) return;
    window.timer = setTimeout(() => this.release(body.task.id), window.sentAt + intervalMs - now);
    window.timer.unref?.();
  }

  private release(taskId: number): void {
    const window = this.windows.get(taskId);
    if (!window) return;
    const held = window.held;
    window.timer = null;
    window.held = null;
    if (!held || !this.options.stillTrue(held)) return;
    window.sentAt = performance.now();
    this.fanOut(held);
  }

  private fanOut(body: PushBody): void {
    for (const o of this.outlets) {
      if (o.destination.kind === "command") continue;
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

function outlet(destination: NotifyDestination): Outlet {
  return { destination, queue: [], busy: false, sent: 0, failed: 0, lastSent: null, lastError: null };
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
 * never the screen, since a topic on a public server is readable by whoever knows its name.
 */
export function pushRequest(
  d: Exclude<NotifyDestination, { kind: "command" }>,
  body: PushBody,
): { url: string; init: { headers: Record<string, string>; body: string } } {
  const userAgent = `fleetcom/${VERSION}`;
  if (d.kind === "webhook")
    return { url: d.url, init: { headers: { "Content-Type": "application/json", "User-Agent": userAgent }, body: JSON.stringify(body) } };
  const look = NTFY_LOOK[body.state];
  const title = `${body.task.name} ${look.verb}${body.host ? ` (${body.host})` : ""}`;
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
