// The dashboard's pure parts: keys decoded from raw bytes, sections of each grouping, rows cut to
// the width, the terminal width of text.
import { describe, expect, test } from "bun:test";
import { dashboardLines, taskRow, useInTitle, type View } from "../../src/ui-dashboard-view.ts";
import { header, matchesFilter, screenRows, sectionKey, sections, taskKey } from "../../src/view-fleet.ts";
import { helpEntries, helpLines, helpScrollMax, hintLine } from "../../src/ui-dashboard-keys.ts";
import { WaitSignals } from "../../src/ui-dashboard-waits.ts";
import { shortReason } from "../../src/client-host-fleet.ts";
import { bellSetting } from "../../src/settings.ts";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cut } from "../../src/text-width.ts";
import { decodeKeys } from "../../src/ui-keys.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import { textWidth } from "../../src/text-width.ts";
import { taskInfo } from "../harness/task-info.ts";

const NOW = Date.parse("2026-01-01T12:00:00Z");

function task(id: number, over: Partial<TaskInfo> = {}): TaskInfo {
  return taskInfo(id, { cwd: "/home/u/src", startedAt: new Date(NOW - 90_000).toISOString(), ...over });
}

function view(over: Partial<View>): View {
  return {
    tasks: [],
    grouping: "state",
    cursor: null,
    picked: new Set(),
    moved: new Map(),
    filter: "",
    filtering: false,
    jump: null,
    foreground: false,
    status: null,
    peek: null,
    help: null,
    home: "/home/u",
    now: NOW,
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

  test("Home, End, PgUp and PgDn as xterm, VT220, rxvt and the Linux console send them", () => {
    const names = decodeKeys("\x1b[H\x1bOF\x1b[1~\x1b[4~\x1b[7~\x1b[8~\x1b[5~\x1b[6~\x1b[Z").map((k) => k.name);
    expect(names).toEqual(["home", "end", "home", "end", "home", "end", "pageup", "pagedown", "shift-tab"]);
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

  test("a restart policy at work: the count, and the countdown while it waits; a crash loop has its own glyph", () => {
    const restarted = task(3, { name: "api", restart: "always", restarts: 2, preview: "up" });
    expect(taskRow(restarted, 80, 1, NOW, false)).toBe("  ✻   3 api · up · ↻2 · 1m");
    const exitedAt = new Date(NOW - 1_000).toISOString();
    const waiting = task(3, { name: "api", state: "exited", exitCode: 1, endedAt: exitedAt, restarts: 3, nextRestartAt: new Date(NOW + 1_600).toISOString() });
    expect(taskRow(waiting, 80, 1, NOW, false)).toBe("  ↻   3 api · restarting in 2s ↻3 · 1s");
    const attention = { state: "crash-loop" as const, since: exitedAt, message: "crash loop · 5 restarts in 40s · exit 1" };
    const gaveUp = task(3, { name: "api", state: "exited", exitCode: 1, endedAt: exitedAt, restarts: 5, attention });
    expect(taskRow(gaveUp, 80, 1, NOW, false)).toBe("  ↯   3 api · ↻5 · waited 1s");
  });

  test("an agent brought back in its resume form is labelled as typed", () => {
    const resumed = task(4, { command: "claude --resume '2771a642-cfad-4610-888e-1bed4d3b442b'", typed: "claude", preview: "ready" });
    expect(taskRow(resumed, 80, 1, NOW, false)).toBe("  ✻   4 claude · ready · 1m");
  });

  test("a task in a worktree of its own carries its branch", () => {
    const worktree = { repo: "/src/app", branch: "claude-2", path: "/src/app.worktrees/claude-2" };
    expect(taskRow(task(5, { typed: "claude", preview: "ready", worktree }), 80, 1, NOW, false)).toBe("  ✻   5 claude [claude-2] · ready · 1m");
  });

  test("long labels and previews are cut with … to the width, the age kept", () => {
    const long = task(1, { command: "x".repeat(100), preview: "中".repeat(60) });
    const row = taskRow(long, 40, 1, NOW, false);
    expect(textWidth(row)).toBeLessThan(40);
    expect(row).toMatch(/^ {2}✻ {3}1 x+… · 中+… · 1m$/);
  });

  test("the header counts only what is there", () => {
    expect(header([task(1), task(2, { state: "exited", exitCode: 0 })], "group", true)).toBe(
      "fleetcom (foreground) · 2 tasks · ✻ 1 running · ✓ 1 done · by group",
    );
  });

  test("the frame never exceeds the height and keeps the selection in view", () => {
    const tasks = Array.from({ length: 40 }, (_, i) => task(i + 1));
    const lines = dashboardLines(view({ tasks, cursor: taskKey(20) }), 80, 12);
    expect(lines).toHaveLength(12);
    expect(lines.some((l) => l.startsWith("› ✻   20 "))).toBe(true);
    // `⋮ N more` counts the tasks cut off, not the section titles: 40 tasks, 8 shown.
    const more = lines.filter((l) => l.includes("more")).map((l) => Number(/⋮ (\d+) more/.exec(l)![1]));
    expect(more).toHaveLength(2);
    expect(more[0]! + more[1]! + 8).toBe(40);
    for (const line of lines) expect(textWidth(line)).toBeLessThan(80);
  });

  test("the last row in view: one `⋮` line above, none below", () => {
    const tasks = Array.from({ length: 40 }, (_, i) => task(i + 1));
    const lines = dashboardLines(view({ tasks, cursor: taskKey(40) }), 80, 12);
    expect(lines[1]).toBe("  ⋮ 31 more");
    expect(lines[10]).toStartWith("› ✻   40 ");
    expect(lines[11]).toEndWith("?:help");
  });

  test("a list longer than the screen: only the rows shown are made, the same rows as the whole list's", () => {
    // Each row is made from its task's preview: counting the reads counts the rows made.
    let made = 0;
    const counted = (id: number) => {
      const info = task(id);
      return Object.defineProperty(info, "preview", {
        get: () => {
          made += 1;
          return "";
        },
      });
    };
    const tasks = Array.from({ length: 2000 }, (_, i) => counted(i + 1));
    const lines = dashboardLines(view({ tasks, cursor: taskKey(1000) }), 120, 40);
    expect(lines).toHaveLength(40);
    expect(made).toBeLessThan(40);
    const shown = lines.filter((l) => /^[ ›] ✻ /.test(l));
    expect(shown.length).toBe(made);
    for (const line of shown) {
      const id = Number(/✻ +(\d+) /.exec(line)![1]);
      expect(line).toBe(taskRow(task(id), 120, 4, NOW, { cursor: id === 1000 }));
    }
  });

  test("a row carries the selection and a mark for a task that just moved", () => {
    expect(taskRow(task(4), 80, 1, NOW, { cursor: true, picked: true, moved: "up" })).toBe("›*✻   4 ↑ cmd 4 · 1m");
    expect(taskRow(task(4), 80, 1, NOW, { picked: true })).toBe(" *✻   4 cmd 4 · 1m");
    expect(taskRow(task(4), 80, 1, NOW, { moved: "down" })).toBe("  ✻   4 ↓ cmd 4 · 1m");
  });

  test("the Waiting section is the longest waiting first, and a waiting row shows how long it has waited", () => {
    const since = (ago: number) => ({ state: "input" as const, since: new Date(NOW - ago).toISOString(), message: null });
    const tasks = [task(1, { attention: since(60_000) }), task(2, { attention: since(600_000) }), task(3)];
    expect(sections(tasks, "state", "/home/u").map((s) => [s.title, s.tasks.map((t) => t.id)])).toEqual([
      ["Waiting", [2, 1]],
      ["Running", [3]],
    ]);
    expect(taskRow(tasks[1]!, 80, 1, NOW)).toMatch(/· waited 10m$/);
  });

  test("a section's title is a row the cursor can rest on", () => {
    const tasks = [task(1), task(2, { state: "exited", exitCode: 0 })];
    const lines = dashboardLines(view({ tasks, cursor: sectionKey("Completed") }), 80, 20);
    expect(lines.slice(1, 5)).toEqual([
      "Running (1)",
      expect.stringMatching(/^ {2}✻ {3}1 cmd 1/),
      "› Completed (1)",
      expect.stringMatching(/^ {2}✓ {3}2 cmd 2/),
    ]);
    expect(screenRows({ tasks, grouping: "state", filter: "", home: "/home/u" }).map((r) => r.key)).toEqual([
      "section Running",
      "task 1",
      "section Completed",
      "task 2",
    ]);
  });

  test("with hosts added, this machine's block comes first, then each host's under its heading; a host down is one line", () => {
    const remote = [task(1, { name: "train", cwd: "/home/g/src", attention: { state: "bell", since: new Date(NOW - 180_000).toISOString(), message: null } })];
    const hosts = [
      { name: "gpu1", home: "/home/g", link: { kind: "up" } as const, tasks: remote },
      {
        name: "build",
        home: "/home/b",
        link: { kind: "lost", reason: "Connection refused", said: "build is unreachable: ssh: Connection refused", retryAt: NOW + 7_200 } as const,
        tasks: [],
      },
      { name: "slow", home: "/home/s", link: { kind: "connecting" } as const, tasks: [] },
    ];
    const lines = dashboardLines(view({ tasks: [task(1)], hosts, cursor: taskKey(1, "gpu1"), grouping: "directory" }), 80, 30);
    expect(lines.slice(0, 8)).toEqual([
      "fleetcom · 2 tasks · ! 1 waiting · ✻ 1 running · by directory",
      `── local · 1 task ${"─".repeat(61)}`,
      "~/src (1)",
      expect.stringMatching(/^ {2}✻ {3}1 cmd 1 · 1m$/),
      `── gpu1 · 1 task ${"─".repeat(62)}`,
      "~/src (1)",
      expect.stringMatching(/^› ! {3}1 train · waited 3m$/),
      `── build · unreachable (Connection refused) · retrying in 8 s ${"─".repeat(17)}`,
    ]);
    expect(lines[8]).toBe(`── slow · connecting… ${"─".repeat(57)}`);
    for (const line of lines) expect(textWidth(line)).toBeLessThan(80);
    // The same id on two hosts is two rows, each keyed by its host.
    expect(screenRows({ tasks: [task(1)], hosts, grouping: "state", filter: "", home: "/home/u" }).map((r) => r.key)).toEqual([
      "section Running",
      "task 1",
      "section gpu1:Waiting",
      "task gpu1:1",
    ]);
  });

  test("a host's reason is ssh's own, short", () => {
    expect(shortReason("gpu1", "gpu1 is unreachable: ssh: connect to host 10.0.0.1 port 22: Connection refused")).toBe("Connection refused");
    expect(shortReason("gpu1", "no answer within 2.5 s")).toBe("no answer within 2.5 s");
    const install = "fleetcom 0.2.0 is not installed on gpu1 (sh: 1: /x: not found); run 'fleetcom hosts add gpu1'";
    expect(shortReason("gpu1", install)).toBe(install);
  });

  test("cut counts wide characters as two columns", () => {
    expect(cut("中文字", 5)).toBe("中文…");
    expect(textWidth(cut("中文字", 5))).toBe(5);
    expect(cut("abc", 3)).toBe("abc");
  });
});

describe("filter", () => {
  test("matches name, command, directory (as typed or tilded) and group, ignoring case", () => {
    const t = task(1, { name: "API server", command: "npm run dev", cwd: "/home/u/src/web", group: "Backend" });
    for (const hit of ["api", "SERVER", "run dev", "/home/u/src", "~/src/web", "backend", ""]) expect(matchesFilter(t, hit, "/home/u")).toBe(true);
    for (const miss of ["frontend", "cargo", "1"]) expect(matchesFilter(t, miss, "/home/u")).toBe(false);
  });

  test("the rows narrow to the matches; the filter line counts them", () => {
    const tasks = [task(1, { name: "api" }), task(2, { name: "web" }), task(3, { name: "api-worker", state: "exited", exitCode: 0 })];
    const lines = dashboardLines(view({ tasks, filter: "api", filtering: true }), 80, 20);
    expect(lines.filter((l) => /^[› ][ *]\S /.test(l)).map((l) => l.slice(8))).toEqual([
      expect.stringMatching(/^api · /),
      expect.stringMatching(/^api-worker · /),
    ]);
    expect(lines).toContain("/api  (2 of 3 tasks)");
    expect(lines.at(-1)).toStartWith("type to filter");
    const kept = dashboardLines(view({ tasks, filter: "zzz" }), 80, 20);
    expect(kept).toContain("  nothing matches the filter (esc clears it)");
    expect(kept).toContain("filter: zzz (0 of 3 tasks) · / edits · esc clears");
  });
});

describe("what each task uses", () => {
  const busy = task(3, { cpu: 98.6, rss: 3 * 1024 ** 2 });
  const big = task(5, { cpu: 0.4, rss: 212 * 1024 ** 2 });
  const unsampled = task(1);

  test("a sampled task's row carries its CPU and memory before its age; one not sampled, neither", () => {
    expect(taskRow(busy, 80, 1, NOW, false)).toBe("  ✻   3 cmd 3 · 99% 3M · 1m");
    expect(taskRow(unsampled, 80, 1, NOW, false)).toBe("  ✻   1 cmd 1 · 1m");
  });

  test("the peek's title carries the last minute of CPU as bars and the figures; nothing when not sampled", () => {
    expect(useInTitle({ ...busy, cpuRecent: [0, 50, 100] })).toBe(" · CPU ▁▅█ 99% · 3M");
    expect(useInTitle(unsampled)).toBe("");
  });

  test("u's orders: the busiest first by CPU or by memory, ties and the unsampled by id", () => {
    const ids = (order: "id" | "CPU" | "memory") => sections([big, busy, unsampled], "directory", undefined, undefined, order)[0]!.tasks.map((t) => t.id);
    expect(ids("id")).toEqual([1, 3, 5]);
    expect(ids("CPU")).toEqual([3, 5, 1]);
    expect(ids("memory")).toEqual([5, 3, 1]);
  });

  test("a sort other than by id is named at the start of the footer", () => {
    const shown = view({ tasks: [busy, big], order: "memory" });
    expect(dashboardLines(shown, 100, 20).at(-1)).toStartWith("sorted by memory · ");
    expect(dashboardLines({ ...shown, order: "id" }, 100, 20).at(-1)).not.toContain("sorted by");
  });
});

describe("hints and help", () => {
  test("wide: every key in the long form, help last", () => {
    const hint = hintLine(200);
    expect(hint).toBe(
      "↑↓ move · enter attach · space peek · / filter · v select · n new · r rerun · R rename · g group · m tag · X kill/rm · s grouping · w save · o sessions · d diff · q detach · Q stop all · ? help",
    );
  });

  test("at 60 columns: the most-used keys, how to leave first, ending with ?:help", () => {
    const hint = hintLine(60);
    expect(textWidth(hint)).toBeLessThan(60);
    expect(hint).toStartWith("q:detach ↑↓ ⏎:attach");
    expect(hint).toEndWith(" ?:help");
    for (const key of ["/:filter", "X:kill/rm", "␣:peek"]) expect(hint).toContain(key);
  });

  test("narrower still, it never wraps and still ends with ?:help", () => {
    for (const columns of [30, 40, 50, 80, 100, 120]) {
      const hint = hintLine(columns);
      expect(textWidth(hint)).toBeLessThan(columns);
      expect(hint).toMatch(/(\?:help|\? help)$/);
    }
  });

  test("? lists every key on one screen: one column when it fits the height, two when the width allows", () => {
    const entries = helpEntries("Ctrl-\\");
    const tall = helpLines("Ctrl-\\", 100, 40);
    expect(tall).toHaveLength(entries.length + 1);
    for (const [key] of entries) expect(tall.some((l) => l.startsWith(`  ${key} `))).toBe(true);
    const short = helpLines("Ctrl-\\", 160, 16);
    expect(short.length).toBeLessThanOrEqual(16);
    for (const [key] of entries) expect(short.join("\n")).toContain(key);
    for (const line of short) expect(textWidth(line)).toBeLessThan(160);
  });
});

describe("the ? screen when it fits neither one column nor two", () => {
  test("it scrolls one line at a time to the last key, with ⋮ N more above and below what is cut off", () => {
    const entries = helpEntries("Ctrl-\\");
    const max = helpScrollMax("Ctrl-\\", 80, 22);
    expect(max).toBeGreaterThan(0);
    const top = helpLines("Ctrl-\\", 80, 22);
    expect(top).toHaveLength(22);
    expect(top[0]).toBe("Keys (↑↓ PgUp PgDn Home End scroll · any other key returns)");
    expect(top[1]).toStartWith("  ↑ ↓");
    expect(top.at(-1)).toBe(`  ⋮ ${entries.length - 20} more`);
    const bottom = helpLines("Ctrl-\\", 80, 22, { scroll: max });
    expect(bottom).toHaveLength(22);
    expect(bottom[1]).toBe(`  ⋮ ${max} more`);
    expect(bottom.at(-1)).toStartWith(`  ${entries.at(-1)![0]} `);
    // Past the end it stays at the end.
    expect(helpLines("Ctrl-\\", 80, 22, { scroll: max + 5 })).toEqual(bottom);
    // Every key is on one of the scrolled screens.
    const seen = Array.from({ length: max + 1 }, (_, scroll) => helpLines("Ctrl-\\", 80, 22, { scroll })).flat();
    for (const [key] of entries) expect(seen.some((l) => l.startsWith(`  ${key} `))).toBe(true);
  });

  test("it does not scroll when everything shows at once", () => {
    expect(helpScrollMax("Ctrl-\\", 100, 40)).toBe(0);
    expect(helpScrollMax("Ctrl-\\", 200, 16)).toBe(0);
  });
});

describe("the bell and the title the dashboard gives the host terminal", () => {
  const asks = { state: "input", since: new Date(NOW).toISOString(), message: null } as const;

  test("the bell rings once for each task that starts waiting, never for one already waiting or on a redraw", () => {
    const written: string[] = [];
    const waits = new WaitSignals((bytes) => written.push(bytes), true);
    waits.changed(task(1), task(1, { preview: "more output" }));
    expect(written).toEqual([]);
    waits.changed(task(1), task(1, { attention: asks }));
    expect(written).toEqual(["\x07"]);
    waits.changed(task(1, { attention: asks }), task(1, { attention: asks, preview: "still asking" }));
    waits.title([task(1, { attention: asks })]);
    waits.title([task(1, { attention: asks })]);
    expect(written.filter((w) => w === "\x07")).toHaveLength(1);
    waits.changed(undefined, task(2, { attention: asks }));
    expect(written.filter((w) => w === "\x07")).toHaveLength(2);
  });

  test("the bell is on by default; FLEETCOM_BELL or bell in the config file turn it off", () => {
    const dir = mkdtempSync(join(tmpdir(), "fleetcom-bell-"));
    try {
      expect(bellSetting({ FLEETCOM_CONFIG_DIR: dir })).toBe(true);
      expect(bellSetting({ FLEETCOM_CONFIG_DIR: dir, FLEETCOM_BELL: "off" })).toBe(false);
      // Another directory: a process reads each config file once.
      const other = join(dir, "other");
      mkdirSync(other);
      writeFileSync(join(other, "config.toml"), "bell = false\n");
      expect(bellSetting({ FLEETCOM_CONFIG_DIR: other })).toBe(false);
      expect(bellSetting({ FLEETCOM_CONFIG_DIR: other, FLEETCOM_BELL: "yes" })).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("with the bell off, nothing rings", () => {
    const written: string[] = [];
    new WaitSignals((bytes) => written.push(bytes), false).changed(task(1), task(1, { attention: asks }));
    expect(written).toEqual([]);
  });

  test("the title counts the waiting tasks, written when it changes, over the old one pushed first and popped at the end", () => {
    const written: string[] = [];
    const waits = new WaitSignals((bytes) => written.push(bytes), true);
    waits.title([task(1), task(2)]);
    waits.title([task(1), task(2)]);
    waits.title([task(1, { attention: asks }), task(2, { attention: asks })]);
    waits.title([task(1), task(2)]);
    waits.end();
    expect(written).toEqual(["\x1b[22;0t\x1b]2;fleetcom\x07", "\x1b]2;fleetcom ! 2 waiting\x07", "\x1b]2;fleetcom\x07", "\x1b]2;\x07\x1b[23;0t"]);
  });
});
