// `fleetcom wait TASK --for waiting|exit|idle|ready [--timeout S]`: returns (exit 0) when the task needs
// its user, has exited, is ready (docs/services.md), or has been quiet for the daemon's idle_seconds (10 s by default); exit 124 on timeout, as timeout(1) does. It follows
// the daemon's task events rather than polling; idle alone needs a timer, since quiet is the absence
// of events, and the daemon confirms it when the timer fires.
// `fleetcom wait --any --for … [--group G]` returns the first task of the fleet (or of group G) that
// meets the condition, printing its id: with ten agents running, the one that needs the user now.
import { defineCommand } from "./kit-define.ts";
import { DaemonClient } from "./client.ts";
import { FleetModel } from "./client-fleet.ts";
import { hostsMayBeAdded, type Target, targetIn, targetOf } from "./client-target.ts";
import type { RemoteHost } from "./client-ssh.ts";
import { EXIT, UserError, usageError } from "./errors.ts";
import { isOneOf } from "./kit-flags.ts";
import { stateText } from "./view-task.ts";
import { printable } from "./text-printable.ts";
import { msUntilIdle } from "./task-idle.ts";
import { DEFAULT_IDLE_SECONDS } from "./settings.ts";
import type { TaskEvent, TaskInfo } from "./wire-protocol.ts";
import { normalizeGroup } from "./task-labels.ts";
import { resolveTaskRef } from "./task-ref.ts";
import { exitCodeOf } from "./task-exit.ts";

export const CONDITIONS = ["waiting", "exit", "idle", "ready"] as const;
export type Condition = (typeof CONDITIONS)[number];

export const TIMED_OUT = 124;

/**
 * Met, unreachable (the reason), or not yet. An exited or waiting task is quiet, so it satisfies
 * idle at once; a task that exited never waits any more.
 */
export function check(task: TaskInfo, condition: Condition): "met" | { never: string } | null {
  if (condition === "exit") return task.state === "exited" ? "met" : null;
  if (condition === "ready") return readyVerdict(task);
  if (condition === "waiting") {
    if (task.attention) return "met";
    return task.state === "exited" ? { never: `task ${task.id} ${stateText(task)} without waiting` } : null;
  }
  return task.state === "exited" || task.attention || task.idle ? "met" : null;
}

/** Ready: its probe passed, or it has none and runs; never, once it ended or its probe gave up. */
function readyVerdict(task: TaskInfo): "met" | { never: string } | null {
  const state = task.readiness?.state ?? null;
  if (task.state === "running" && (state === null || state === "ready")) return "met";
  if (state === "not-ready") return { never: `task ${task.id} is ${stateText(task)}` };
  return task.state === "exited" ? { never: `task ${task.id} ${stateText(task)} before it was ready` } : null;
}

/**
 * Milliseconds until it is worth asking whether the task has been quiet long enough, by its last
 * output. The daemon decides idleness on its monotonic clock; this is only when to ask again.
 */
export function untilQuiet(task: TaskInfo, now: number, idleMs: number): number {
  return msUntilIdle(Date.parse(task.lastOutputAt ?? task.startedAt), now, idleMs);
}

/** The idle threshold the daemon goes by: its config file's idle_seconds, or the environment it started in. */
async function daemonIdleMs(client: DaemonClient): Promise<number> {
  const { settings } = await client.request("status");
  return (settings?.idleSeconds.value ?? DEFAULT_IDLE_SECONDS) * 1000;
}

function parseTimeout(value: string | undefined): number | null {
  if (value === undefined) return null;
  const seconds = Number(value);
  if (value.trim() === "" || !Number.isFinite(seconds) || seconds < 0)
    throw usageError(`wait: --timeout: expected a number of seconds, got '${printable(value)}'`);
  return seconds * 1000;
}

