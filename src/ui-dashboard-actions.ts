// What the dashboard's keys ask of the daemon (docs/dashboard.md): run, rename, group, tag, rerun,
// kill or remove, save, recover; and `d`, a task's diff in git's pager. Each says on the status line what came of it. The dashboard
// (ui-dashboard.ts) holds the fleet, the cursor and the terminal; an action sees only its `Desk`.
import type { Target } from "./client-target.ts";
import { join } from "node:path";
import type { DaemonClient } from "./client.ts";
import { errorMessage } from "./errors.ts";
import { recoveryDir, tildePath } from "./paths.ts";
import { NO_GROUP, label } from "./task-labels.ts";
import { printable } from "./text-printable.ts";
import type { Grouping, ListRow } from "./view-fleet.ts";
import type { CrashNotice, TaskInfo } from "./wire-protocol.ts";

export const KEEP_HINT = "press w (or run fleetcom save NAME) to keep this fleet under a permanent name";

/** What an action asks of the dashboard. */
export interface Desk {
  /**
   * The connection to the daemon `task` runs on: this machine's, or its host's (every request about
   * a task goes there). Throws, saying so, while that host is unreachable.
   */
  clientOf(task: TaskInfo): DaemonClient;
  /** The connection to `host`'s daemon (null: this machine's); throws while it is unreachable. */
  clientOn(host: string | null): DaemonClient;
  /** The task as a TASK is written: `3` here, `remote1:3` on another host. */
  ref(task: TaskInfo): string;
  /** The added hosts the dashboard shows (none: `n` does not ask which). */
  readonly hostNames: readonly string[];
  /** The daemon of the dashboard's own rows (`--host`: that host's). */
  readonly target: Target;
  /** The dashboard's directory: `n` runs there. */
  readonly here: string;
  readonly grouping: Grouping;
  /** Tasks selected with `v` (by row key): an action that did all it was asked clears them. */
  readonly picked: Set<string>;
  /** Puts a line on the status line; the next frame shows it. */
  tell(text: string, error?: boolean): void;
  /** Puts a line on the status line and draws at once: what a request that takes a while is doing. */
  say(text: string, error?: boolean): void;
  /** A line prompt under the list; null when cancelled with Esc. */
  ask(message: string, initialValue?: string): Promise<string | null>;
  /** `question y/N` on the status line; only `y` says yes. */
  confirm(question: string): Promise<boolean>;
  /** The cursor goes on this task's row (`host` null: this machine's). */
  showTask(id: number, host: string | null): void;
  /** `show` has the terminal (a pager) until it settles; then the dashboard draws again. */
  lendToPager(show: () => Promise<unknown>): Promise<void>;
}

/** Runs `work` and puts what it says, or what went wrong, on the status line; true when it worked. */
async function attempt(desk: Desk, work: () => Promise<string>): Promise<boolean> {
  try {
    desk.tell(await work());
    return true;
  } catch (error) {
    desk.tell(errorMessage(error), true);
    return false;
  }
}

/** A key's one request for its one target: `done`, or what went wrong; the selection is cleared when it worked. */
async function forOne(desk: Desk, done: string, request: () => Promise<unknown>): Promise<void> {
  if (await attempt(desk, () => request().then(() => done))) desk.picked.clear();
}

/**
 * What r, g and m do to their targets: one target, its own request and message; several, one
 * request per task of `acting` (those the key applies to), all at once, and how many it did and the
 * first thing that went wrong. The selection is cleared when nothing failed.
 */
async function forTargets(
  desk: Desk,
  targets: readonly TaskInfo[],
  said: { one: (task: TaskInfo) => string; many: (done: number) => string },
  request: (task: TaskInfo) => Promise<unknown>,
  acting: readonly TaskInfo[] = targets,
): Promise<void> {
  const [first, ...more] = targets;
  if (first && more.length === 0) return forOne(desk, said.one(first), () => request(first));
  const results = await Promise.allSettled(acting.map(async (t) => request(t)));
  const failed = results.flatMap((r) => (r.status === "rejected" ? [errorMessage(r.reason)] : []));
  desk.tell([said.many(acting.length - failed.length), ...(failed.length ? [`${failed.length} failed: ${failed[0]}`] : [])].join("; "), failed.length > 0);
  if (failed.length === 0) desk.picked.clear();
}

