// What has the dashboard's terminal for a while, and what it says when it gives it back: attached
// mode on a task (its host's, for a remote row) and the session picker. The dashboard lends the
// terminal (nothing draws meanwhile) and puts the cursor and the status line where these say.
import { targetOf, type Target } from "./client-target.ts";
import { attachSession } from "./ui-attach.ts";
import type { DetachKey } from "./ui-attach-settings.ts";
import { stateText } from "./view-task.ts";
import type { HostFleet } from "./client-host-fleet.ts";
import { KEEP_HINT } from "./ui-dashboard-actions.ts";
import { taskKey } from "./view-fleet.ts";
import type { KeyInput } from "./ui-keys.ts";
import { PROMPT_ROWS } from "./ui-prompt.ts";
import type { Region } from "./ui-render.ts";
import type { TaskInfo } from "./wire-protocol.ts";

/** Back from attached mode: the row for the cursor, what the status line says (null: nothing), and whether the status line showed. */
export interface CameBack {
  cursor: string | null;
  said: { text: string; error: boolean } | null;
  statusShown: boolean | undefined;
}

/** Attached mode on `task` of `fleet` (null: this machine's), through a connection of its own, until the user comes back or the task ends. */
export async function attachFromList(
  task: TaskInfo,
  fleet: HostFleet | null,
  options: { detachKey: DetachKey; status: boolean; target: Target },
): Promise<CameBack> {
  const host = fleet?.name ?? null;
  const outcome = await attachSession({ id: task.id }, { ...options, keepRawMode: true, ...(fleet && { target: targetOf(fleet.host) }) });
  // A chord may have moved attached mode to another task (of the same host): the cursor comes back on that one.
  const last = outcome.kind === "detached" ? outcome.task : outcome.end.task;
  const came = { cursor: last ? taskKey(last.id, host) : null, said: null, statusShown: outcome.statusShown };
  if (outcome.kind === "detached") return came;
  const { reason, task: ended } = outcome.end;
  const ref = host === null ? String(ended.id) : `${host}:${ended.id}`;
  const text = reason === "exited" ? `task ${ref} ${stateText(ended)}` : reason === "removed" ? `task ${ref} was removed` : "the daemon stopped";
  return { ...came, said: { text, error: reason !== "exited" } };
}

/** `o`: the session picker under the list; what was loaded (with the save hint after a snapshot), or null when cancelled. */
export async function pickAndLoad(target: Target, region: Region, keys: KeyInput): Promise<string | null> {
  const { describePicked, pickSession } = await import("./ui-picker-sessions.ts");
  const picked = await pickSession(target, { start: "saved", region, keys, reserve: PROMPT_ROWS });
  if (!picked) return null;
  const hint = picked.kind === "recovery" ? `\n${KEEP_HINT}` : "";
  return `${await describePicked(picked, false, { target })}${hint}`;
}
