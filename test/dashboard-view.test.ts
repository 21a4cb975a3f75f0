// The dashboard's pure parts: keys decoded from raw bytes, sections of each grouping, rows cut to
// the width, the terminal width of text.
import { describe, expect, test } from "bun:test";
import { dashboardLines, header, sections, taskRow, type View } from "../src/ui-dashboard-view.ts";
import { cut } from "../src/text-width.ts";
import { decodeKeys } from "../src/ui-keys.ts";
import type { TaskInfo } from "../src/wire-protocol.ts";
import { textWidth } from "../src/text-width.ts";

const NOW = Date.parse("2026-01-01T12:00:00Z");

function task(id: number, over: Partial<TaskInfo> = {}): TaskInfo {
  return {
    id,
    run: 1,
    command: `cmd ${id}`,
    name: null,
    group: null,
    cwd: "/home/u/src",
    tagged: false,
    state: "running",
    idle: false,
    exitCode: null,
    signal: null,
    pid: 100 + id,
    startedAt: new Date(NOW - 90_000).toISOString(),
    endedAt: null,
    lastOutputAt: null,
    preview: "",
    agent: null,
    conversation: null,
    attention: null,
    ...over,
  };
}

const titles = (tasks: TaskInfo[], grouping: "state" | "directory" | "group") =>
  sections(tasks, grouping, "/home/u").map((s) => `${s.title}: ${s.tasks.map((t) => t.id).join(",")}`);

describe("keys", () => {
  test("arrows in both cursor-key modes, Enter, Tab, Esc, Backspace, control keys and text", () => {
    const names = decodeKeys("\x1b[A\x1bOB\r\t\x7f\x1c\x03\x12\x04 aé").map((k) => k.text ?? k.name);
    expect(names).toEqual(["up", "down", "enter", "tab", "backspace", "ctrl-\\", "ctrl-c", "ctrl-r", "ctrl-d", " ", "a", "é"]);
  });

  test("a lone ESC is Esc; unknown sequences and Alt+key are dropped whole", () => {
    expect(decodeKeys("\x1b")).toEqual([{ name: "escape" }]);
    expect(decodeKeys("\x1b[2~x\x1bfy").map((k) => k.text ?? k.name)).toEqual(["x", "y"]);
  });
});

describe("sections", () => {
  const fleet = [
    task(1, { tagged: true, state: "exited", exitCode: 0 }),
    task(2, { idle: true, group: "web", cwd: "/srv" }),
    task(3, { group: "API" }),
    task(4, { state: "exited", exitCode: 1, cwd: "/home/u" }),
  ];

  test("by state: In use whatever the state, then Running, Idle, Completed; empty ones hidden", () => {
    expect(titles(fleet, "state")).toEqual(["In use: 1", "Running: 3", "Idle: 2", "Completed: 4"]);
    expect(titles([task(5)], "state")).toEqual(["Running: 5"]);
  });

  test("by directory, tilded and sorted", () => {
    expect(titles(fleet, "directory")).toEqual(["/srv: 2", "~: 4", "~/src: 1,3"]);
  });

  test("by directory, the dashboard's own directory first, then the rest ignoring case (conformance 12.16)", () => {
    const dirs = ["/w/B", "/w/a2", "/home/u/x", "/w", "/home2/y", "/home/u"].map((cwd, i) => task(i + 1, { cwd }));
    const order = (here?: string) => sections(dirs, "directory", "/home/u", here).map((s) => s.title);
    expect(order("/w")).toEqual(["/w", "/home2/y", "/w/a2", "/w/B", "~", "~/x"]);
    expect(order("/home/u/x")).toEqual(["~/x", "/home2/y", "/w", "/w/a2", "/w/B", "~"]);
    expect(order("/nowhere")).toEqual(["/home2/y", "/w", "/w/a2", "/w/B", "~", "~/x"]);
  });

  test("by group ignoring case, Unassigned last and only while it has a member", () => {
    expect(titles(fleet, "group")).toEqual(["API: 3", "web: 2", "Unassigned: 1,4"]);
    expect(titles([task(2, { group: "web" })], "group")).toEqual(["web: 2"]);
  });
});

describe("rows and frame", () => {
  test("a row is glyph, tag, id, label, preview and age; a finished task shows how long ago it ended", () => {
    const running = task(7, { name: "api", tagged: true, preview: "listening" });
    expect(taskRow(running, 80, 2, NOW, true)).toBe("› ✻ ◆  7 api · listening · 1m");
    const done = task(8, { state: "exited", exitCode: 2, endedAt: new Date(NOW - 5_000).toISOString() });
    expect(taskRow(done, 80, 1, NOW, false)).toBe("  ✗   8 cmd 8 · 5s");
  });

  test("long labels and previews are cut with … to the width, the age kept", () => {
    const long = task(1, { command: "x".repeat(100), preview: "中".repeat(60) });
    const row = taskRow(long, 40, 1, NOW, false);
    expect(textWidth(row)).toBeLessThan(40);
    expect(row).toMatch(/^  ✻   1 x+… · 中+… · 1m$/);
  });

  test("the header counts only what is there", () => {
    expect(header([task(1), task(2, { state: "exited", exitCode: 0 })], "group", true)).toBe(
      "fleetcom (foreground) · 2 tasks · ✻ 1 running · ✓ 1 done · by group",
    );
  });

  test("the frame never exceeds the height and keeps the selection in view", () => {
    const tasks = Array.from({ length: 40 }, (_, i) => task(i + 1));
    const view: View = { tasks, grouping: "state", selected: 35, foreground: false, status: null, peek: null, home: "/home/u", now: NOW };
    const lines = dashboardLines(view, 80, 12);
    expect(lines).toHaveLength(12);
    expect(lines.some((l) => l.startsWith("› ✻   35 "))).toBe(true);
    expect(lines.filter((l) => l.includes("more"))).toHaveLength(2);
    for (const line of lines) expect(textWidth(line)).toBeLessThan(80);
  });

  test("cut counts wide characters as two columns", () => {
    expect(cut("中文字", 5)).toBe("中文…");
    expect(textWidth(cut("中文字", 5))).toBe(5);
    expect(cut("abc", 3)).toBe("abc");
  });
});