/**
 * `d`: the task's diff since its baseline in git's pager, as `fleetcom diff` shows it (docs/review.md).
 * git runs here, so another host's task is pointed to `fleetcom diff HOST:TASK`, which runs it there.
 */
export async function pageDiff(desk: Desk, row: ListRow): Promise<void> {
  const { task } = row;
  if (!task) return desk.tell("d shows a task's diff: put the cursor on a task");
  if (row.host !== null) return desk.tell(`d shows this machine's tasks' diffs; for this one run fleetcom diff ${desk.ref(task)}`);
  if (task.baseline === null)
    return desk.tell(`task ${task.id} has no baseline: only agents and tasks started with --worktree in a git repository get one`, true);
  // Loaded on `d`: git's helpers are no part of a dashboard that never shows a diff.
  await desk.lendToPager(async () => (await import("./client-diff.ts")).pageTaskDiff(task));
}

/**
 * `n`: a command in the dashboard's directory; grouped by group, in the group under the cursor
 * (conformance 12.19). With hosts added it asks on which first (empty: this machine); on another
 * host it runs in that host's home, the local directory meaning nothing there.
 */
export async function newCommand(desk: Desk, row: ListRow | undefined): Promise<void> {
  const host = await askHost(desk);
  if (host === undefined) return;
  const title = row && desk.grouping === "group" ? (row.task ? row.task.group : row.section.title) : null;
  const group = title === NO_GROUP ? null : title;
  const dir = host === null ? tildePath(desk.here, process.env.HOME) : `${printable(host)}:~`;
  const where = `${dir}${group ? ` (group '${printable(group)}')` : ""}`;
  const command = await desk.ask(`Run in ${where}`);
  if (command === null || command.trim() === "") return;
  await attempt(desk, async () => {
    const { id } = await desk.clientOn(host).request("run", { command, ...(host === null && { cwd: desk.here }), ...(group ? { group } : {}) });
    desk.showTask(id, host);
    return `started task ${host === null ? "" : `${host}:`}${id}`;
  });
}

/** Which host `n` runs on: null for this machine (an empty answer, or no host added); undefined when cancelled or unknown. */
async function askHost(desk: Desk): Promise<string | null | undefined> {
  if (desk.hostNames.length === 0) return null;
  const answer = await desk.ask(`Run on which host? (local, ${desk.hostNames.join(", ")}; empty: local)`);
  if (answer === null) return undefined;
  const name = answer.trim();
  if (name === "" || name === "local") return null;
  if (desk.hostNames.includes(name)) return name;
  desk.tell(`no host '${printable(name)}' (local, ${desk.hostNames.join(", ")})`, true);
  return undefined;
}

/** `R`: the task's name, or none. */
export async function rename(desk: Desk, task: TaskInfo): Promise<void> {
  const ref = desk.ref(task);
  const name = await desk.ask(`Name for task ${ref} (empty clears it)`, task.name ?? "");
  if (name === null) return;
  const cleared = name.trim() === "";
  await attempt(desk, async () => {
    await desk.clientOf(task).request("rename", { task: { id: task.id }, name: cleared ? null : name });
    return cleared ? `task ${ref} has no name` : `renamed task ${ref}`;
  });
}

