// TASK references (cli.md): an id, then an exact name, then an exact command, then whole words at
// the start of a name or command, then any prefix; the first rule that matches decides, and several
// matches are an ambiguity that lists at most ten of them. Digits alone are an id and nothing else.
// Pure, with checks through the real CLI.
import { describe, expect, test } from "bun:test";
import { resolveTaskRef, type TaskRefCandidate } from "../../src/task-ref.ts";
import { thrown } from "../harness/helpers.ts";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";

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

describe("through the CLI", () => {
  let fleet: Fleet;
  eachTestGetsAFleet((f) => (fleet = f));

  test("a bare command word names the task running it, not the task whose name starts with it", async () => {
    const fake = await fleet.run("echo fake; sleep 600", ["--name", "cat-fake"]);
    const cat = await fleet.run("cat");
    const sleeper = await fleet.run("sleep 600");
    expect(await fleet.cli(["rename", "cat", "exact command"])).toEqual({ code: 0, stdout: `task ${cat} is now named 'exact command'\n`, stderr: "" });
    expect(await fleet.cli(["rename", "sleep", "leading word"])).toEqual({ code: 0, stdout: `task ${sleeper} is now named 'leading word'\n`, stderr: "" });
    const names = Object.fromEntries((await fleet.ls()).map((t) => [t.id, t.name]));
    expect(names).toEqual({ [fake]: "cat-fake", [cat]: "exact command", [sleeper]: "leading word" });
    const r = await fleet.cli(["rename", "ca", "x"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `fleetcom: 'ca' matches 2 tasks: ${fake} cat-fake, ${cat} exact command\n` });
  });

  test("kill of a removed task's id is refused and kills nothing, not the task whose name starts with that id", async () => {
    const gone = await fleet.run("sleep 1000", ["--name", "x"]);
    const api = await fleet.run("sleep 1000", ["--name", `${gone}-api`]);
    await fleet.ok(["kill", String(gone)]);
    await fleet.ok(["rm", String(gone)]);
    const r = await fleet.cli(["kill", String(gone)]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `fleetcom: no task ${gone} (tasks: ${api} ${gone}-api)\n` });
    expect((await fleet.task(api)).state).toBe("running");
    expect(await fleet.cli(["rename", `${gone}-api`, "reached by its name"])).toEqual({
      code: 0,
      stdout: `task ${api} is now named 'reached by its name'\n`,
      stderr: "",
    });
    expect((await fleet.task(api)).name).toBe("reached by its name");
  });
});
