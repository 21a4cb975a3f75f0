// `fleetcom notify test`: a sample to every destination of `notify` (docs/notify.md), through the
// daemon, which owns the destinations and their state: what it answers is what `status` then shows.
// Each destination is tried once, so the answer comes within the request timeout; any failure exits 1.
import { defineCommand } from "citty";
import { withDaemon } from "./client.ts";
import { UserError } from "./errors.ts";
import { printable } from "./text-printable.ts";

const test = defineCommand({
  meta: { name: "test", description: "Send a sample notice to every destination of notify and print what each answered" },
  async run() {
    const results = await withDaemon((c) => c.request("notifyTest", {}));
    if (results.length === 0) throw new UserError("notify has no destinations: nothing sent (fleetcom config shows where notify comes from)");
    for (const r of results) console.log(`${r.ok ? "ok    " : "FAILED"}  ${printable(r.destination)}  ${printable(r.detail)}`);
    const failed = results.filter((r) => !r.ok).length;
    if (failed) throw new UserError(`${failed} of ${results.length} destination(s) failed`);
  },
});

export default defineCommand({
  meta: { name: "notify", description: "Check notify's destinations (commands, ntfy topics, webhooks)" },
  subCommands: { test: async () => test },
});
