// `fleetcom wait TASK --for waiting|exit|idle [--timeout S]`: returns (exit 0) when the task needs
// its user, has exited, or has been quiet 10 s; exit 124 on timeout, as timeout(1) does. It follows
// the daemon's task events rather than polling; idle alone needs a timer, since quiet is the absence
// of events, and the daemon confirms it when the timer fires.
import { defineCommand } from "citty";
import { DaemonClient } from "./client.ts";
import { EXIT, UserError, usageError } from "./errors.ts";
import { stateText } from "./ui-format.ts";
import { msUntilIdle } from "./idle.ts";
import type { TaskEvent, TaskInfo } from "./wire-protocol.ts";
import { resolveTaskRef } from "./task-ref.ts";

export const CONDITIONS = ["waiting", "exit", "idle"] as const;
export type Condition = (typeof CONDITIONS)[number];

export const TIMED_OUT = 124;

/**
 * Met, unreachable (the reason), or not yet. An exited or waiting task is quiet, so it satisfies
 * idle at once; a task that exited never waits any more.
 */
export function check(task: TaskInfo, condition: Condition): "met" | { never: string } | null {
  if (condition === "exit") return task.state === "exited" ? "met" : null;
  if (condition === "waiting") {
    if (task.attention) return "met";
    return task.state === "exited" ? { never: `task ${task.id} ${stateText(task)} without waiting` } : null;
  }
  return task.state === "exited" || task.attention || task.idle ? "met" : null;
}

/**
 * Milliseconds until it is worth asking whether the task has been quiet long enough, by its last
 * output. The daemon decides idleness on its monotonic clock; this is only when to ask again.
 */
export function untilQuiet(task: TaskInfo, now: number): number {
  return msUntilIdle(Date.parse(task.lastOutputAt ?? task.startedAt), now);
}

function parseTimeout(value: string | undefined): number | null {
  if (value === undefined) return null;
  const seconds = Number(value);
  if (value.trim() === "" || !Number.isFinite(seconds) || seconds < 0) throw usageError(`--timeout: expected a number of seconds, got '${value}'`);
  return seconds * 1000;
}

export default defineCommand({
  meta: { name: "wait", description: "Wait until a task needs attention, exits or goes quiet (exit 124 on timeout)" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    for: { type: "string", description: "waiting | exit | idle", required: true },
    timeout: { type: "string", description: "Give up after S seconds (exit 124)" },
  },
  async run({ args }) {
    const condition = args.for as Condition;
    if (!CONDITIONS.includes(condition)) throw usageError(`--for: expected waiting, exit or idle, got '${args.for}'`);
    const timeoutMs = parseTimeout(args.timeout);
    const client = await DaemonClient.open({ autostart: false });
    try {
      await waitFor(client, args.task, condition, timeoutMs);
    } finally {
      client.close();
    }
  },
});

function waitFor(client: DaemonClient, ref: string, condition: Condition, timeoutMs: number | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let id: number | null = null;
    let quietTimer: ReturnType<typeof setTimeout> | undefined;
    let timeoutTimer: ReturnType<typeof setTimeout> | undefined;
    const settle = (error?: Error) => {
      clearTimeout(quietTimer);
      clearTimeout(timeoutTimer);
      client.handlers = {};
      if (error) reject(error);
      else resolve();
    };
    const consider = (task: TaskInfo) => {
      const verdict = check(task, condition);
      if (verdict === "met") return settle();
      if (verdict) return settle(new UserError(verdict.never));
      if (condition === "idle") {
        clearTimeout(quietTimer);
        quietTimer = setTimeout(confirmQuiet, untilQuiet(task, Date.now()));
      }
    };
    // The last event may be up to a change interval old: ask the daemon, which knows the last output.
    const confirmQuiet = () => {
      client
        .request("ls")
        .then((tasks) => {
          const task = tasks.find((t) => t.id === id);
          if (task) consider(task);
        })
        .catch((error) => settle(error));
    };
    client.handlers = {
      event: (event: TaskEvent) => {
        if (event.task.id !== id) return;
        if (event.event === "removed") settle(new UserError(`task ${id} was removed`));
        else consider(event.task);
      },
      closed: () => settle(new UserError("lost the connection to the daemon", EXIT.unreachable)),
    };
    if (timeoutMs !== null) {
      timeoutTimer = setTimeout(() => {
        settle(new UserError(`timed out after ${timeoutMs / 1000}s waiting for task ${id ?? ref} (${condition})`, TIMED_OUT));
      }, timeoutMs);
    }
    client
      .request("subscribe")
      .then((tasks) => {
        const task = resolveTaskRef(ref, tasks);
        id = task.id;
        consider(task);
      })
      .catch((error) => settle(error));
  });
}
