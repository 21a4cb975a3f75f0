// The dashboard's pure state beside its view: the cursor, the selection, the filter and jumps
// (ui-dashboard-cursor.ts), rows that move and rows held a second (ui-dashboard-moves.ts), and keys
// that come as a burst (ui-dashboard-burst.ts).
import { describe, expect, test } from "bun:test";
import { BurstGuard } from "../../src/ui-dashboard-burst.ts";
import { ListCursor, jumpKey, taskAt } from "../../src/ui-dashboard-cursor.ts";
import { HOLD_MS, SectionMoves, type Where } from "../../src/ui-dashboard-moves.ts";
import { screenRows, taskKey, type Grouping } from "../../src/view-fleet.ts";
import { decodeKeys } from "../../src/ui-keys.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import { taskInfo } from "../harness/task-info.ts";

const task = (id: number, over: Partial<TaskInfo> = {}) => taskInfo(id, { cwd: "/home/u", ...over });
const rowsOf = (tasks: TaskInfo[], grouping: Grouping = "state") => screenRows({ tasks, grouping, filter: "", home: "/home/u" });
const keys = (rows: ReturnType<typeof rowsOf>) => rows.map((r) => r.key);

describe("the cursor", () => {
  const fleet = [task(1), task(2, { state: "exited", exitCode: 0 }), task(3, { state: "exited", exitCode: 0 })];

  test("it starts on the first task, not the first title", () => {
    const cursor = new ListCursor();
    const rows = rowsOf(fleet);
    expect(keys(rows)).toEqual(["section Running", "task 1", "section Completed", "task 2", "task 3"]);
    expect(cursor.row(rows)?.key).toBe("task 1");
  });

  test("v on the last task of a section goes on to the next task, past the title; on the last task it stays", () => {
    const cursor = new ListCursor();
    const rows = rowsOf(fleet);
    cursor.settle(rows);
    cursor.toggle(cursor.row(rows)!, rows);
    expect(cursor.key).toBe("task 2");
    expect([...cursor.picked]).toEqual(["task 1"]);
    cursor.key = "task 3";
    cursor.toggle(cursor.row(rows)!, rows);
    expect(cursor.key).toBe("task 3");
  });

  test("↑↓ still rest on a title, on purpose", () => {
    const cursor = new ListCursor();
    const rows = rowsOf(fleet);
    cursor.settle(rows);
    cursor.move(1, rows);
    expect(cursor.key).toBe("section Completed");
  });

  test("when its task goes, the cursor goes to the task now nearest, never a title", () => {
    const cursor = new ListCursor();
    let rows = rowsOf(fleet);
    cursor.key = "task 1";
    cursor.settle(rows);
    rows = rowsOf(fleet.slice(1)); // task 1 removed: its row was where Completed's title is now
    expect(keys(rows)).toEqual(["section Completed", "task 2", "task 3"]);
    expect(cursor.row(rows)?.key).toBe("task 2");
    cursor.key = "task 3";
    cursor.settle(rows);
    rows = rowsOf(fleet.slice(1, 2));
    expect(cursor.row(rows)?.key).toBe("task 2");
  });

  test("by id there are no titles at all", () => {
    expect(keys(rowsOf(fleet, "id"))).toEqual(["task 1", "task 2", "task 3"]);
  });

  test("the filter takes text, keeps on Enter, clears on Esc; arrows move meanwhile", () => {
    const cursor = new ListCursor();
    for (const key of decodeKeys("ap")) expect(cursor.filterKey(key)).toBe("typing");
    expect(cursor.filter).toBe("ap");
    expect(cursor.filterKey(decodeKeys("\x1b[B")[0]!)).toBe("moving");
    expect(cursor.filterKey(decodeKeys("\r")[0]!)).toBe("done");
    expect(cursor.filter).toBe("ap");
    expect(cursor.filterKey(decodeKeys("\x1b")[0]!)).toBe("done");
    expect(cursor.filter).toBe("");
  });

  test("a jump takes digits, or a host's reference; another key ends it and acts", () => {
    const [one, colon, x] = decodeKeys("1:x");
    expect(jumpKey({ typed: "1", takes: "digits" }, one!)).toEqual({ typed: "11", takes: "digits" });
    expect(jumpKey({ typed: "1", takes: "digits" }, x!)).toBe("not mine");
    expect(jumpKey({ typed: "gpu", takes: "reference" }, colon!)).toEqual({ typed: "gpu:", takes: "reference" });
    const every = [
      { key: taskKey(3), task: task(3) },
      { key: taskKey(3, "gpu1"), task: task(3) },
    ];
    expect(taskAt("gpu1:3", every, ["gpu1"])).toEqual(every[1]!);
    expect(taskAt("3", every, ["gpu1"])).toEqual(every[0]!);
    expect(taskAt("gpu9:3", every, ["gpu1"])).toBe("no host 'gpu9' (local, gpu1)");
  });
});

