// FLEETCOM_NOTIFY (agents.md, Attention): a command line the daemon runs with `/bin/sh -c` once per
// transition of a task into attention. It is fire and forget: spawned in its own process group with
// no stdin or stdout, never waited for, killed (with its children) after NOTIFY_TIMEOUT_MS; a
// failure to start, a non-zero exit and what it wrote on stderr go to the daemon log. So a failing
// or slow notifier never holds up the daemon. Its outcome (null, or why it failed) resolves the
// promise it returns, for `status` and `fleetcom notify test` (daemon-notify.ts); nobody awaits it
// on the daemon's way.
import type { Attention } from "./task-attention.ts";
import { ProcessGroup } from "./daemon-process-group.ts";
import { type GroupEnd, startInGroup } from "./platform.ts";

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
  const { group, ended } = startInGroup(["/bin/sh", "-c", command], { env: { ...process.env, ...notifyEnv(notice) }, stderrBytes: STDERR_KEPT });
  // Its own session and group, signalled only while provably still the notifier's.
  const processGroup = group === undefined ? null : new ProcessGroup(group);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (failure: string | null) => {
      if (settled) return;
      settled = true;
      if (failure !== null) log(`${what} ${failure}`);
      resolve(failure);
    };
    const timer = setTimeout(() => {
      settle(`still running after ${NOTIFY_TIMEOUT_MS / 1000}s: killed`);
      processGroup?.signal("SIGKILL");
    }, NOTIFY_TIMEOUT_MS);
    timer.unref?.();
    void ended.then((end) => {
      processGroup?.leaderReaped();
      clearTimeout(timer);
      settle(notifierFailure(end));
    });
  });
}

/** Why the notifier failed, as the daemon log and `status` say it; null when it exited 0. */
function notifierFailure(end: GroupEnd): string | null {
  if ("notStarted" in end) return `could not start: ${end.notStarted}`;
  if ("code" in end && end.code === 0) return null;
  const stderr = end.stderr.trim();
  return `failed (${"signal" in end ? end.signal : `exit ${end.code}`})${stderr ? `: ${stderr}` : ""}`;
}
