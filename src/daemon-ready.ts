// Readiness probes (docs/services.md): each run of a task with a probe is starting until the probe
// passes, tried every second (a log probe on each line of output), then ready; one that has not
// passed when its timeout ends leaves the task not ready, with its attention raised. The rules and
// the line matching are task-ready.ts's; here are the timers and the probes' I/O, none of which
// ever blocks the daemon: an HTTP try, a connect and a command each have their own bound.
import type { Task } from "./daemon-task.ts";
import { acceptsOnLoopback, killGroup, startInGroup } from "./platform.ts";
import { DEFAULT_READY_TIMEOUT_S, LineMatcher, PROBE_INTERVAL_MS, probeKind, type ReadyProbe } from "./task-ready.ts";

/** How long one try may take: a probe that hangs is a probe that failed this time. */
const TRY_BOUND_MS = 5_000;

interface Watch {
  run: number;
  deadline: number;
  timer: ReturnType<typeof setInterval>;
  matcher: LineMatcher | null;
  trying: boolean;
}

export interface ReadinessHooks {
  /** The task's readiness changed: clients hear of it, waiting entries look again. */
  changed(task: Task): void;
  /** Its probe gave up on this run (after the task's attention was raised). */
  gaveUp(task: Task): void;
}

export class ReadinessProbes {
  private readonly watches = new Map<Task, Watch>();
  /** The process groups of `--ready-cmd` tries under way, ended with the daemon. */
  private readonly tries = new Set<number>();

  constructor(private readonly hooks: ReadinessHooks) {}

  /** A run started: its probe begins, any earlier run's is dropped. */
  begin(task: Task): void {
    this.end(task);
    const probe = task.service.ready;
    if (probe === undefined) {
      task.readiness = null;
      return;
    }
    const timeoutSeconds = task.service.ready_timeout ?? DEFAULT_READY_TIMEOUT_S;
    task.readiness = { state: "starting", probe: probeKind(probe), timeoutSeconds, since: null };
    const watch: Watch = {
      run: task.run,
      deadline: performance.now() + timeoutSeconds * 1000,
      timer: setInterval(() => this.tick(task, probe), PROBE_INTERVAL_MS),
      matcher: "log" in probe ? new LineMatcher(new RegExp(probe.log)) : null,
      trying: false,
    };
    watch.timer.unref?.();
    this.watches.set(task, watch);
    // The first try at once: a server already listening is ready without a second's wait.
    if (!("log" in probe)) queueMicrotask(() => this.tick(task, probe));
  }

  /** Output of a task whose probe reads lines. */
  output(task: Task, chunk: Uint8Array): void {
    const watch = this.watches.get(task);
    if (watch?.matcher?.push(chunk)) this.settle(task, "ready");
  }

  /** The task is gone, or its probe is settled: no more tries. */
  end(task: Task): void {
    const watch = this.watches.get(task);
    if (!watch) return;
    clearInterval(watch.timer);
    this.watches.delete(task);
  }

  private tick(task: Task, probe: ReadyProbe): void {
    const watch = this.watches.get(task);
    if (!watch) return;
    if (!task.running || task.run !== watch.run) return this.end(task);
    if (performance.now() >= watch.deadline) return this.settle(task, "not-ready");
    if (watch.matcher || watch.trying) return;
    watch.trying = true;
    tryProbe(probe, task.cwd, this.tries).then((passed) => {
      watch.trying = false;
      if (passed && this.watches.get(task) === watch && task.running && task.run === watch.run) this.settle(task, "ready");
    });
  }

  private settle(task: Task, state: "ready" | "not-ready"): void {
    this.end(task);
    if (!task.readiness) return;
    task.readiness = { ...task.readiness, state, since: new Date().toISOString() };
    if (state === "not-ready") task.notReady(task.readiness.timeoutSeconds);
    this.hooks.changed(task);
    if (state === "not-ready") this.hooks.gaveUp(task);
  }

  dispose(): void {
    for (const task of [...this.watches.keys()]) this.end(task);
    for (const group of this.tries) killGroup(group);
  }
}

/** One try of a probe that is not a log probe: true when it passed. Never rejects. */
function tryProbe(probe: ReadyProbe, cwd: string, tries: Set<number>): Promise<boolean> {
  if ("http" in probe) return httpAnswers(probe.http);
  if ("port" in probe) return acceptsOnLoopback(probe.port, TRY_BOUND_MS);
  if ("cmd" in probe) return commandSucceeds(probe.cmd, cwd, tries);
  return Promise.resolve(false);
}

/** A 2xx or 3xx answer; a redirect is an answer, never followed. */
async function httpAnswers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(TRY_BOUND_MS) });
    await response.body?.cancel();
    return response.status >= 200 && response.status < 400;
  } catch {
    return false;
  }
}

/** `sh -c CMD` in the task's directory exits 0; one still running at the bound is killed, its whole process group, and failed. */
async function commandSucceeds(command: string, cwd: string, tries: Set<number>): Promise<boolean> {
  const { group, ended } = startInGroup(["/bin/sh", "-c", command], { cwd });
  if (group !== undefined) tries.add(group);
  const bound = setTimeout(() => group !== undefined && killGroup(group), TRY_BOUND_MS);
  const end = await ended;
  clearTimeout(bound);
  if (group !== undefined) tries.delete(group);
  return "code" in end && end.code === 0;
}