describe("rows that stay put", () => {
  const where: Where = { grouping: "state", home: "/home/u" };

  test("a flip between Running and Idle within a second of the last one waits until the second has passed, then is marked", () => {
    const moves = new SectionMoves();
    const running = task(1);
    const idle = { ...running, idle: true };
    expect(moves.show("task 1", running, 0, where).idle).toBe(false);
    expect(moves.show("task 1", idle, 100, where).idle).toBe(true); // the first move shows at once
    expect(moves.ways(100).get("task 1")).toBe("down");
    expect(moves.show("task 1", running, 400, where).idle).toBe(true); // held
    expect(moves.show("task 1", running, 100 + HOLD_MS - 1, where).idle).toBe(true);
    expect(moves.show("task 1", running, 100 + HOLD_MS, where).idle).toBe(false);
    expect(moves.ways(100 + HOLD_MS).get("task 1")).toBe("up");
  });

  test("a move is marked by the order of its two sections alone: the rest of the fleet is not looked at", () => {
    // 2,000 tasks turning idle together each marked its move by ordering the whole fleet again.
    let looked = 0;
    const others = Array.from({ length: 2000 }, (_, i) =>
      Object.defineProperty(task(i + 2), "state", {
        get: () => {
          looked += 1;
          return "running";
        },
      }),
    );
    // Handed the whole fleet as it was when the task's event came (the task as it is now among the others), it looks at none of them.
    const fleet = (now: TaskInfo) => ({ ...where, tasks: [...others, now] });
    const moves = new SectionMoves();
    const [running, idle, ended] = [task(1), task(1, { idle: true }), task(1, { state: "exited", exitCode: 0 })];
    moves.show("task 1", running, 0, fleet(running));
    expect(moves.show("task 1", idle, 10, fleet(idle)).idle).toBe(true);
    expect(moves.ways(10).get("task 1")).toBe("down");
    expect(moves.show("task 1", ended, 20, fleet(ended)).state).toBe("exited");
    expect(moves.ways(20).get("task 1")).toBe("down");
    expect(looked).toBe(0);
  });

  test("what else changes shows at once while the flip is held: the output, a wait, an end", () => {
    const moves = new SectionMoves();
    moves.show("task 1", task(1), 0, where);
    moves.show("task 1", task(1, { idle: true }), 10, where);
    const printed = moves.show("task 1", task(1, { preview: "got it" }), 20, where);
    expect(printed).toMatchObject({ idle: true, preview: "got it" });
    const ended = moves.show("task 1", task(1, { state: "exited", exitCode: 1 }), 30, where);
    expect(ended.state).toBe("exited");
  });
});

describe("bursts", () => {
  test("one key a read is a key, however soon it follows the last", () => {
    const guard = new BurstGuard();
    for (const key of "rsvX/") expect(guard.dropped(decodeKeys(key))).toBe(false);
  });

  test("several printable keys in one read are a paste; held-down moves are not", () => {
    const guard = new BurstGuard();
    expect(guard.dropped(decodeKeys("clear\r"))).toBe(true);
    expect(guard.dropped(decodeKeys("jjjj"))).toBe(false);
    expect(guard.dropped(decodeKeys("\x1b[B\x1b[B"))).toBe(false);
    expect(guard.dropped(decodeKeys("57\r"))).toBe(false); // a jump: it only moves the cursor
    expect(guard.dropped(decodeKeys("5r"))).toBe(true);
  });

  test("a bracketed paste is a burst across reads, a single letter included, until its end", () => {
    const guard = new BurstGuard();
    expect(guard.dropped(decodeKeys("\x1b[200~r"))).toBe(true);
    expect(guard.dropped(decodeKeys("X"))).toBe(true);
    expect(guard.dropped(decodeKeys("\x1b[201~"))).toBe(true);
    expect(guard.dropped(decodeKeys("q"))).toBe(false);
  });

  test("while text is typed, keys that come together are text; only a bracketed paste is a burst", () => {
    const guard = new BurstGuard();
    expect(guard.dropped(decodeKeys("api"), true)).toBe(false);
    expect(guard.dropped(decodeKeys("\x1b[200~api\r\x1b[201~"), true)).toBe(true);
  });

  test("every key of a read is judged once, as the read is", () => {
    const guard = new BurstGuard();
    const read = decodeKeys("rX");
    expect(guard.judge(read)).toEqual({ dropped: true, fresh: true });
    expect(guard.judge(read)).toEqual({ dropped: true, fresh: false });
  });
});
