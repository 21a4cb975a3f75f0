// The pure parts of a load (daemon-load.ts): which entries a running task already stands for
// (sessions.md), the rule the daemon applies before it starts anything; and how much of a load runs
// before the daemon serves its other clients: a turn ends after four spawns or 512 skipped entries,
// and after 10 ms of either, whichever comes first. The clock is the test's own: nothing here waits.
import { describe, expect, test } from "bun:test";
import { alreadyRunning, LoadTurns, type RunningTask, TURN_MS } from "../../src/daemon-load.ts";
import { entry } from "../harness/helpers.ts";

const ID = "c8c4a5cc-0b32-4ba0-a6b4-6ed08c218e0d";
const task = (dir: string, cmd: string, more: Partial<RunningTask> = {}): RunningTask => ({
  dir,
  group: null,
  name: null,
  commands: [cmd],
  conversation: null,
  ...more,
});

describe("already running", () => {
  test("the same directory, command, group and name is running; any one of them different is not", () => {
    const running = [task("/w", "npm run dev", { group: "web", name: "dev" })];
    expect(
      alreadyRunning(
        [
          entry("/w", "npm run dev", "web", "dev"),
          entry("/x", "npm run dev", "web", "dev"),
          entry("/w", "npm run devx", "web", "dev"),
          entry("/w", "npm run dev", null, "dev"),
          entry("/w", "npm run dev", "web", null),
        ],
        running,
      ),
    ).toEqual([true, false, false, false, false]);
  });

  test("each running task stands for one entry only", () => {
    expect(alreadyRunning([entry("/w", "make"), entry("/w", "make"), entry("/w", "make")], [task("/w", "make"), task("/w", "make")])).toEqual([
      true,
      true,
      false,
    ]);
  });

  test("an agent's saved form counts: a bare claude whose conversation is known matches its resume form", () => {
    const running = [task("/w", "claude", { commands: ["claude", `claude --resume '${ID}'`], conversation: ID })];
    expect(alreadyRunning([entry("/w", `claude --resume '${ID}'`)], running)).toEqual([true]);
  });

  test("the same conversation is running whatever the directory, name or spelling of the resume form", () => {
    const running = [task("/w", "claude", { name: "reviewer", conversation: ID })];
    expect(alreadyRunning([entry("/elsewhere", `claude --resume ${ID}`, "g", "other")], running)).toEqual([true]);
    expect(alreadyRunning([entry("/w", `claude --resume 'deadbeef-0000-4000-8000-00000000dead'`, null, "reviewer")], running)).toEqual([false]);
  });

  test("nothing running, nothing matched", () => {
    expect(alreadyRunning([entry("/w", "make")], [])).toEqual([false]);
  });
});

describe("turns", () => {
  test("a turn ends after four spawns, or after 512 skipped entries", () => {
    const turns = new LoadTurns(() => 0);
    expect([turns.did("spawn"), turns.did("spawn"), turns.did("spawn"), turns.did("spawn")]).toEqual([false, false, false, true]);
    turns.yielded();
    const skips = Array.from({ length: 512 }, () => turns.did("skip"));
    expect(skips.indexOf(true)).toBe(511);
  });

  test("a turn also ends once it has run for 10 ms, however little it did: one slow spawn is a turn", () => {
    let now = 1_000;
    const turns = new LoadTurns(() => now);
    now += 2;
    expect(turns.did("spawn")).toBe(false);
    now += TURN_MS;
    expect(turns.did("spawn")).toBe(true);
    turns.yielded();
    now += 1;
    expect(turns.did("skip")).toBe(false);
    now += TURN_MS;
    expect(turns.did("skip")).toBe(true);
  });
});
