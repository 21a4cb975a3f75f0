// `fleetcom notify test`: a sample to every destination of `notify` (docs/notify.md), through the
// daemon, which owns the destinations and their state: what it answers is what `status` then shows.
// Each destination is tried once, so the answer comes within the request timeout; any failure exits 1.
// `fleetcom notify off|on TASK…|-g G`: whether those tasks' news is pushed at all; a saved recipe
// keeps `"notify": false`.
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { UserError, usageError } from "./errors.ts";
import { printable } from "./text-printable.ts";

const test = defineCommand({
  meta: { name: "test", description: "Send a sample notice to every destination of notify and print what each answered" },
  async run(context) {
    const results = await withDaemon(targetIn(context), (c) => c.request("notifyTest", {}));
    if (results.length === 0) throw new UserError("notify has no destinations: nothing sent (fleetcom config shows where notify comes from)");
    for (const r of results) console.log(`${r.ok ? "ok    " : "FAILED"}  ${printable(r.destination)}  ${printable(r.detail)}`);
    const failed = results.filter((r) => !r.ok).length;
    if (failed) throw new UserError(`${failed} of ${results.length} destination(s) failed`);
  },
});

/** `notify off` and `notify on`: one definition, the word deciding. */
function switchTo(on: boolean) {
  const word = on ? "on" : "off";
  return defineCommand({
    meta: { name: word, description: on ? "Push these tasks' news again" : "Push nothing about these tasks (waits, ends) until notify on" },
    args: {
      task: { type: "positional", valueHint: "TASK…", description: "Tasks: ids, exact names or commands, or unique prefixes", required: false },
      group: { type: "string", alias: "g", valueHint: "G", description: "Every task of group G" },
    },
    async run(context) {
      const { args } = context;
      const target = targetIn(context);
      const named = args._.map(String);
      if ((named.length === 0) === (args.group === undefined)) throw usageError(`notify ${word}: name tasks or a group (-g G), not both`);
      const request = args.group !== undefined ? { group: args.group, on } : { tasks: named.map((typed) => ({ typed })), on };
      const { tasks } = await withDaemon(target, (c) => c.request("setNotify", request));
      console.log(`notify ${word}: ${tasks.join(", ")}`);
    },
  });
}

export default defineCommand({
  facts: { remote: "transport" },
  meta: { name: "notify", description: "Check notify's destinations (commands, ntfy topics, webhooks); turn a task's pushes off or on" },
  subCommands: { test: async () => test, off: async () => switchTo(false), on: async () => switchTo(true) },
});
