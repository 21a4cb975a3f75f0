// FLEETCOM_NOTIFY (agents.md, Attention): a command line the daemon runs with `/bin/sh -c` once per
// transition of a task into attention. It is fire and forget: spawned in its own process group with
// no stdin or stdout, never waited for, killed (with its children) after NOTIFY_TIMEOUT_MS; a
// failure to start, a non-zero exit and what it wrote on stderr go to the daemon log. So a failing
// or slow notifier never holds up the daemon. Its outcome (null, or why it failed) resolves the
// promise it returns, for `status` and `fleetcom notify test` (daemon-notify.ts); nobody awaits it
// on the daemon's way.
import type { Attention } from "./task-attention.ts";
import { ProcessGroup } from "./daemon-process-group.ts";
import { childProcess } from "./platform.ts";

export const NOTIFY_TIMEOUT_MS = 10_000;
const STDERR_KEPT = 2_000;

export interface Notice {
  taskId: number;
  label: string;
  attention: Attention;
}

/** The environment the notifier gets on top of the daemon's own. */
export function notifyEnv(notice: Notice): Record<string, string> {
  return {
    FLEETCOM_TASK_ID: String(notice.taskId),
    FLEETCOM_TASK_LABEL: notice.label,
    FLEETCOM_ATTENTION: notice.attention.state,
    FLEETCOM_MESSAGE: notice.attention.message ?? "",
  };
}

export function runNotifier(command: string, notice: Notice, log: (message: string) => void): Promise<string | null> {
  const what = `FLEETCOM_NOTIFY for task ${notice.taskId}`;
  let settle!: (failure: string | null) => void;
  const outcome = new Promise<string | null>((resolve) => (settle = resolve));
  const fail = (failure: string) => {
    log(`${what} ${failure}`);
    settle(failure);
  };
  let child: ReturnType<typeof import("node:child_process").spawn>;
  try {
    child = childProcess().spawn("/bin/sh", ["-c", command], {
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...notifyEnv(notice) },
    });
  } catch (error) {
    fail(`could not start: ${(error as Error)?.message ?? error}`);
    return outcome;
  }
  // detached: its own session and group, signalled only while provably still the notifier's.
  const group = child.pid ? new ProcessGroup(child.pid) : null;
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    if (stderr.length < STDERR_KEPT) stderr += chunk.toString("utf8");
  });
  const timer = setTimeout(() => {
    fail(`still running after ${NOTIFY_TIMEOUT_MS / 1000}s: killed`);
    group?.signal("SIGKILL");
  }, NOTIFY_TIMEOUT_MS);
  timer.unref?.();
  child.on("error", (error) => {
    clearTimeout(timer);
    fail(`could not start: ${error.message}`);
  });
  child.on("exit", (code, signal) => {
    group?.leaderReaped();
    clearTimeout(timer);
    if (code !== 0) fail(`failed (${signal ?? `exit ${code}`})${stderr.trim() ? `: ${stderr.trim().slice(0, STDERR_KEPT)}` : ""}`);
    else settle(null);
  });
  child.unref();
  return outcome;
}