/** `g`: the targets' group, or none. */
export async function regroup(desk: Desk, tasks: TaskInfo[], row: ListRow): Promise<void> {
  if (tasks.length === 0) return;
  const groups = new Set(tasks.map((t) => t.group ?? ""));
  // A group's title pre-fills its name, so renaming a whole group is editing one word.
  const initial = groups.size === 1 ? [...groups][0]! : !row.task && desk.grouping === "group" && row.section.title !== NO_GROUP ? row.section.title : "";
  const group = await desk.ask(`Group for ${tasks.length === 1 ? `task ${desk.ref(tasks[0]!)}` : `${tasks.length} tasks`} (empty clears it)`, initial);
  if (group === null) return;
  const cleared = group.trim() === "";
  const named = `group '${printable(group.trim())}'`;
  await forTargets(
    desk,
    tasks,
    {
      one: (t) => (cleared ? `task ${desk.ref(t)} has no group` : `task ${desk.ref(t)} is in ${named}`),
      many: (n) => (cleared ? `${n} tasks have no group` : `${n} tasks are in ${named}`),
    },
    (t) => desk.clientOf(t).request("group", { task: { id: t.id }, group: cleared ? null : group }),
  );
}

/** `m`: one task's tag toggled; several tagged, or untagged when they all were. */
export async function tag(desk: Desk, tasks: TaskInfo[]): Promise<void> {
  const untag = tasks.every((t) => t.tagged);
  await forTargets(
    desk,
    tasks,
    {
      one: (t) => (t.tagged ? `task ${desk.ref(t)} no longer in use` : `task ${desk.ref(t)} marked in use`),
      many: (n) => (untag ? `${n} tasks no longer in use` : `${n} tasks marked in use`),
    },
    (t) => desk.clientOf(t).request("tag", { task: { id: t.id } }),
    tasks.filter((t) => t.tagged === untag),
  );
}

/**
 * `r`: the finished ones rerun; where one runs, they restart (restart below). A rerun runs the
 * command again (a migration applies twice, a deploy deploys again), so it asks first, as X does,
 * when it reaches beyond the task under the cursor or reruns a one-off: a command started by `run` or
 * `n` rather than by a load (a session's dev server or test watcher is meant to be started again).
 */
export async function rerun(desk: Desk, tasks: TaskInfo[], row: ListRow): Promise<void> {
  if (tasks.some((t) => t.state === "running")) return restart(desk, tasks);
  const finished = tasks.filter((t) => t.state === "exited");
  if (finished.length > 0 && (beyondCursor(tasks, row) || finished.some((t) => !t.loaded))) {
    const question = finished.length === 1 ? `rerun ${printable(label(finished[0]!))}?` : `rerun ${finished.length} finished tasks?`;
    if (!(await desk.confirm(question))) return desk.say("nothing rerun");
  }
  if (tasks.length !== 1 && finished.length === 0)
    return desk.tell(`none of these ${tasks.length} tasks has finished; only a finished task can be rerun`, true);
  const skipped = tasks.length - finished.length;
  await forTargets(
    desk,
    tasks,
    { one: (t) => `reran task ${desk.ref(t)}`, many: (n) => `reran ${n} tasks${skipped ? `; ${skipped} still running, left as they are` : ""}` },
    (t) => desk.clientOf(t).request("rerun", { task: { id: t.id } }),
    finished,
  );
}

/**
 * `r` where a task runs: each is stopped and run again in place (finished ones too), its history
 * kept; asked first, since what it was doing is lost.
 */
async function restart(desk: Desk, tasks: TaskInfo[]): Promise<void> {
  const question = tasks.length === 1 ? `restart ${printable(label(tasks[0]!))}?` : `restart ${tasks.length} tasks?`;
  if (!(await desk.confirm(question))) return desk.say("nothing restarted");
  await forTargets(desk, tasks, { one: (t) => `restarted task ${desk.ref(t)}`, many: (n) => `restarted ${n} tasks` }, (t) =>
    desk.clientOf(t).request("restart", { tasks: [{ id: t.id }] }),
  );
}

/**
 * `X`: running tasks are killed, finished ones removed, in one request each. One key must not end
 * what cannot be brought back: killing running tasks asks first (a finished task goes at once,
 * its recipe is in the snapshots).
 */
