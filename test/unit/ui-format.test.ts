// The tables one-shot commands print (ls, hosts, sessions): cut to the terminal, never wrapped.
import { describe, expect, test } from "bun:test";
import { lsTable, table } from "../../src/ui-format.ts";
import { textWidth } from "../../src/text-width.ts";
import { taskInfo } from "../harness/task-info.ts";

describe("a table in a terminal", () => {
  test("its shrinkable columns are cut first, and the table then fits exactly", () => {
    const lines = table(["ID", "NAME", "NOTE"], [["1", "a-long-name-here", "x".repeat(40)]], 40, [2, 1])
      .trimEnd()
      .split("\n");
    expect(lines.map(textWidth)).toEqual([lines[0]!.length, 40]);
    expect(lines[1]).toEndWith("…");
  });

  test("too narrow even after every cut: each line is cut at the terminal's width, so none wraps", () => {
    const lines = table(["ID", "GROUP-NAME", "STATE-WORDS", "NOTE"], [["1", "some-group", "active now", "x".repeat(40)]], 20, [3])
      .trimEnd()
      .split("\n");
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(20);
    expect(lines[1]).toStartWith("1   some-group");
    expect(lines[1]).toEndWith("…");
  });

  test("ls in a 50-column terminal: every line within 50 columns", () => {
    const tasks = [taskInfo(1, { name: "web", preview: "ok      pkg" }), taskInfo(2, { command: "yes | head -c 100000000 > /dev/null; sleep 600" })];
    for (const line of lsTable(tasks, "/home/u", 0, 50).trimEnd().split("\n")) expect(textWidth(line)).toBeLessThanOrEqual(50);
  });

  test("not a terminal (a pipe): nothing is cut", () => {
    const long = "x".repeat(300);
    expect(table(["ID", "NOTE"], [["1", long]], undefined, [1])).toContain(long);
  });
});
