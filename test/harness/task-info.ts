// A task as the daemon describes it (TaskInfo), for the tests of pure modules that show or judge one:
// one place that follows the contract when a field is added.
import type { TaskInfo } from "../../src/wire-protocol.ts";

/** A running task `cmd ID` (typed as run), started at the epoch, with `over` on top. */
export function taskInfo(id: number, over: Partial<TaskInfo> = {}): TaskInfo {
  const command = over.command ?? `cmd ${id}`;
  return {
    id,
    run: 1,
    command,
    typed: command,
    worktree: null,
    baseline: null,
    changes: null,
    loaded: false,
    notify: true,
    name: null,
    group: null,
    cwd: "/w",
    tagged: false,
    state: "running",
    idle: false,
    exitCode: null,
    signal: null,
    pid: 100 + id,
    startedAt: new Date(0).toISOString(),
    endedAt: null,
    lastOutputAt: null,
    preview: "",
    agent: null,
    conversation: null,
    attention: null,
    usage: null,
    cols: 80,
    rows: 24,
    cpu: null,
    rss: null,
    threads: null,
    processes: null,
    cpuRecent: [],
    maxMemory: null,
    stopReason: null,
    readiness: null,
    restart: "no",
    maxRestarts: 5,
    restarts: 0,
    nextRestartAt: null,
    ...over,
  };
}
