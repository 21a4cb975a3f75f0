// `fleetcom attach` without TASK: pick a task from a line-oriented list, then attach to it. The
// tasks waiting for their user come first: they are the ones most likely wanted. With hosts added,
// their tasks are listed too, as `HOST:ID` (a host that does not answer is named and left out), as
// `ls` and the dashboard list them.
import { withDaemon } from "./client.ts";
import type { RemoteHost } from "./client-ssh.ts";
import { hostOf, hostsMayBeAdded, type Target } from "./client-target.ts";
import { label } from "./task-labels.ts";
import { age, glyph } from "./view-task.ts";
import { tildePath } from "./paths.ts";
import { printable } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import { pick } from "./ui-picker.ts";

export function taskPickRow(task: TaskInfo, home: string | undefined, now = Date.now(), host: string | null = null): string {
  const parts = [
    `${glyph(task)}${task.tagged ? "◆" : ""} ${host === null ? "" : `${host}:`}${task.id} ${printable(label(task))}`,
    printable(tildePath(task.cwd, home)),
    age(task.startedAt, now),
  ];
  if (task.preview) parts.push(printable(task.preview));
  return parts.join(" · ");
}

/** A task and the host it runs on (null: this machine). */
export interface PickedTask {
  id: number;
  host: RemoteHost | null;
}

/** The picked task and its host, or null when cancelled or there is no task. */
export async function pickTask(target: Target): Promise<PickedTask | null> {
  const tasks = await everyHostsTasks(target);
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
          waitingFirst(tasks).map(({ task, host }) => {
            const ref = host === null ? String(task.id) : `${host.name}:${task.id}`;
            return {
              key: ref,
              text: taskPickRow(task, host === null ? process.env.HOME : host.home, now, host?.name ?? null),
              match: `${ref} ${label(task)} ${task.command} ${task.group ?? ""} ${task.cwd}`,
              value: { id: task.id, host },
            };
          }),
      },
    ],
  });
  return picked?.value ?? null;
}

/** The target's tasks, then each added host's that answers in time. */
async function everyHostsTasks(target: Target): Promise<{ task: TaskInfo; host: RemoteHost | null }[]> {
  const hosts = hostsMayBeAdded() ? await import("./client-hosts.ts") : null;
  const added = hosts?.readHosts() ?? [];
  const remote = added.map((h) => hosts!.askHost(h, (c) => c.request("ls"), hosts!.hostAnswerBoundMs()));
  const found = (await withDaemon(target, (c) => c.request("ls"))).map((task) => ({ task, host: hostOf(target) }));
  for (const [i, answer] of (await Promise.all(remote)).entries()) {
    if ("ok" in answer) found.push(...answer.ok.map((task) => ({ task, host: added[i]! })));
    else process.stderr.write(`fleetcom: ${printable(answer.error)}\n`);
  }
  return found;
}

/** The tasks that wait (`!`) first, then the others; this machine's first, by id within each. */
function waitingFirst<T extends { task: TaskInfo; host: RemoteHost | null }>(tasks: readonly T[]): T[] {
  const waits = (t: T) => Number(t.task.attention !== null);
  return [...tasks].sort((a, b) => waits(b) - waits(a) || Number(a.host !== null) - Number(b.host !== null) || a.task.id - b.task.id);
}
