// clients: the resident memory of the long-lived clients, each in a real PTY (120x40) against a
// daemon with 10 `sleep 3600` tasks, after the same settling time as rss-idle (3 s).
//
// rss-dashboard: `fleetcom` (the dashboard) listing the 10 tasks. rss-attach: `fleetcom attach` to
// one of them. Each beside the floor (bench/floor/socket.ts, compiled like fleetcom): a Bun program
// that holds one greeted socket to the same daemon and nothing else. Target: each client ≤ 35 MB.
// rss-dashboard-private, rss-attach-private: what each holds that no other process shares (report).
import { readFileSync } from "node:fs";
import { compileFloor, makeSandbox, onCleanup, PtyClient, procStatusKb, reportLine, sleep, versusLine } from "./common.ts";

const TASKS = 10;
const SETTLE_MS = 3_000;

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("clients");
  const { root, env, fleetcom } = sandbox;
  const floorBinary = compileFloor("socket", root);
  const ids: string[] = [];
  for (let i = 1; i <= TASKS; i++) ids.push(await fleetcom.start("sleep 3600"));

  const dashboard = new PtyClient(fleetcom.argv(), env);
  await dashboard.waitFor(`${TASKS} tasks`, 30_000);
  const attach = new PtyClient(fleetcom.argv("attach", ids[0]!), env);
  await poll(() => attach.received > 0);
  const floor = await startFloor(floorBinary, env);
  await sleep(SETTLE_MS);

  const mb = (kb: number) => `${(kb / 1024).toFixed(1)}MB`;
  if (process.env.RSS_HOLD) {
    console.error(dashboard.proc.pid, attach.proc.pid, floor);
    await sleep(Number(process.env.RSS_HOLD));
  }
  const floorKb = procStatusKb(floor, "VmRSS");
  return [
    versusLine("rss-dashboard", procStatusKb(dashboard.proc.pid, "VmRSS"), "floor", floorKb, mb),
    versusLine("rss-attach", procStatusKb(attach.proc.pid, "VmRSS"), "floor", floorKb, mb),
    reportLine("rss-dashboard-private", privateKb(dashboard.proc.pid), mb),
    reportLine("rss-attach-private", privateKb(attach.proc.pid), mb),
  ];
}

/**
 * What the process alone holds (smaps_rollup's Private_Clean + Private_Dirty): the binary's pages it
 * shares with the daemon and every other client are left out, so this is what one more client costs.
 */
function privateKb(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const field = (name: string) => Number(rollup.match(new RegExp(`^${name}:\\s+(\\d+)`, "m"))?.[1] ?? Number.NaN);
  return field("Private_Clean") + field("Private_Dirty");
}

async function poll(ready: () => boolean): Promise<void> {
  for (let waited = 0; !ready(); waited += 10) {
    if (waited > 30_000) throw new Error("the client drew nothing");
    await sleep(10);
  }
}

/** Starts the floor and waits until the daemon has greeted it; returns its pid. */
async function startFloor(binary: string, env: Record<string, string>): Promise<number> {
  const proc = Bun.spawn([binary], { env, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  onCleanup(() => proc.kill("SIGKILL"));
  const reader = proc.stdout.getReader();
  let said = "";
  while (!said.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the socket floor exited before the daemon greeted it");
    said += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return proc.pid;
}
