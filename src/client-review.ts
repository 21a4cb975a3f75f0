// `fleetcom review TASK FILE:LINE[-LINE] TEXT`: a review comment sent to the agent as one prompt
// (docs/review.md): the file and lines, that part of the task's diff since its baseline as a fenced
// block (or, for lines it did not change, the lines as they are), then the comment; pasted as one
// message and submitted, as `send --paste` does.
import { HERE } from "./client-target.ts";
import { withDaemon } from "./client.ts";
import { baselineOf, taskInRepository } from "./client-diff.ts";
import { UserError, usageError } from "./errors.ts";
import { gitRun, snapshotTree } from "./git.ts";
import { diffExcerpt, parseFileLines, reviewPrompt } from "./text-review.ts";
import { printable } from "./text-printable.ts";

/** Sends the prompt; the task's id. */
export async function sendReview(ref: string, where: string, comment: string): Promise<number> {
  const lines = parseFileLines(where);
  if (lines === null) throw usageError(`review: '${printable(where)}' is not FILE:LINE or FILE:LINE-LINE (lines from 1)`);
  if (comment.trim() === "") throw usageError("review: give the comment's TEXT");
  const { task, top } = await taskInRepository(ref);
  const prompt = await reviewComments(top, baselineOf(task), [{ ...lines, text: comment }]);
  await withDaemon(HERE, (c) => c.request("send", { task: { typed: String(task.id) }, text: prompt, enter: true, paste: true }));
  return task.id;
}

/** A comment on lines `from`-`to` (from 1) of `file` (a path from the repository's top). */
export interface ReviewComment {
  file: string;
  from: number;
  to: number;
  text: string;
}

/**
 * The one prompt for `comments` on the task's diff since `base` (its baseline): each comment's
 * part (where, the excerpt fenced, the comment) in order, a blank line between. The CLI sends one
 * comment, the web view several.
 */
export async function reviewComments(top: string, base: string, comments: readonly ReviewComment[]): Promise<string> {
  const now = await snapshotTree(top);
  const parts: string[] = [];
  for (const comment of comments) {
    const patch = await gitRun(top, ["diff", "--no-ext-diff", "--no-color", "--no-renames", `${base}^{tree}`, now, "--", comment.file]);
    if (patch.code !== 0) throw new UserError(`review: git diff failed: ${printable(patch.err)}`);
    const excerpt = diffExcerpt(patch.out, comment.from, comment.to);
    parts.push(
      excerpt !== ""
        ? reviewPrompt(comment.file, comment.from, comment.to, excerpt, comment.text, "diff")
        : reviewPrompt(comment.file, comment.from, comment.to, await linesAsTheyAre(top, now, comment), comment.text, "text"),
    );
  }
  return parts.join("\n\n");
}

/** Lines the task did not change, from the tree as it is now. */
async function linesAsTheyAre(top: string, tree: string, { file, from, to }: { file: string; from: number; to: number }): Promise<string> {
  const shown = await gitRun(top, ["show", `${tree}:${file}`]);
  if (shown.code !== 0) throw new UserError(`review: ${printable(file)} is not in the task's tree (a path from the top of ${printable(top)})`);
  const all = shown.out.split("\n");
  if (from > all.length) throw new UserError(`review: ${printable(file)} has ${all.length} lines, not ${from}`);
  return all.slice(from - 1, to).join("\n");
}
