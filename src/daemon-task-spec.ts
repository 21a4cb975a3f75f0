// What a task is made from: the start a client, a load or a recovery asks for (TaskStart), and the
// spec the daemon makes of it with the asking client's environment and size (TaskSpec).
import type { AgentNamespace } from "./agent-namespace.ts";
import type { FlagProbe } from "./agent-probe.ts";
import type { WorktreeRecord } from "./recipe.ts";
import type { Baseline } from "./git.ts";
import type { Checkpoint } from "./git-checkpoint.ts";
import type { ServiceFields } from "./recipe-services.ts";
import type { RestartState } from "./task-restart.ts";
import type { Hello } from "./wire-protocol.ts";
import { normalizeGroup, normalizeName } from "./task-labels.ts";

export interface TaskSpec {
  id: number;
  command: string;
  /** The command as its user typed it (TaskInfo `typed`): `command` itself, or what a recipe says or stands for. */
  typed: string;
  cwd: string;
  /** The git worktree the client made for the task (`run --worktree`), or null. */
  worktree: WorktreeRecord | null;
  env: Record<string, string>;
  /** Variables given with `run --env`, over `env` at every start (reruns too); kept in memory only. */
  givenEnv?: Record<string, string> | undefined;
  /** `run --max-memory`: resident bytes its group may use, every run; null or absent for no limit. */
  maxMemory?: number | null | undefined;
  /** Its restart policy and count (task-restart.ts); none when not given. */
  restart?: RestartState | undefined;
  /** Started by a load, not by `run` or `n` (TaskInfo loaded). */
  loaded?: boolean | undefined;
  name: string | null;
  group: string | null;
  cols: number;
  rows: number;
  scrollback: number;
  /** Quiet this long, a running task is idle (the daemon's idle_seconds; 10 s when not given). */
  idleMs?: number | undefined;
  /** Its readiness probe, start order and stop (docs/services.md), as a recipe writes them. */
  service?: ServiceFields | undefined;
  /** Where agent runs keep their capture assets (agent-run.ts). */
  agents: AgentNamespace;
  /** Which options agent binaries understand; asked (prepare) before a spawn (agent-probe.ts). */
  probe: Pick<FlagProbe, "flagsOf">;
  log(message: string): void;
}

/** What a task is started from: its command and where, how it is shown, and what a recipe or a recovery kept of it. */
export interface TaskStart {
  command: string;
  cwd: string;
  group: string | null;
  name: string | null;
  /** The id a recovered task had, kept when it is free (daemon-task-ids.ts). */
  recorded?: number | undefined;
  /** The command as its user typed it, when `command` is what fleetcom wrote (an agent's resume form). */
  typed?: string | undefined;
  /** The git worktree the client made for it (`run --worktree`), kept in its recipe. */
  worktree?: WorktreeRecord | null | undefined;
  /** `run --env K=V` (TaskSpec givenEnv). */
  givenEnv?: Record<string, string> | undefined;
  /** `run --max-memory`, in bytes (Task maxMemory). */
  maxMemory?: number | null | undefined;
  /** `run --ready-* --stop-*`, a recipe's service fields (TaskSpec service). */
  service?: ServiceFields | undefined;
  /** The baseline a recovery snapshot kept (daemon-changes.ts). */
  baseline?: Baseline | undefined;
  /** The checkpoints a recovery snapshot kept (daemon-checkpoints.ts). */
  checkpoints?: Checkpoint[] | undefined;
  /** `run --restart`, a recipe's `restart`, and the count a recovery keeps. */
  restart?: RestartState | undefined;
  /** Started by a load (a saved session, a snapshot), not by `run` or the dashboard's `n`. */
  loaded?: boolean | undefined;
  /** False: nothing about it is pushed (`run --no-notify`, a recipe's `"notify": false`). */
  notify?: boolean | undefined;
}

/** What the daemon gives every task it makes, whoever asked: its terminal's settings, and its agents' namespace and probe. */
export type TaskMaking = Pick<TaskSpec, "scrollback" | "idleMs" | "agents" | "probe" | "log">;

/** The spec of the task `start` asks for, under `id`, in the environment and at the size of the client that asked. */
export function taskSpec(id: number, start: TaskStart, hello: Pick<Hello, "env" | "cols" | "rows">, making: TaskMaking): TaskSpec {
  const { command, cwd, group, name, typed = command, worktree = null, givenEnv, service, restart, loaded, maxMemory } = start;
  return {
    id,
    command,
    typed,
    cwd,
    worktree,
    env: hello.env,
    givenEnv,
    maxMemory,
    service,
    restart,
    loaded,
    name: name === null ? null : normalizeName(name),
    group: group === null ? null : normalizeGroup(group),
    cols: hello.cols,
    rows: hello.rows,
    ...making,
  };
}
