// How a TASK argument finds its task (task-ref.ts), and the two shapes a task reference takes on the
// wire (wire-protocol.ts opArgs): an id a client holds, or the text a user typed. The order of the
// rules: an id, then an exact name, then an exact command, then whole words at the start of a name or
// command, then any prefix; the first rule that matches decides, and several matches are an ambiguity
// that lists at most ten of them. Digits alone are an id and nothing else.
import { describe, expect, test } from "bun:test";
import { UserError } from "../../src/errors.ts";
import { resolveTaskRef, type TaskRefCandidate, taskById } from "../../src/task-ref.ts";
import { opArgs } from "../../src/wire-protocol.ts";
import { thrown } from "../harness/helpers.ts";

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

const task = (id: number, name: string | null, command: string, typed = command): TaskRefCandidate => ({ id, name, command, typed });
const resolved = (ref: string, tasks: TaskRefCandidate[]) => resolveTaskRef(ref, tasks).id;
const refused = (ref: string, tasks: TaskRefCandidate[]) => thrown(() => resolveTaskRef(ref, tasks)).message;

describe("an exact reference wins over a prefix", () => {
  const fleet = [task(4, "claude-fake", "agent.sh alpha"), task(10, null, "claude")];

  test("a bare command word is the task running that command, not one whose name starts with it", () => {
    expect(resolved("claude", fleet)).toBe(10);
    expect(resolved("claude", [task(4, "claude-fake", "agent.sh alpha"), task(10, null, "claude --resume 'x'")])).toBe(10);
  });

  test("an agent brought back in its resume form is named as typed: two tasks typed `claude` are an ambiguity that says so", () => {
    const resumed = task(4, null, "claude --resume '2771a642-cfad-4610-888e-1bed4d3b442b'", "claude");
    expect(resolved("claude", [resumed, task(5, "claude-fake", "agent.sh")])).toBe(4);
    expect(refused("claude", [resumed, task(7, null, "claude")])).toBe("'claude' matches 2 tasks: 4 claude, 7 claude");
  });

  test("an exact name wins over another task's command and over prefixes", () => {
    expect(resolved("api", [task(1, "api-v2", "x"), task(2, "api", "y"), task(3, null, "api --port 1")])).toBe(2);
    expect(resolved("claude-fake", fleet)).toBe(4);
  });

  test("an id wins over everything, and digits that are no id match no name, command or prefix", () => {
    expect(resolved("10", [task(10, "x", "y"), task(11, "10", "z")])).toBe(10);
    expect(refused("12", [task(10, "x", "y"), task(11, "12", "z")])).toBe("no task 12 (tasks: 10 x, 11 12)");
    expect(refused("1", [task(2, "1-api", "sleep 1000"), task(3, null, "1 more")])).toBe("no task 1 (tasks: 2 1-api, 3 1 more)");
  });

  test("a part of a word still finds a task when nothing else matches it", () => {
    expect(resolved("cla", [task(4, "claude-fake", "agent.sh alpha")])).toBe(4);
    expect(resolved("claude", [task(4, "claude-fake", "agent.sh alpha")])).toBe(4);
    expect(resolved("NPM RUN D", [task(1, null, "npm run dev"), task(2, null, "make")])).toBe(1);
  });

  test("whole leading words of a command win over a part of a word", () => {
    expect(resolved("npm run", [task(1, null, "npm run dev"), task(2, null, "npm runner")])).toBe(1);
  });
});

describe("ambiguity", () => {
  test("two tasks running the same command are ambiguous, whatever else matches", () => {
    expect(refused("claude", [task(4, "claude-fake", "claude"), task(10, null, "claude")])).toBe("'claude' matches 2 tasks: 4 claude-fake, 10 claude");
  });

  test("a prefix matching several tasks lists at most ten of them", () => {
    const many = Array.from({ length: 14 }, (_, i) => task(i + 1, null, `npm run worker-${i}`));
    expect(refused("npm", many)).toBe(
      `'npm' matches 14 tasks: ${many
        .slice(0, 10)
        .map((t) => `${t.id} ${t.command}`)
        .join(", ")} … and 4 more`,
    );
  });

  test("an unknown or empty reference matches nothing", () => {
    expect(refused("zzz", [task(1, "a", "b")])).toBe("no task matches 'zzz' (tasks: 1 a)");
    expect(refused("  ", [task(1, "a", "b")])).toBe("no task matches '  ' (tasks: 1 a)");
  });
});
