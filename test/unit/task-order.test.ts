import { describe, expect, test } from "bun:test";
import { conditionsOf, type DependencyState, findCycle, stopWaves, verdict } from "../../src/task-order.ts";

const running = (ready: DependencyState["ready"] = null): DependencyState => ({ running: true, exitCode: null, signal: null, ready, readyTimeoutSeconds: 60 });
const exited = (exitCode: number, signal: string | null = null): DependencyState => ({
  running: false,
  exitCode,
  signal,
  ready: null,
  readyTimeoutSeconds: null,
});

describe("conditions", () => {
  test("a list of names waits for each to be up; a map names the form", () => {
    expect(conditionsOf(["db"])).toEqual([{ name: "db", form: "up" }]);
    expect(conditionsOf({ migrate: "done", db: "ready" })).toEqual([
      { name: "migrate", form: "done" },
      { name: "db", form: "ready" },
    ]);
    expect(conditionsOf(undefined)).toEqual([]);
  });

  test("up is ready for a task with a probe and started for one without", () => {
    expect(verdict("up", running())).toBe("met");
    expect(verdict("up", running("starting"))).toBe("wait");
    expect(verdict("up", running("ready"))).toBe("met");
    expect(verdict("up", running("not-ready"))).toEqual({ failed: "which was not ready after 60s" });
  });

  test("done holds on a clean exit 0 only; any other end never holds, and says which", () => {
    expect(verdict("done", running())).toBe("wait");
    expect(verdict("done", exited(0))).toBe("met");
    expect(verdict("done", exited(1))).toEqual({ failed: "which exited 1" });
    expect(verdict("done", exited(0, "SIGKILL"))).toEqual({ failed: "which was killed (SIGKILL)" });
  });

  test("a task that ends before its probe passes fails ready; a missing one fails everything", () => {
    expect(verdict("ready", { ...exited(1), ready: "starting" })).toEqual({ failed: "which exited 1 before it was ready" });
    expect(verdict("started", null)).toEqual({ failed: "which did not start" });
  });

  test("a failure its restart policy answers is not final: the entry waits through the restart", () => {
    expect(verdict("ready", { ...running("not-ready"), restarting: true })).toBe("wait");
    expect(verdict("done", { ...exited(1), restarting: true })).toBe("wait");
    expect(verdict("ready", { ...exited(1), ready: "starting", restarting: true })).toBe("wait");
    expect(verdict("ready", { ...running("ready"), restarting: true })).toBe("met");
  });
});

describe("cycles and stop waves", () => {
  test("a cycle is found and named in order; a chain is none", () => {
    expect(
      findCycle(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
        ]),
      ),
    ).toEqual(["a", "b", "c", "a"]);
    expect(findCycle(new Map([["a", ["a"]]]))).toEqual(["a", "a"]);
    expect(
      findCycle(
        new Map([
          ["api", ["db"]],
          ["web", ["api", "db"]],
          ["db", []],
        ]),
      ),
    ).toBeNull();
  });

  test("dependents stop in the first wave, what they depend on after", () => {
    const deps: Record<string, string[]> = { db: [], api: ["db"], web: ["api", "db"], docs: [] };
    expect(stopWaves(Object.keys(deps), (n) => deps[n]!)).toEqual([["web", "docs"], ["api"], ["db"]]);
  });

  test("a cycle made by renaming live tasks stops together rather than never", () => {
    const deps: Record<string, string[]> = { a: ["b"], b: ["a"] };
    expect(stopWaves(["a", "b"], (n) => deps[n]!)).toEqual([["a", "b"]]);
  });
});
