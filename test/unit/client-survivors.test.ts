// Which processes `recover` ends as left running by a dead daemon's tasks (client-survivors.ts), as a
// table: the evidence it accepts and the look-alikes it must leave alone. The processes are made up;
// the real ones are in test/slow/agents-life.test.ts.
import { describe, expect, test } from "bun:test";
import { type Candidate, isSurvivor, type SurvivorContext } from "../../src/client-survivors.ts";

const RUNTIME = "/run/user/1000/fleetcom";
const ctx = (over: Partial<SurvivorContext> = {}): SurvivorContext => ({
  uid: 1000,
  runtime: RUNTIME,
  runningDaemon: 300,
  // PID 200 is a daemon started long ago (tick 100); 400 a process started after the candidate; others are gone.
  startOf: (pid) => ({ 200: 100, 300: 150, 400: 9_000 })[pid] ?? null,
  ...over,
});
const candidate = (env: Record<string, string> | null, over: Partial<Candidate["stat"]> & { uid?: number | null } = {}): Candidate => {
  const { uid = 1000, ...stat } = over;
  return { stat: { pid: 500, state: "S", pgrp: 500, session: 500, start: 5_000, ...stat }, uid, env };
};
const task = (daemon?: string, runtime = RUNTIME) => ({
  FLEETCOM_TASK_ID: "3",
  FLEETCOM_RUNTIME_DIR: runtime,
  ...(daemon === undefined ? {} : { FLEETCOM_DAEMON_PID: daemon }),
});

describe("a process a dead daemon's task left running", () => {
  const cases: [string, Candidate, SurvivorContext, boolean][] = [
    ["its daemon's PID runs no process", candidate(task("250")), ctx(), true],
    ["its daemon's PID is held by a process started after it (reused)", candidate(task("400")), ctx(), true],
    ["no daemon runs here and it predates FLEETCOM_DAEMON_PID", candidate(task()), ctx({ runningDaemon: null }), true],
    ["a task of the running daemon", candidate(task("300")), ctx(), false],
    ["its daemon's PID is held by a process older than it (it may be its daemon)", candidate(task("200")), ctx(), false],
    ["a daemon runs here and it predates FLEETCOM_DAEMON_PID (it may be that daemon's)", candidate(task()), ctx(), false],
    ["another user's, with the same environment", candidate(task("250"), { uid: 0 }), ctx(), false],
    ["its owner unreadable", candidate(task("250"), { uid: null }), ctx(), false],
    ["another runtime directory's", candidate(task("250", "/tmp/elsewhere")), ctx(), false],
    ["no FLEETCOM_TASK_ID", candidate({ FLEETCOM_RUNTIME_DIR: RUNTIME, FLEETCOM_DAEMON_PID: "250" }), ctx(), false],
    ["a daemon PID that is no number", candidate(task("-1")), ctx(), false],
    ["a zombie", candidate(task("250"), { state: "Z" }), ctx(), false],
    ["an environment it could not read", candidate(null), ctx(), false],
  ];
  for (const [name, c, context, expected] of cases) {
    test(`${name}: ${expected ? "ended" : "left alone"}`, () => {
      expect(isSurvivor(c, context)).toBe(expected);
    });
  }
});
