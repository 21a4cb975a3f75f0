// `fleetcom kill TASK…|-g G|--all`: TERM each task's process group, KILL after 2 s, and answer once
// the tasks have ended (so `kill api && fleetcom rerun api` is a restart). Processes that left the
// group on their own (a daemon such as `codex app-server`) are out of its reach; the daemon lists
// them and they are printed, never signalled (docs/daemon.md). A group or the whole fleet is asked
// about first from a terminal, as the dashboard's X asks; the TASKs a user names are not.
import { type Target, targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { selection, someLabels, tasksOf, whereFrom } from "./client-select.ts";
import { withDaemon } from "./client.ts";
import { count, escapeReport } from "./ui-format.ts";
import type { TaskRef } from "./wire-protocol.ts";

export default defineCommand({
  facts: { tasks: "all", remote: "transport", plain: true },
  meta: { name: "kill", description: "TERM the task's process group, KILL after 2 s" },
  args: {
    task: { type: "positional", valueHint: "TASK…", description: "One or more tasks: ids, exact names or commands, or unique prefixes", required: false },
    group: { type: "string", alias: "g", valueHint: "G", description: "Every running task of group G (asks first on a terminal)" },
    all: { type: "boolean", description: "Every running task (asks first on a terminal)" },
    yes: { type: "boolean", alias: "y", description: "Do not ask" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const chosen = selection("kill", args);
    if ("named" in chosen)
      return void (await kill(
        target,
        chosen.named.map((typed) => ({ typed })),
      ));
    const running = tasksOf(await withDaemon(target, (c) => c.request("ls")), chosen).filter((t) => t.state === "running");
    const where = whereFrom(chosen);
    if (running.length === 0) return void console.log(`no running task${where}`);
    const { confirmed } = await import("./ui-confirm.ts");
    const names = someLabels(running);
    if (!(await confirmed(`kill ${count(running.length, "running task")}${where} (${names})?`, Boolean(args.yes)))) {
      console.log("nothing killed");
      process.exitCode = 1;
      return;
    }
    const killed = await kill(
      target,
      running.map((t) => ({ id: t.id })),
    );
    console.log(`killed ${count(killed, "task")}${where}`);
  },
});

/** Kills them, prints what escaped, and says how many there were. */
async function kill(target: Target, tasks: TaskRef[]): Promise<number> {
  const reply = await withDaemon(target, (c) => c.request("kill", { tasks }));
  for (const line of escapeReport("killed", reply.killed, reply.escaped)) console.log(line);
  return reply.killed.length;
}
