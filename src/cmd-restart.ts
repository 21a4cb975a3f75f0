// `fleetcom restart TASK…|-g G|--all`: stop each task as `kill` does (so no restart policy starts it
// on its own), then run it again in place: same id, name, group, tag and worktree, an agent in its
// resume form, the history kept above the new run (docs/services.md). Running and finished tasks
// alike. More than one task is asked about first from a terminal, since each loses what it was doing.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { selection, someLabels, tasksOf, whereFrom } from "./client-select.ts";
import { withDaemon } from "./client.ts";
import { count, escapeReport } from "./ui-format.ts";
import type { TaskRef } from "./wire-protocol.ts";

export default defineCommand({
  facts: { tasks: "all", remote: "transport", plain: true },
  meta: { name: "restart", description: "Stop tasks as kill does, then run them again in place, their history kept" },
  args: {
    task: { type: "positional", valueHint: "TASK…", description: "One or more tasks: ids, exact names or commands, or unique prefixes", required: false },
    group: { type: "string", alias: "g", valueHint: "G", description: "Every task of group G, running or finished" },
    all: { type: "boolean", description: "Every task, running or finished" },
    yes: { type: "boolean", alias: "y", description: "Do not ask (asked on a terminal for more than one task)" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const chosen = selection("restart", args);
    const picked = "named" in chosen ? null : tasksOf(await withDaemon(target, (c) => c.request("ls")), chosen);
    const where = "named" in chosen ? "" : whereFrom(chosen);
    const refs: TaskRef[] = "named" in chosen ? chosen.named.map((typed) => ({ typed })) : picked!.map((t) => ({ id: t.id }));
    if (refs.length === 0) return void console.log(`no task${where}`);
    const names = "named" in chosen ? chosen.named.join(", ") : someLabels(picked!);
    if (refs.length > 1 && !(await askFirst(`restart ${count(refs.length, "task")}${where} (${names})?`, Boolean(args.yes)))) {
      console.log("nothing restarted");
      process.exitCode = 1;
      return;
    }
    const reply = await withDaemon(target, (c) => c.request("restart", { tasks: refs }));
    const ids = reply.tasks.map((t) => t.id);
    for (const line of escapeReport("restarted", ids, reply.escaped)) console.log(line);
    for (const t of reply.tasks) if (t.notice) console.log(`task ${t.id}: ${t.notice}`);
    if (!("named" in chosen)) console.log(`restarted ${count(ids.length, "task")}${where}`);
  },
});

async function askFirst(question: string, yes: boolean): Promise<boolean> {
  const { confirmed } = await import("./ui-confirm.ts");
  return confirmed(question, yes);
}
