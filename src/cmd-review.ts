// `fleetcom review TASK FILE:LINE[-LINE] TEXT…`: a comment on the task's diff, sent to its agent as one prompt.
import { defineCommand } from "./kit-define.ts";
import { sendReview } from "./client-review.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "there" },
  meta: { name: "review", description: "Send the agent a review comment: FILE:LINE[-LINE] of its diff, fenced, then TEXT, as one submitted prompt" },
  args: {
    task: { type: "positional", valueHint: "TASK", description: "The agent's task whose diff the comment is on", required: true },
    where: { type: "positional", description: "FILE:LINE or FILE:LINE-LINE (the file from the repository's top)", required: true },
    text: { type: "positional", valueHint: "TEXT…", description: "The comment, sent to the agent after the lines it is about", required: true },
  },
  async run({ args }) {
    await sendReview(args.task, args.where, args._.slice(2).join(" "));
  },
});
