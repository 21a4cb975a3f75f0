// How tasks look to people: glyphs, labels, ages, the ls table. Pure functions of TaskInfo, shared
// by `ls` and the dashboard.
import type { TaskInfo } from "./messages.ts";
import { clusters, textWidth } from "./text-width.ts";

export function glyph(task: TaskInfo): string {
  if (task.attention) return "!";
  if (task.state === "running") return task.idle ? "∙" : "✻";
  return task.exitCode === 0 && task.signal === null ? "✓" : "✗";
}

export function label(task: TaskInfo): string {
  return task.name ?? task.command;
}

export function stateText(task: TaskInfo): string {
  if (task.attention) return ATTENTION_TEXT[task.attention.state];
  if (task.state === "running") return task.idle ? "idle" : "active";
  if (task.signal) return `killed (${task.signal})`;
  return `exited ${task.exitCode}`;
}

const ATTENTION_TEXT = { input: "waiting: input", permission: "waiting: permission", bell: "waiting: bell" } as const;

export function age(fromIso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(fromIso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

export function tildePath(path: string, home: string | undefined): string {
  if (!home) return path;
  if (path === home) return "~";
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** Cuts to `width` terminal columns with `…`, never wrapping, never inside a cluster (text-width.ts). */
export function cut(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  if (width <= 0) return "";
  let kept = "";
  let used = 0;
  for (const [cluster, w] of clusters(text)) {
    if (used + w > width - 1) break;
    kept += cluster;
    used += w;
  }
  return `${kept}…`;
}

export function lsTable(tasks: TaskInfo[], home: string | undefined, now = Date.now()): string {
  if (tasks.length === 0) return "no tasks\n";
  const rows = tasks.map((t) => [
    String(t.id),
    `${glyph(t)}${t.tagged ? "◆" : ""}`,
    cut(label(t), 40),
    tildePath(t.cwd, home),
    t.group ?? "",
    stateText(t),
    age(t.startedAt, now),
    cut(t.preview, 40),
  ]);
  const header = ["ID", "", "TASK", "DIR", "GROUP", "STATE", "AGE", "PREVIEW"];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => [...r[i]!].length)));
  return all.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + " ".repeat(widths[i]! - [...cell].length))).join("  ").trimEnd()).join("\n") + "\n";
}
