// `fleetcom checkpoints` and `fleetcom rewind` (docs/review.md, "Checkpoints and rewind"): the
// daemon keeps each task's checkpoints; listing asks it, and a rewind runs here, in this process, on
// the task's repository: planned against the disk (every restore checked) and read from git before
// the first file is written, so it applies in full or not at all. The agent's conversation is its
// own: fleetcom says how to rewind it there and never edits its store.
import { HERE, type Target } from "./client-target.ts";
import { withDaemon } from "./client.ts";
import { errorMessage, UserError } from "./errors.ts";
import { type Checkpoint, applyRewind, planRewind, readRestores, RewindFailed, type RewindPlan } from "./git-checkpoint.ts";
import { age } from "./text-age.ts";
import { printable } from "./text-printable.ts";
import type { OpResult, TaskInfo } from "./wire-protocol.ts";

type Listed = OpResult<"checkpoints">;

/** The task's checkpoints as the daemon keeps them. */
export async function checkpointsOf(target: Target, ref: string): Promise<Listed> {
  return withDaemon(target, (c) => c.request("checkpoints", { task: { typed: ref } }));
}

/** The `checkpoints` table: number, age, files, the prompt. */
export function checkpointsTable(listed: Listed, now = Date.now()): string {
  const { task, checkpoints, paused } = listed;
  if (listed.top === null) throw new UserError(`task ${task.id} has no checkpoints: only agents and --worktree tasks in a git repository get them`);
  const rows = [...checkpoints]
    .reverse()
    .map((c) => `${String(c.n).padStart(3)}  ${age(c.at, now).padStart(4)} ago  ${changedFiles(c).padEnd(15)}  ${printable(c.prompt)}`);
  const notice = paused ? "checkpoints are paused for this task: its disk is low on space\n" : "";
  return `${notice}${rows.join("\n")}\n`;
}

export function changedFiles(c: Checkpoint): string {
  if (c.files === null) return "the start";
  if (c.files === 0) return "no code changes";
  return c.files === 1 ? "1 file" : `${c.files} files`;
}

export interface RewindRequest {
  task: string;
  n: number;
  dryRun: boolean;
  force: boolean;
}

/**
 * Rewinds (or, with dryRun, says what a rewind would do); what to print. Throws, with nothing written,
 * when any file cannot be restored. `list` asks a daemon already connected (the web view's) instead of connecting.
 */
export async function rewindTask(request: RewindRequest, list: (ref: string) => Promise<Listed> = (ref) => checkpointsOf(HERE, ref)): Promise<string> {
  const listed = await list(request.task);
  const { task, top } = listed;
  if (top === null) throw new UserError(`task ${task.id} has no checkpoints: only agents and --worktree tasks in a git repository get them`);
  const checkpoint = listed.checkpoints.find((c) => c.n === request.n);
  if (checkpoint === undefined)
    throw new UserError(
      `task ${task.id} has no checkpoint ${request.n} (it has ${listed.checkpoints.map((c) => c.n).join(", ") || "none"}: fleetcom checkpoints ${task.id})`,
    );
  if (!request.dryRun && !request.force && isWorking(task))
    throw new UserError(`task ${task.id} is working: rewind it once it waits for you, or with --force (its files may be changing under the rewind)`);
  const plan = await planRewind(top, checkpoint).catch((e: unknown) => {
    throw new UserError(`task ${task.id} not rewound, nothing changed: ${printable(errorMessage(e))}`);
  });
  if (plan.blocked.length > 0) throw new UserError(blockedMessage(task, checkpoint, plan));
  if (request.dryRun) return describePlan(plan, `would rewind task ${task.id} to checkpoint ${checkpoint.n}`);
  // Every content read before the first write: a blob git cannot give stops the rewind here.
  const contents = await readRestores(top, plan.steps).catch((e: unknown) => {
    throw new UserError(`task ${task.id} not rewound, nothing changed: ${printable(errorMessage(e))}`);
  });
  try {
    applyRewind(top, plan.steps, contents);
  } catch (e) {
    if (e instanceof RewindFailed) throw new UserError(`task ${task.id} not rewound, its files put back: ${printable(e.message)}`);
    throw e;
  }
  return `${describePlan(plan, `rewound task ${task.id} to checkpoint ${checkpoint.n}`)}${conversationHint(task)}`;
}

/** An agent that runs and does not wait for its user is working. */
function isWorking(task: TaskInfo): boolean {
  return task.agent !== null && task.state === "running" && task.attention === null;
}

function blockedMessage(task: TaskInfo, checkpoint: Checkpoint, plan: RewindPlan): string {
  const lines = plan.blocked.map((b) => `  ${printable(b.path)}: ${b.why}`);
  return `task ${task.id} not rewound to checkpoint ${checkpoint.n}, nothing changed: ${plan.blocked.length === 1 ? "a file" : `${plan.blocked.length} files`} cannot be restored\n${lines.join("\n")}`;
}

function describePlan(plan: RewindPlan, head: string): string {
  const restored = plan.steps.filter((s) => s.kind === "restore");
  const deleted = plan.steps.filter((s) => s.kind === "delete");
  const lines = [
    `${head}: ${restored.length} restored, ${deleted.length} deleted${plan.steps.length === 0 ? " (the tree is as it was)" : ""}`,
    ...restored.map((s) => `  restore ${printable(s.path)}`),
    ...deleted.map((s) => `  delete  ${printable(s.path)}`),
    ...plan.leftAlone.map((p) => `  left as it is (too large, ignored or a submodule): ${printable(p)}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** How to rewind the conversation too: in the agent itself, never by fleetcom. */
function conversationHint(task: TaskInfo): string {
  switch (task.agent) {
    case "claude":
    case "command-code":
      return "the conversation is the agent's own: to rewind it too, type /rewind in the agent (fleetcom never edits its store)\n";
    case null:
      return "";
    default:
      return `the conversation is the agent's own: fleetcom rewinds files only and never edits its store (${task.agent} has no /rewind fleetcom knows of)\n`;
  }
}
