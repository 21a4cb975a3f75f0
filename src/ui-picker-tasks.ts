// `fleetcom attach` without TASK: pick a task from a line-oriented list, then attach to it. The
// tasks waiting for their user come first: they are the ones most likely wanted.
import { withDaemon } from "./client.ts";
import { label } from "./task-labels.ts";
import { age, glyph } from "./view-task.ts";
import { tildePath } from "./paths.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import { pick } from "./ui-picker.ts";

export function taskPickRow(task: TaskInfo, home: string | undefined, now = Date.now()): string {
  const parts = [
    `${glyph(task)}${task.tagged ? "◆" : ""} ${task.id} ${printable(label(task))}`,
    printable(tildePath(task.cwd, home)),
    age(task.startedAt, now),
  ];
  if (task.preview) parts.push(printable(task.preview));
  return parts.join(" · ");
}

/** The picked task's id, or null when cancelled or there is no task. */
export async function pickTask(): Promise<number | null> {
  const tasks = await withDaemon((c) => c.request("ls"));
  if (tasks.length === 0) {
    console.log("no tasks (start one with fleetcom run -- CMD)");
    return null;
  }
  const now = Date.now();
  const picked = await pick({
    lists: [
      {
        id: "tasks",
        title: "Tasks",
        tabName: "tasks",
        pickHint: "attach",
        empty: "no tasks",
        items: () =>
          waitingFirst(tasks).map((task) => ({
            key: String(task.id),
            text: taskPickRow(task, process.env.HOME, now),
            match: `${task.id} ${label(task)} ${task.command} ${task.group ?? ""} ${task.cwd}`,
            value: task.id,
          })),
      },
    ],
  });
  return picked?.value ?? null;
}

/** The tasks that wait (`!`) first, then the others; by id within each. */
function waitingFirst(tasks: readonly TaskInfo[]): TaskInfo[] {
  return [...tasks].sort((a, b) => Number(b.attention !== null) - Number(a.attention !== null) || a.id - b.id);
}
