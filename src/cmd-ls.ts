// `fleetcom ls`: the fleet as a table (with --verbose, the command that runs as well as the one typed),
// or as the documented JSON array. With hosts added (docs/remote.md), every host's fleet after this
// machine's, a HOST column, `"host"` in each JSON row; a host that does not answer within
// its bound (2.5 s) costs no more than that: it is named on stderr and the others print.
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { hostsMayBeAdded, type Target, targetIn } from "./client-target.ts";
import type { HostedTask } from "./client-hosts.ts";
import type { TaskInfo } from "./wire-protocol.ts";
import type { DaemonClient } from "./client.ts";

type Format = typeof import("./ui-format.ts");

export default defineCommand({
  facts: { remote: "transport", plain: true },
  meta: { name: "ls", description: "List tasks" },
  args: {
    json: { type: "boolean", description: "Print a JSON array, one object per task" },
    verbose: {
      type: "boolean",
      alias: "v",
      description: "Add the COMMAND that runs (an agent's resume form) beside the TASK as typed, and each task's THREADS and PROCS",
    },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    // The table's code loads while the daemon answers, not before the request goes.
    let format: Promise<Format> | undefined;
    const ls = (c: DaemonClient) => {
      const answer = c.request("ls", { resources: true });
      format ??= import("./ui-format.ts");
      return answer;
    };
    const tasks = target.kind === "host" ? hosted(await withDaemon(target, ls), target.host.name) : await everyFleet(target, ls);
    const hostOf = tasks === null ? undefined : (t: TaskInfo) => (t as HostedTask).host ?? "-";
    const rows = tasks ?? (await withDaemon(target, ls));
    const { lsTable, terminalColumns, writeStdout } = await (format ?? import("./ui-format.ts"));
    const table = () => lsTable(rows, process.env.HOME, Date.now(), terminalColumns(), Boolean(args.verbose), hostOf);
    writeStdout(args.json ? `${JSON.stringify(rows.map(withWaitingSince), null, 2)}\n` : table());
  },
});

/** `waitingSince`: when the task's current wait began (its attention was raised), null while it does not wait. */
function withWaitingSince(task: TaskInfo): TaskInfo & { waitingSince: string | null } {
  return { ...task, waitingSince: task.attention?.since ?? null };
}

function hosted(tasks: TaskInfo[], host: string | null): HostedTask[] {
  return tasks.map((t) => ({ ...t, host }));
}

/** This machine's fleet, then each added host's; null when no host is added (the plain listing). */
async function everyFleet(target: Target, ls: (c: DaemonClient) => Promise<TaskInfo[]>): Promise<HostedTask[] | null> {
  if (!hostsMayBeAdded()) return null;
  const { everyFleet: fleets } = await import("./client-hosts.ts");
  return fleets(() => withDaemon(target, ls), { resources: true });
}
