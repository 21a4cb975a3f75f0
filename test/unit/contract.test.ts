// The client/daemon contract is one table (wire-protocol.ts): `make test` type-checks this file, so
// each line marked @ts-expect-error must fail to compile, or tsc reports the marker as unused.
import { expect, test } from "bun:test";
import type { DaemonClient } from "../../src/client.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";

function misuses(c: DaemonClient): unknown[] {
  return [
    // @ts-expect-error: no such operation
    c.request("lss"),
    // @ts-expect-error: run needs a command
    c.request("run", {}),
    // @ts-expect-error: rename's name is a string or null, not a number
    c.request("rename", { task: { id: 1 }, name: 3 }),
    // @ts-expect-error: peek answers { text, info }, not a list of tasks
    c.request("peek", { task: { id: 1 } }).then((tasks: TaskInfo[]) => tasks),
    // @ts-expect-error: logs needs the task it follows
    c.request("logs", {}),
    // @ts-expect-error: history's tasks are references ({ id } or { typed }), not bare ids
    c.request("history", { tasks: [1] }),
    // @ts-expect-error: a reference is never bare text: the daemon could not tell a held id from typed text
    c.request("kill", { tasks: ["1"] }),
    // @ts-expect-error: a held id is a number, not its text
    c.request("attach", { task: { id: "1" }, cols: 80, rows: 24 }),
  ];
}

function uses(c: DaemonClient): Promise<unknown>[] {
  return [
    c.request("ls").then((tasks: TaskInfo[]) => tasks.map((t) => t.id)),
    c.request("run", { command: "true" }).then(({ id }) => id + 1),
    c.request("status").then((s) => s.tasks.running + s.history.writes),
    c.request("history", { group: "back" }).then((found) => found.map((h) => h.lines.length + h.task.id)),
    c.request("peek", { task: { typed: "api" }, history: true, ansi: true, lines: 5 }).then(({ text }) => text.length),
    c.request("kill", { tasks: [{ id: 1 }, { typed: "1-api" }] }).then(({ killed }) => killed.length),
  ];
}

test("the contract types requests and replies by operation (checked by tsc in make test)", () => {
  expect([misuses, uses].map((f) => typeof f)).toEqual(["function", "function"]);
});
