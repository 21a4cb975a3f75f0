// An added host's news (client-host-news.ts, docs/notify.md "Every host's waits, pushed from here")
// through this machine's destinations: the task named by its host (`gpu1:3 claude waits for input`),
// its rate window apart from this machine's tasks, and a held push still true only if that host's
// link still says so. The same rules as for a task here: a wait once per state, an end by itself,
// `finished` only after notify_min_runtime, nothing for a task muted there.
import { type Origin, type Push, type PushBody, pushState } from "./daemon-notify.ts";
import { label } from "./task-labels.ts";
import type { TaskInfo } from "./wire-protocol.ts";

export function pushHostNews(push: Push, host: string, task: TaskInfo, before: TaskInfo | null, current: () => TaskInfo | null): void {
  if (!task.notify) return;
  const named = { id: task.id, name: `${host}:${task.id} ${label(task)}`, group: task.group };
  const origin: Origin = { key: `${host}:${task.id}`, host, stillTrue: (body) => stillTrue(current(), body) };
  // The host's screen is not carried on the link: its last line is what the task shows in every list.
  const screen = () => (task.preview.trim() === "" ? [] : [task.preview]);
  if (task.state === "exited") {
    const ranMs = Date.parse(task.endedAt ?? task.startedAt) - Date.parse(task.startedAt);
    push.ended(named, task, ranMs, screen, origin);
  } else if (task.attention) push.raised(named, before?.attention ?? null, task.attention, screen, origin);
}

function stillTrue(task: TaskInfo | null, body: PushBody): boolean {
  if (!task) return false;
  if (body.state === "finished" || body.state === "failed") return task.state === "exited";
  return task.attention !== null && pushState(task.attention) === body.state;
}
