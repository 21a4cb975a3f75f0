import { describe, expect, test } from "bun:test";
import {
  backoffMs,
  countdownText,
  crashLoopText,
  decide,
  endCalls,
  MAX_BACKOFF_MS,
  type RestartState,
  restartMark,
  restartState,
  type RunEnd,
  runSeparator,
  STAYED_UP_MS,
} from "../../src/task-restart.ts";

const failed = (over: Partial<RunEnd> = {}): RunEnd => ({ exitCode: 1, signal: null, upMs: 50, at: 1_000_000, stoppedOnPurpose: false, ...over });

/** Runs `ends` one after another through the policy, as the daemon does; returns each decision. */
function runThrough(state: RestartState, ends: RunEnd[]) {
  return ends.map((end) => {
    const decision = decide(state, end);
    if (decision.kind !== "none") state = decision.state;
    return decision;
  });
}

describe("which endings a policy answers", () => {
  test("on-failure: a non-zero exit or a signal, never a clean exit", () => {
    expect(endCalls("on-failure", { exitCode: 1, signal: null })).toBe(true);
    expect(endCalls("on-failure", { exitCode: null, signal: "SIGSEGV" })).toBe(true);
    expect(endCalls("on-failure", { exitCode: 0, signal: null })).toBe(false);
  });

  test("always: any ending; no: none", () => {
    expect(endCalls("always", { exitCode: 0, signal: null })).toBe(true);
    expect(endCalls("no", { exitCode: 1, signal: null })).toBe(false);
  });

  test("a run stopped on purpose is never restarted, whatever the policy", () => {
    const state = restartState({ policy: "always", maxRestarts: 5 });
    expect(decide(state, failed({ stoppedOnPurpose: true }))).toEqual({ kind: "none" });
    expect(decide(state, failed({ signal: "SIGTERM", exitCode: null, stoppedOnPurpose: true }))).toEqual({ kind: "none" });
  });
});

describe("a run its readiness probe gave up on", () => {
  test("is a failure under on-failure however it exited; no policy still never restarts it", () => {
    expect(endCalls("on-failure", { exitCode: 0, signal: null, notReady: true })).toBe(true);
    expect(endCalls("no", { exitCode: null, signal: "SIGTERM", notReady: true })).toBe(false);
    expect(decide(restartState({ policy: "on-failure", maxRestarts: 5 }), failed({ exitCode: 0, notReady: true }))).toMatchObject({ kind: "restart" });
  });

  test("a crash loop of them says not ready, not the exit the stop caused", () => {
    expect(crashLoopText(5, 12, { exitCode: 0, signal: null, notReady: true })).toBe("crash loop · 5 restarts in 12s · not ready");
  });
});

describe("a run stopped over its --max-memory", () => {
  test("is a failure under on-failure however it exited (a TERM it caught and left with 0); no policy never restarts it", () => {
    expect(endCalls("on-failure", { exitCode: 0, signal: null, overMemory: true })).toBe(true);
    expect(endCalls("no", { exitCode: null, signal: "SIGTERM", overMemory: true })).toBe(false);
    expect(decide(restartState({ policy: "on-failure", maxRestarts: 5 }), failed({ exitCode: 0, overMemory: true }))).toMatchObject({ kind: "restart" });
  });

  test("a crash loop of them says so, not the exit the stop caused", () => {
    expect(crashLoopText(5, 12, { exitCode: 0, signal: null, overMemory: true })).toBe("crash loop · 5 restarts in 12s · over --max-memory");
  });
});

describe("the backoff", () => {
  test("starts at 0.1 s and doubles to at most 60 s", () => {
    expect([0, 1, 2, 3, 4].map(backoffMs)).toEqual([100, 200, 400, 800, 1600]);
    expect(backoffMs(9)).toBe(51_200);
    expect(backoffMs(10)).toBe(MAX_BACKOFF_MS);
    expect(backoffMs(1000)).toBe(MAX_BACKOFF_MS);
  });

  test("each restart of a streak waits twice as long as the one before", () => {
    const decisions = runThrough(restartState({ policy: "on-failure", maxRestarts: 0 }), [failed(), failed(), failed()]);
    expect(decisions.map((d) => (d.kind === "restart" ? d.delayMs : d.kind))).toEqual([100, 200, 400]);
  });

  test("a run that stayed up a minute starts the streak again", () => {
    const decisions = runThrough(restartState({ policy: "always", maxRestarts: 3 }), [failed(), failed(), failed({ upMs: STAYED_UP_MS }), failed()]);
    expect(decisions.map((d) => (d.kind === "restart" ? d.delayMs : d.kind))).toEqual([100, 200, 100, 200]);
    const last = decisions.at(-1)!;
    expect(last.kind === "restart" && last.state).toMatchObject({ restarts: 4, streak: 2 });
  });
});

describe("the crash loop", () => {
  test("after N restarts that never stayed up, the next failure gives up, naming the count, the span and the exit", () => {
    const ends = [0, 1, 2, 3].map((i) => failed({ at: 1_000_000 + i * 13_000 }));
    const decisions = runThrough(restartState({ policy: "on-failure", maxRestarts: 3 }), ends);
    expect(decisions.map((d) => d.kind)).toEqual(["restart", "restart", "restart", "crash-loop"]);
    expect(decisions[3]).toMatchObject({ kind: "crash-loop", text: "crash loop · 3 restarts in 39s · exit 1", state: { restarts: 3, streak: 3 } });
  });

  test("max 0 never gives up", () => {
    const decisions = runThrough(
      restartState({ policy: "always", maxRestarts: 0 }),
      Array.from({ length: 50 }, () => failed()),
    );
    expect(decisions.every((d) => d.kind === "restart")).toBe(true);
  });

  test("a count kept by a recovery goes on; the streak starts again", () => {
    const decision = decide(restartState({ policy: "on-failure", maxRestarts: 5 }, 7), failed());
    expect(decision).toMatchObject({ kind: "restart", delayMs: 100, state: { restarts: 8, streak: 1 } });
  });

  test("its text: one restart, a signal", () => {
    expect(crashLoopText(1, 0, { exitCode: null, signal: "SIGSEGV" })).toBe("crash loop · 1 restart in 0s · SIGSEGV");
  });
});

describe("what people see", () => {
  test("the separator between runs names the run, the time and how the run before ended", () => {
    const at = new Date(2026, 11, 4, 12, 3, 44);
    expect(runSeparator(3, at, { exitCode: 1, signal: null })).toBe("── run 3 · 12:03:44 · after exit 1 ──");
    expect(runSeparator(2, at, { exitCode: null, signal: "SIGTERM" })).toBe("── run 2 · 12:03:44 · after SIGTERM ──");
  });

  test("the mark and the countdown", () => {
    expect(restartMark(0)).toBe("");
    expect(restartMark(3)).toBe(" ↻3");
    expect(countdownText(new Date(10_500).toISOString(), 8_000)).toBe("restarting in 3s");
    expect(countdownText(new Date(1_000).toISOString(), 8_000)).toBe("restarting in 0s");
  });
});
