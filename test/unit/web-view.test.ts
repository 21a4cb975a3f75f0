import { describe, expect, test } from "bun:test";
import { fleetView as hostsView } from "../../src/web-view.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import { taskInfo } from "../harness/task-info.ts";

const NOW = Date.parse("2026-01-01T12:00:00Z");

function task(id: number, over: Partial<TaskInfo> = {}): TaskInfo {
  return taskInfo(id, { startedAt: new Date(NOW - 60_000).toISOString(), ...over });
}

/** This machine's fleet alone, no hosts added. */
const fleetView = (tasks: TaskInfo[], now: number, home: string | undefined) => hostsView([{ host: null, tasks, note: null }], now, home);

const waits = (since: number, message: string | null = null) => ({
  attention: { state: "permission" as const, since: new Date(since).toISOString(), message },
});

describe("the page's fleet", () => {
  test("waiting tasks come first, the longest waiting on top, then every other task by group", () => {
    const view = fleetView(
      [task(1, { group: "web" }), task(2, { group: "api", ...waits(NOW - 1_000) }), task(3, { group: "api" }), task(4, waits(NOW - 5_000, "Allow Bash(rm)?"))],
      NOW,
      "/home/u",
    );
    expect(view.sections.map((s) => [s.title, s.cards.map((c) => c.id)])).toEqual([
      ["Waiting", [4, 2]],
      ["api", [3]],
      ["web", [1]],
    ]);
    expect(view.sections[0]!.cards[0]).toMatchObject({ glyph: "!", state: "waiting: permission", message: "Allow Bash(rm)?" });
    // How long each has waited, from when its wait began; a task that does not wait has none.
    expect(view.sections[0]!.cards.map((c) => c.waited)).toEqual(["5s", "1s"]);
    expect(view.sections[1]!.cards[0]!.waited).toBeNull();
  });

  test("a restart policy at work: the count and the countdown on the card; a crash loop waits, with its text", () => {
    const restarting = task(1, { state: "exited", exitCode: 1, restarts: 2, nextRestartAt: new Date(NOW + 2_500).toISOString() });
    const attention = { state: "crash-loop" as const, since: new Date(NOW - 1_000).toISOString(), message: "crash loop · 5 restarts in 40s · exit 1" };
    const gaveUp = task(2, { state: "exited", exitCode: 1, restarts: 5, attention });
    const view = fleetView([restarting, gaveUp], NOW, "/home/u");
    expect(view.sections.map((s) => [s.title, s.cards.map((c) => c.id)])).toEqual([
      ["Waiting", [2]],
      ["Unassigned", [1]],
    ]);
    expect(view.sections[1]!.cards[0]).toMatchObject({ glyph: "↻", state: "restarting in 3s ↻2", restart: "restarting in 3s ↻2" });
    expect(view.sections[0]!.cards[0]).toMatchObject({ glyph: "↯", state: "crash loop · 5 restarts in 40s · exit 1 ↻5", restart: "↻5" });
  });

  test("each card shows its task's CPU and memory while they are sampled, nothing when not", () => {
    const view = fleetView([task(1, { cpu: 97.2, rss: 212 * 1024 ** 2, cpuRecent: [10, 97.2] }), task(2)], NOW, undefined);
    expect(view.sections[0]!.cards.map((c) => c.use)).toEqual(["97% · 212M", ""]);
    expect(view.sections[0]!.cards.map((c) => c.spark)).toEqual(["▂█", ""]);
  });

  test("the title counts the waiting tasks; with none it is the name alone", () => {
    expect(fleetView([task(1, waits(NOW)), task(2, waits(NOW)), task(3)], NOW, undefined).title).toBe("(2) fleetcom");
    expect(fleetView([task(1)], NOW, undefined).title).toBe("fleetcom");
    expect(fleetView([], NOW, undefined).sections).toEqual([]);
  });

  test("a task's own text is made printable: no escape sequence reaches the page", () => {
    const card = fleetView([task(1, { name: "a\x1b[31mred", preview: "\x1b]0;title\x07x" })], NOW, undefined).sections[0]!.cards[0]!;
    expect(card.label).not.toContain("\x1b");
    expect(card.preview).not.toContain("\x1b");
  });

  test("the summary is the dashboard's counts without its name and grouping", () => {
    expect(fleetView([task(1, waits(NOW)), task(2, { idle: true })], NOW, undefined).summary).toBe("2 tasks · ! 1 waiting · ∙ 1 idle");
  });

  test("with hosts added: waiting tasks of every host on top, then this machine's groups, then each host's; an unreachable host is one line", () => {
    const view = hostsView(
      [
        { host: null, tasks: [task(1, { group: "api" }), task(2, waits(NOW - 1_000))], note: null },
        { host: "gpu1", tasks: [task(1, waits(NOW - 5_000)), task(2, { group: "train" })], note: null },
        { host: "down", tasks: [task(9)], note: "down is unreachable: ssh: connect to host x port 22: Connection refused" },
      ],
      NOW,
      "/home/u",
    );
    expect(view.sections.map((s) => [s.title, s.cards.map((c) => `${c.host ?? "-"}:${c.id}`), s.note ?? null])).toEqual([
      ["Waiting", ["gpu1:1", "-:2"], null],
      ["this machine · api", ["-:1"], null],
      ["gpu1 · train", ["gpu1:2"], null],
      ["down", [], "down is unreachable: ssh: connect to host x port 22: Connection refused"],
    ]);
    expect(view.title).toBe("(2) fleetcom");
    expect(view.summary).toStartWith("4 tasks · ! 2 waiting");
  });
});
