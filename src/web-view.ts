// What the page shows of the fleet, as a pure function of it: the dashboard's glyphs, states and
// labels (view-task.ts, view-fleet.ts), the waiting tasks of every host first in a section of
// their own, then every other task by host (this machine first) and group; the title carries how many
// wait. A host that cannot be reached is one line in place of its tasks.
import { label } from "./task-labels.ts";
import { header, sections, waitedLonger } from "./view-fleet.ts";
import { age, glyph, restartText, stateText } from "./view-task.ts";
import { byCodeUnits } from "./text-order.ts";
import { printable } from "./text-printable.ts";
import { cpuCell, memCell, sampled, sparkline } from "./task-resources.ts";
import { changesCell } from "./text-changes.ts";
import type { Card, FleetView } from "./web-messages.ts";
import type { TaskInfo } from "./wire-protocol.ts";

/** One host's fleet as the web view knows it: `host` null is this machine; `note` is why its tasks are not shown. */
export interface HostTasks {
  host: string | null;
  tasks: TaskInfo[];
  note: string | null;
}

export function fleetView(fleets: HostTasks[], now: number, home: string | undefined): FleetView {
  const all = fleets.flatMap((f) => (f.note === null ? f.tasks.map((task) => ({ task, host: f.host })) : []));
  const waiting = all
    .filter((t) => t.task.attention)
    .sort((a, b) => waitedLonger(a.task, b.task) || byCodeUnits(a.host ?? "", b.host ?? "") || a.task.id - b.task.id);
  const remote = fleets.some((f) => f.host !== null);
  const byHost = fleets.flatMap((f) => hostSections(f, remote, home, now));
  const tasks = all.map((t) => t.task);
  return {
    title: waiting.length > 0 ? `(${waiting.length}) fleetcom` : "fleetcom",
    // The dashboard's header without its first part (the name, which the page shows) and its last (the grouping).
    summary: header(tasks, "group", false).split(" · ").slice(1, -1).join(" · "),
    waiting: waiting.length,
    sections: [...(waiting.length > 0 ? [{ title: "Waiting", cards: waiting.map((t) => card(t.task, t.host, now)) }] : []), ...byHost],
  };
}

/** A host's tasks that do not wait, by group; titled with the host's name once hosts are added (this machine's stay as they were). */
function hostSections(fleet: HostTasks, named: boolean, home: string | undefined, now: number): FleetView["sections"] {
  const prefix = named ? `${fleet.host ?? "this machine"} · ` : "";
  if (fleet.note !== null) return [{ title: fleet.host ?? "this machine", cards: [], note: printable(fleet.note) }];
  const shown = sections(
    fleet.tasks.filter((t) => !t.attention),
    "group",
    fleet.host === null ? home : undefined,
  );
  return shown.map((s) => ({ title: printable(prefix + s.title), cards: s.tasks.map((t) => card(t, fleet.host, now)) }));
}

function card(task: TaskInfo, host: string | null, now: number): Card {
  return {
    id: task.id,
    host,
    glyph: glyph(task),
    label: printable(label(task)),
    state: stateText(task, now),
    message: task.attention?.message ?? null,
    preview: printable(task.preview.trim()),
    age: age(task.endedAt ?? task.startedAt, now),
    use: sampled(task) ? `${cpuCell(task.cpu)} · ${memCell(task.rss)}` : "",
    spark: sparkline(task.cpuRecent ?? []),
    waited: task.attention ? age(task.attention.since, now) : null,
    running: task.state === "running",
    restart: restartText(task, now),
    changes: changesCell(task.changes),
  };
}