export default defineCommand({
  facts: { tasks: "all", remote: "transport", plain: true },
  meta: {
    name: "wait",
    description:
      "Wait until a task needs attention, exits or goes quiet; --for exit ends with the task's exit code (of several, the first non-zero; 124 on timeout)",
  },
  args: {
    task: {
      type: "positional",
      valueHint: "[TASK…]",
      description: "The tasks to wait for, every one (or --any for the first task of the fleet)",
      required: false,
    },
    for: {
      type: "string",
      valueHint: "WHAT",
      description: "What to wait for: waiting (it needs you), exit (it ended; exits with its code), idle (quiet) or ready (its readiness probe passed)",
    },
    any: { type: "boolean", description: "Wait for the first task of the fleet (or of --group) to meet the condition; prints its id" },
    group: { type: "string", valueHint: "GROUP", description: "With --any: only the tasks of GROUP" },
    timeout: { type: "string", valueHint: "SECONDS", description: "Give up after SECONDS (exit 124)" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    // Each value given is checked before what is missing: `wait dev --timeout abc` is about abc.
    const timeoutMs = parseTimeout(args.timeout);
    const condition = args.for;
    if (condition === undefined) throw usageError("wait: missing --for waiting|exit|idle|ready (usage: fleetcom wait [OPTIONS] TASK --for WHAT)");
    if (!isOneOf(CONDITIONS, condition)) throw usageError(`wait: --for: expected waiting, exit, idle or ready, got '${printable(condition)}'`);
    const refs = args._ as string[];
    const ref = refs[0];
    if (args.any && ref !== undefined) throw usageError("wait: give a TASK or --any, not both");
    if (!args.any && ref === undefined) throw usageError("wait: name a TASK, or --any for the first task of the fleet");
    if (args.group !== undefined && !args.any) throw usageError("wait: --group goes with --any");
    // The daemon's rule for groups: `--group Unassigned` (or an empty one) means the tasks without one.
    const scope: Scope = args.any ? { kind: "any", group: args.group === undefined ? undefined : normalizeGroup(args.group) } : { kind: "one", ref: ref! };
    if (scope.kind === "any" && target.kind === "here" && hostsMayBeAdded()) {
      const { readHosts } = await import("./client-hosts.ts");
      const hosts = readHosts();
      if (hosts.length) {
        const found = await waitOnEveryHost(hosts, scope, condition, timeoutMs);
        console.log(found.name);
        if (condition === "exit") process.exitCode = exitCodeOf(found.task);
        return;
      }
    }
    if (refs.length > 1) {
      process.exitCode = await waitForEach(target, refs, condition, timeoutMs);
      return;
    }
    const client = await DaemonClient.open(target, { autostart: false });
    try {
      const idleMs = condition === "idle" ? await daemonIdleMs(client) : DEFAULT_IDLE_SECONDS * 1000;
      const task = await waitFor(client, scope, condition, timeoutMs, idleMs);
      if (scope.kind === "any") console.log(task.id);
      // As shell `wait` and `docker wait`: the task's own exit code reaches the script.
      if (condition === "exit") process.exitCode = exitCodeOf(task);
    } finally {
      client.close();
    }
  },
});

/**
 * `wait A B C --for …`: every task named, each on a connection of its own (a connection follows one
 * wait); with `--for exit`, the code of the first in the order given that did not end with 0, as a
 * script that waits for several jobs wants to hear of any failure.
 */
async function waitForEach(target: Target, refs: readonly string[], condition: Condition, timeoutMs: number | null): Promise<number> {
  const clients = await Promise.all(refs.map(() => DaemonClient.open(target, { autostart: false })));
  try {
    const idleMs = condition === "idle" ? await daemonIdleMs(clients[0]!) : DEFAULT_IDLE_SECONDS * 1000;
    const tasks = await Promise.all(refs.map((ref, i) => waitFor(clients[i]!, { kind: "one", ref }, condition, timeoutMs, idleMs)));
    if (condition !== "exit") return 0;
    return tasks.map(exitCodeOf).find((code) => code !== 0) ?? 0;
  } finally {
    for (const client of clients) client.close();
  }
}

/**
 * `wait --any` with hosts added: every host's fleet and this one's, at once; the first task to meet
 * the condition, as `ID` here or `HOST:ID` there. A host that cannot be reached is named on stderr
 * and the others still count; only when none can meet the condition (or the time is up) is it an error.
 */
async function waitOnEveryHost(hosts: RemoteHost[], scope: Scope, condition: Condition, timeoutMs: number | null): Promise<{ name: string; task: TaskInfo }> {
  const clients: DaemonClient[] = [];
  const onOne = async (host: RemoteHost | null) => {
    const client = await DaemonClient.open(targetOf(host), { autostart: host !== null, notices: host === null });
    clients.push(client);
    const idleMs = condition === "idle" ? await daemonIdleMs(client) : DEFAULT_IDLE_SECONDS * 1000;
    try {
      const task = await waitFor(client, scope, condition, timeoutMs, idleMs);
      return { name: host ? `${host.name}:${task.id}` : String(task.id), task };
    } catch (error) {
      if (host && error instanceof UserError && error.exitCode === EXIT.unreachable) process.stderr.write(`fleetcom: ${printable(error.message)}\n`);
      throw error;
    }
  };
  try {
    return await Promise.any([onOne(null), ...hosts.map(onOne)]);
  } catch (error) {
    if (!(error instanceof AggregateError)) throw error;
    // Time running out is the answer for all of them; else this machine's reason comes first.
    throw error.errors.find((e) => e instanceof UserError && e.exitCode === TIMED_OUT) ?? error.errors[0];
  } finally {
    for (const client of clients) client.close();
  }
}

/** One named task, or any task of the fleet, or of one group (null: the tasks with none). */
type Scope = { kind: "one"; ref: string } | { kind: "any"; group: string | null | undefined };

/** A task that can still meet the condition, for --any: an exited task never waits or goes quiet again. */
function stillPossible(task: TaskInfo, condition: Condition): boolean {
  return condition === "exit" || task.state === "running" || check(task, condition) === "met";
}

function waitFor(client: DaemonClient, scope: Scope, condition: Condition, timeoutMs: number | null, idleMs: number): Promise<TaskInfo> {
  return new Promise<TaskInfo>((resolve, reject) => {
    let id: number | null = null;
    const inScope = (task: TaskInfo) => (scope.kind === "one" ? task.id === id : scope.group === undefined || task.group === scope.group);
    const quietTimers = new Map<number, ReturnType<typeof setTimeout>>();
    let timeoutTimer: ReturnType<typeof setTimeout> | undefined;
    const settle = (outcome: TaskInfo | Error) => {
      for (const timer of quietTimers.values()) clearTimeout(timer);
      clearTimeout(timeoutTimer);
      client.handlers = {};
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const consider = (task: TaskInfo) => {
      const verdict = check(task, condition);
      if (verdict === "met") return settle(task);
      // --any: a task that exits without waiting is one fewer candidate, not a failure.
      if (verdict) return scope.kind === "one" ? settle(new UserError(verdict.never)) : undefined;
      if (condition === "idle") {
        clearTimeout(quietTimers.get(task.id));
        quietTimers.set(
          task.id,
          setTimeout(() => confirmQuiet(task.id), untilQuiet(task, Date.now(), idleMs)),
        );
      }
    };
    // The last event may be up to a change interval old: ask the daemon, which knows the last output.
    const confirmQuiet = (taskId: number) => {
      client
        .request("ls")
        .then((tasks) => {
          const task = tasks.find((t) => t.id === taskId);
          if (task) consider(task);
        })
        .catch((error) => settle(error));
    };
    const onEvent = (event: TaskEvent) => {
      if (!inScope(event.task)) return;
      if (event.event === "removed") {
        clearTimeout(quietTimers.get(event.task.id));
        if (scope.kind === "one") settle(new UserError(`task ${id} was removed`));
      } else consider(event.task);
    };
    client.handlers = {
      // Why the link ended (ssh's reason for another host's) is the wait's answer, printed once, by it.
      closed: (lost) => settle(lost),
      linkLost: true,
    };
    if (timeoutMs !== null) {
      const what = scope.kind === "one" ? `task ${id ?? scope.ref}` : `any task${groupText(scope.group)}`;
      timeoutTimer = setTimeout(() => {
        settle(new UserError(`timed out after ${timeoutMs / 1000}s waiting for ${what} (${condition})`, TIMED_OUT));
      }, timeoutMs);
    }
    new FleetModel(onEvent)
      .follow(client, (tasks) => {
        if (scope.kind === "one") {
          const task = resolveTaskRef(scope.ref, tasks);
          id = task.id;
          return consider(task);
        }
        const candidates = tasks.filter(inScope);
        if (!candidates.some((t) => stillPossible(t, condition))) {
          return settle(new UserError(`no running task${groupText(scope.group)} can meet --for ${condition}`));
        }
        for (const task of candidates) {
          consider(task);
          if (client.handlers.event === undefined) return;
        }
      })
      .catch((error) => settle(error));
  });
}

function groupText(group: string | null | undefined): string {
  if (group === undefined) return "";
  return group === null ? " without a group" : ` of group ${group}`;
}
