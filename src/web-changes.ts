// The web view's Changes (docs/web.md, docs/review.md): a task's changed files since its baseline
// with their counts, one file's diff, and review comments on lines of it sent to the agent as one
// prompt, by the same code as `fleetcom review`. git runs in this process, so on this machine only:
// another host's task is pointed to `fleetcom diff HOST:TASK`, which runs git there. What git prints
// reaches the page as text, each line through printableText, and bounded.
import type { DaemonClient } from "./client.ts";
import { baselineOf } from "./client-diff.ts";
import { type ReviewComment, reviewComments } from "./client-review.ts";
import { UserError } from "./errors.ts";
import { gitRun, repositoryTop, snapshotTree } from "./git.ts";
import { printable, printableText } from "./text-printable.ts";
import type { TaskInfo } from "./wire-protocol.ts";

/** At most this many files listed; a task that changed more says how many were left out. */
export const MAX_CHANGED_FILES = 1_000;
/** A file's diff is cut at a line after this many characters (a page, not a data transfer). */
export const MAX_DIFF_CHARS = 256 * 1024;

export interface ChangedFile {
  /** The path from the repository's top, as git names it (what a file-diff or a comment sends back). */
  path: string;
  /** The path as the page may show it. */
  shown: string;
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  deleted: number | null;
}

/** Where a task's diff is taken: its repository's top and its baseline. */
async function taskRepository(task: TaskInfo | undefined, host: string | null): Promise<{ top: string; base: string }> {
  if (host !== null) throw new UserError(`Changes shows this machine's tasks; for ${host}'s run fleetcom diff ${host}:${task?.id ?? "TASK"}`);
  if (!task) throw new UserError("no such task");
  const base = baselineOf(task);
  const top = await repositoryTop(task.cwd);
  if (top === null) throw new UserError(`task ${task.id} is not in a git repository (${printable(task.cwd)})`);
  return { top, base };
}

/** The files the task changed since its baseline, with their counts, and how many more there were. */
export async function changedFiles(task: TaskInfo | undefined, host: string | null): Promise<{ files: ChangedFile[]; more: number }> {
  const { top, base } = await taskRepository(task, host);
  const now = await snapshotTree(top);
  const r = await gitRun(top, ["diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", `${base}^{tree}`, now]);
  if (r.code !== 0) throw new UserError(`git diff failed: ${printable(r.err)}`);
  const files = numstatFiles(r.out);
  return { files: files.slice(0, MAX_CHANGED_FILES), more: Math.max(0, files.length - MAX_CHANGED_FILES) };
}

/** `git diff --numstat -z --no-renames` read file by file: `ADDED\tDELETED\tPATH\0`, `-\t-` for a binary file. */
export function numstatFiles(output: string): ChangedFile[] {
  const files: ChangedFile[] = [];
  for (const record of output.split("\0")) {
    const match = /^(\d+|-)\t(\d+|-)\t(.+)$/s.exec(record.replace(/^\n/, ""));
    if (!match) continue;
    const path = match[3]!;
    files.push({ path, shown: printable(path), added: match[1] === "-" ? null : Number(match[1]), deleted: match[2] === "-" ? null : Number(match[2]) });
  }
  return files;
}

/** One file's diff since the baseline, as text for the page, cut at a line past MAX_DIFF_CHARS. */
export async function fileDiff(task: TaskInfo | undefined, host: string | null, path: string): Promise<{ text: string; cut: boolean }> {
  const { top, base } = await taskRepository(task, host);
  const now = await snapshotTree(top);
  const r = await gitRun(top, ["diff", "--no-ext-diff", "--no-color", "--no-renames", `${base}^{tree}`, now, "--", `:(literal)${path}`]);
  if (r.code !== 0) throw new UserError(`git diff failed: ${printable(r.err)}`);
  const text = printableText(r.out.replace(/\n$/, ""));
  if (text.length <= MAX_DIFF_CHARS) return { text, cut: false };
  const end = text.lastIndexOf("\n", MAX_DIFF_CHARS);
  return { text: text.slice(0, end > 0 ? end : MAX_DIFF_CHARS), cut: true };
}

/** The comments as one review prompt, pasted into the agent as one message and submitted (as `fleetcom review` does). */
export async function sendComments(client: DaemonClient, task: TaskInfo | undefined, host: string | null, comments: readonly ReviewComment[]): Promise<void> {
  const { top, base } = await taskRepository(task, host);
  const prompt = await reviewComments(top, base, comments);
  await client.request("send", { task: { id: task!.id }, text: prompt, enter: true, paste: true });
}
