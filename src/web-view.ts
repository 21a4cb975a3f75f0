// What the page shows of the fleet, as a pure function of it: the dashboard's glyphs, states and
// labels (ui-format.ts, ui-dashboard-view.ts), the waiting tasks first in a section of their own,
// then every other task by group; the title carries how many wait.
import { label } from "./task-labels.ts";
import { header, sections } from "./ui-dashboard-view.ts";
import { age, glyph, stateText } from "./ui-format.ts";
import { printable } from "./text-printable.ts";
import type { Card, FleetView } from "./web-messages.ts";
import type { TaskInfo } from "./wire-protocol.ts";

export function fleetView(tasks: TaskInfo[], now: number, home: string | undefined): FleetView {
  const waiting = tasks.filter((t) => t.attention).sort((a, b) => a.attention!.since.localeCompare(b.attention!.since) || a.id - b.id);
  const others = sections(
    tasks.filter((t) => !t.attention),
    "group",
    home,
  );
  const shown = [...(waiting.length > 0 ? [{ title: "Waiting", tasks: waiting }] : []), ...others];
  return {
    title: waiting.length > 0 ? `(${waiting.length}) fleetcom` : "fleetcom",
    // The dashboard's header without its first part (the name, which the page shows) and its last (the grouping).
    summary: header(tasks, "group", false).split(" · ").slice(1, -1).join(" · "),
    waiting: waiting.length,
    sections: shown.map((s) => ({ title: printable(s.title), cards: s.tasks.map((t) => card(t, now)) })),
  };
}

function card(task: TaskInfo, now: number): Card {
  return {
    id: task.id,
    glyph: glyph(task),
    label: printable(label(task)),
    state: stateText(task),
    message: task.attention?.message ?? null,
    preview: printable(task.preview.trim()),
    age: age(task.endedAt ?? task.startedAt, now),
    running: task.state === "running",
  };
}
