// What a task looks like to a person, wherever it is shown (ls, the dashboard, attach, the web
// view, wait): its glyph, its state in words, what a restart policy adds, and ages. Pure functions
// of TaskInfo; the ui-* and web-* files both draw from here.
import type { TaskInfo } from "./wire-protocol.ts";
import { age } from "./text-age.ts";
import { readinessText } from "./task-ready.ts";
import { countdownText, restartMark } from "./task-restart.ts";

/** One character that says at a glance where a task stands. */
export function glyph(task: TaskInfo): string {
  if (task.attention?.state === "crash-loop") return "↯";
  if (task.attention) return "!";
  if (waitsToRestart(task)) return "↻";
  // A service whose readiness probe has not passed yet (docs/services.md).
  if (task.state === "running" && task.readiness?.state === "starting") return "◌";
  if (task.state === "running") return task.idle ? "∙" : "✻";
  return task.exitCode === 0 && task.signal === null ? "✓" : "✗";
}

/** The state, and `↻3` once a restart policy restarted the task. */
export function stateText(task: TaskInfo, now = Date.now()): string {
  return `${bareState(task, now)}${restartMark(task.restarts)}`;
}

function bareState(task: TaskInfo, now: number): string {
  if (task.attention?.state === "crash-loop") return task.attention.message ?? "crash loop";
  if (task.attention?.state === "not-ready") return task.attention.message ?? "not ready";
  if (task.attention) return ATTENTION_TEXT[task.attention.state];
  if (waitsToRestart(task)) return countdownText(task.nextRestartAt, now);
  if (task.state === "running" && task.readiness) return readinessText(task.readiness, true) ?? "active";
  if (task.state === "running") return task.idle ? "idle" : "active";
  // Stopped by fleetcom itself (over --max-memory): why, rather than the signal it took.
  if (task.stopReason) return `stopped: ${task.stopReason}`;
  if (task.signal) return `killed (${task.signal})`;
  return `exited ${task.exitCode}`;
}

/** A restart policy will start it again (a daemon of an older version sends no `nextRestartAt` at all). */
function waitsToRestart(task: TaskInfo): task is TaskInfo & { nextRestartAt: string } {
  return typeof task.nextRestartAt === "string";
}

/** `restarting in 2s ↻3`, `↻3` or nothing: what a restart policy at work adds to a task's row or card. */
export function restartText(task: TaskInfo, now = Date.now()): string {
  const waiting = waitsToRestart(task) ? countdownText(task.nextRestartAt, now) : "";
  return `${waiting}${restartMark(task.restarts)}`.trim();
}

/** ` · restarting in 2s ↻3` for a dashboard row, or nothing. */
export function restartNote(task: TaskInfo, now = Date.now()): string {
  const text = restartText(task, now);
  return text === "" ? "" : ` · ${text}`;
}

/** A bell says only that the task wants its user, not what for. */
const ATTENTION_TEXT = { input: "waiting: input", permission: "waiting: permission", bell: "asked for attention" } as const;

/** The state, and for a waiting task how long its current wait has lasted: `waiting: input for 2m`. */
export function stateSince(task: TaskInfo, now: number): string {
  return task.attention ? `${stateText(task, now)} for ${age(task.attention.since, now)}` : stateText(task, now);
}

/** Running tasks show how long they have run; finished ones how long ago they ended; waiting ones how long they have waited. */
export function taskAge(task: TaskInfo, now: number): string {
  if (task.attention) return `waited ${age(task.attention.since, now)}`;
  return age(task.endedAt ?? task.startedAt, now);
}

export { age } from "./text-age.ts";
