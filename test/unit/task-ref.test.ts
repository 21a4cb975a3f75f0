// How a TASK argument finds its task (task-ref.ts), and the two shapes a task reference takes on the
// wire (wire-protocol.ts opArgs): an id a client holds, or the text a user typed.
import { describe, expect, test } from "bun:test";
import { UserError } from "../../src/errors.ts";
import { resolveTaskRef, taskById } from "../../src/task-ref.ts";
import { opArgs } from "../../src/wire-protocol.ts";

describe("TASK resolution", () => {
  const tasks = [
    { id: 1, name: "api", command: "npm run dev" },
    { id: 2, name: null, command: "npm test -- --watch" },
    { id: 3, name: "Api docs", command: "mkdocs serve" },
    { id: 12, name: "3", command: "echo named three" },
  ].map((t) => ({ ...t, typed: t.command }));

  test.each([
    ["1", 1],
    ["12", 12],
    ["api", 1],
    ["Api docs", 3],
    ["api d", 3],
    ["MKDOCS", 3],
    ["npm t", 2],
  ])("%p resolves to task %p", (ref, id) => {
    expect(resolveTaskRef(ref, tasks).id).toBe(id);
  });

  test("an id wins over a display name that looks like one", () => {
    expect(resolveTaskRef("3", tasks).id).toBe(3);
  });

  test("an ambiguous prefix lists every candidate", () => {
    expect(() => resolveTaskRef("npm", tasks)).toThrow("'npm' matches 2 tasks: 1 api, 2 npm test -- --watch");
  });

  test("an unknown TASK lists the tasks there are", () => {
    expect(() => resolveTaskRef("zzz", tasks)).toThrow(UserError);
    expect(() => resolveTaskRef("zzz", [])).toThrow("no task matches 'zzz' (no tasks)");
  });

  test("an empty TASK matches nothing rather than everything", () => {
    expect(() => resolveTaskRef("", tasks)).toThrow("no task matches ''");
  });

  test("digits alone are an id and only an id: a removed id never falls through to a name or prefix", () => {
    const withApi = [
      ...tasks,
      { id: 13, name: "4-api", command: "sleep 1000", typed: "sleep 1000" },
      { id: 14, name: null, command: "4 more", typed: "4 more" },
    ];
    expect(() => resolveTaskRef("4", withApi)).toThrow("no task 4 (tasks: 1 api, 2 npm test -- --watch, 3 Api docs, 12 3, 13 4-api, 14 4 more)");
    expect(() => resolveTaskRef(" 4 ", withApi)).toThrow("no task 4 (tasks: ");
    expect(() => resolveTaskRef("4", [])).toThrow("no task 4 (no tasks)");
    expect(resolveTaskRef("4-api", withApi).id).toBe(13);
  });

  test("an id a client holds finds that task or none, whatever the names", () => {
    expect(taskById(12, tasks).name).toBe("3");
    expect(() => taskById(4, [...tasks, { id: 5, name: "4", command: "4", typed: "4" }])).toThrow(/^no task 4$/);
  });
});

describe("a task reference on the wire", () => {
  const accepted = (task: unknown) => opArgs.tag.allows({ task });

  test("is an id a client holds or the text a user typed", () => {
    expect(accepted({ id: 3 })).toBe(true);
    expect(accepted({ typed: "api" })).toBe(true);
    expect(opArgs.kill.allows({ tasks: [{ id: 1 }, { typed: "1-api" }] })).toBe(true);
  });

  test("is never bare text, an id as text, a fraction or empty typed text", () => {
    for (const task of ["3", 3, { id: "3" }, { id: 1.5 }, { typed: "" }, {}]) expect([task, accepted(task)]).toEqual([task, false]);
  });
});
