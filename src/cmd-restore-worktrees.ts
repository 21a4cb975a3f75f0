// `fleetcom restore-worktrees -- REPO BRANCH PATH …` (hidden): what a load on another machine runs
// here over ssh before it sends that host's entries (client-recipes.ts startOnHost). A recipe's
// worktrees are made again by a client on the machine that has the repository, as a local load
// does (client-worktree.ts restoreWorktrees); this prints one line per worktree made or not.
import { defineCommand } from "./kit-define.ts";
import { restoreWorktrees } from "./client-worktree.ts";
import { EXIT, UserError } from "./errors.ts";
import type { WorktreeRecord } from "./recipe.ts";

export default defineCommand({
  meta: { name: "restore-worktrees", description: "Make a recipe's missing worktrees again (what a load from another host runs here)", hidden: true },
  args: {},
  run({ rawArgs }) {
    const words = rawArgs.slice(rawArgs.indexOf("--") + 1);
    if (!rawArgs.includes("--") || words.length === 0 || words.length % 3 !== 0 || words.some((w) => w === ""))
      throw new UserError("restore-worktrees: give -- REPO BRANCH PATH, once per worktree", EXIT.usage);
    const worktrees: WorktreeRecord[] = [];
    for (let i = 0; i < words.length; i += 3) worktrees.push({ repo: words[i]!, branch: words[i + 1]!, path: words[i + 2]! });
    for (const line of restoreWorktrees(worktrees)) console.log(line);
  },
});
