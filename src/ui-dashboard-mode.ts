// What the dashboard is doing, one thing at a time (ui-dashboard.ts): which keys it reads and what
// shows beside the list; and how it is started and how it ended.
import type { Target } from "./client-target.ts";
import type { DetachKey } from "./ui-attach-settings.ts";
import type { Jump } from "./ui-dashboard-cursor.ts";
import type { TaskInfo } from "./wire-protocol.ts";

export type DashboardEnd = "detached" | "quit" | "lost";

export interface DashboardOptions {
  foreground?: boolean;
  /** A first status line, e.g. what `fleetcom NAME` loaded. */
  status?: string | undefined;
  /** For every attach from here (`--detach-key`). */
  detachKey?: DetachKey | undefined;
  /** The daemon whose fleet this is (`--host`, FLEETCOM_HOST: that host's). */
  target: Target;
}

/**
 * What the keys do and what shows beside the list, one at a time. `lent`: a prompt, the pager, the
 * session picker or attached mode has the terminal, nothing draws, and `back` is the mode it comes
 * back to; `ended`: the dashboard has returned, and a late reply or event must not draw over what follows.
 */
export type Mode =
  | { kind: "list" }
  | { kind: "filtering" }
  | ({ kind: "jumping" } & Jump)
  | { kind: "help"; scroll: number }
  | { kind: "peek"; key: string; task: TaskInfo; title: string; text: string }
  | { kind: "confirming"; answer: (yes: boolean) => void }
  | { kind: "lost" }
  | { kind: "quitting" }
  | { kind: "lent"; back: Mode }
  | { kind: "ended" };

export const LIST: Mode = { kind: "list" };