export async function killOrRemove(desk: Desk, tasks: TaskInfo[]): Promise<void> {
  const alone = tasks.length === 1 ? tasks[0] : undefined;
  const running = tasks.filter((t) => t.state === "running");
  const finished = tasks.filter((t) => t.state !== "running");
  if (running.length) {
    const question = alone
      ? `kill ${printable(label(alone))}?`
      : `kill ${running.length} running task(s)${finished.length ? ` and remove ${finished.length} finished` : ""}?`;
    if (!(await desk.confirm(question))) return desk.say(alone ? `task ${desk.ref(alone)} left running` : "nothing killed");
  }
  if (alone) {
    const client = () => desk.clientOf(alone);
    if (!running.length) return forOne(desk, `removed task ${desk.ref(alone)}`, () => client().request("rm", { tasks: [{ id: alone.id }] }));
    desk.say(`stopping task ${desk.ref(alone)}…`);
    return forOne(desk, `killed task ${desk.ref(alone)}`, () => client().request("kill", { tasks: [{ id: alone.id }] }));
  }
  if (running.length) desk.say(`stopping ${running.length} tasks…`);
  const said: string[] = [];
  try {
    // One kill and one rm for each daemon the tasks are on.
    if (running.length) said.push(`killed ${await perDaemon(desk, running, async (c, ids) => (await c.request("kill", { tasks: ids })).killed.length)} tasks`);
    if (finished.length)
      said.push(`removed ${await perDaemon(desk, finished, async (c, ids) => (await c.request("rm", { tasks: ids })).removed.length)} tasks`);
    desk.tell(said.join(", "));
    desk.picked.clear();
  } catch (error) {
    desk.tell([...said, errorMessage(error)].join("; "), true);
  }
}

/** `request` once for each daemon among the tasks' (this machine's, each host's), with its tasks' ids; what they counted, summed. */
async function perDaemon(desk: Desk, tasks: TaskInfo[], request: (client: DaemonClient, ids: { id: number }[]) => Promise<number>): Promise<number> {
  const byClient = new Map<DaemonClient, { id: number }[]>();
  for (const task of tasks) {
    const client = desk.clientOf(task);
    byClient.set(client, [...(byClient.get(client) ?? []), { id: task.id }]);
  }
  const counts = await Promise.all([...byClient].map(([client, ids]) => request(client, ids)));
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * `Q`'s question: the shutdown stops this machine's daemon and tasks only; with hosts added it says
 * so, and that theirs keep running.
 */
export function stopQuestion(running: number, hosts: readonly string[]): string {
  const tasks = `${running} task${running === 1 ? "" : "s"}`;
  if (hosts.length === 0) return `stop ${tasks} and the daemon?`;
  return `stop this machine's ${tasks} and its daemon? (the tasks on ${hosts.join(", ")} keep running)`;
}

/** `w`: the fleet saved under a name. */
export async function save(desk: Desk): Promise<void> {
  const name = await desk.ask("Save the fleet as session");
  if (name === null || name.trim() === "") return;
  await attempt(desk, async () => {
    const { saveFleet } = await import("./client-recipes.ts");
    return saveFleet(desk.target, name);
  });
}

/** `L`: recover the lost fleet the header names, exactly as `fleetcom recover` of its snapshot would; true when it did. */
export async function recoverLost(desk: Desk, crash: CrashNotice): Promise<boolean> {
  const [{ snapshotByPath }, { recoverAndDescribe }] = await Promise.all([import("./recipe-snapshots.ts"), import("./client-recipes.ts")]);
  return attempt(
    desk,
    async () => `${await recoverAndDescribe(snapshotByPath(join(recoveryDir(), crash.snapshot)), false, { target: desk.target })}\n${KEEP_HINT}`,
  );
}

/**
 * Whether a key acts on more than the task the user sees under the cursor: a section's title (every
 * task in it) or a selection (of several, or of one elsewhere). A key that cannot be taken back
 * then asks first.
 */
function beyondCursor(tasks: TaskInfo[], row: ListRow): boolean {
  return !(tasks.length === 1 && row.task?.id === tasks[0]!.id);
}
