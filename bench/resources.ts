// resources: what sampling each task's CPU and memory costs the daemon (issue 43, target ≤ 1 % of
// one core for 100 tasks). One daemon with 100 tasks (`sleep`, each its shell and its sleep), its CPU
// time (its CPU clock, common.ts processCpuMs) over a window while no client shows the figures and
// over as long a window while one subscriber that asked for them is connected (sampled every 2 s),
// alternately; the line is the difference, as a percent of one core. Linux only (/proc).
import { makeSandbox, median, openDaemonClient, processCpuMs, reportLine, sleep, writeSameFleet, daemonPid } from "./common.ts";

const TASKS = 100;
const COMMAND = "sleep 3600";
const WINDOW_MS = 10_000;
const ROUNDS = 2;

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("resources");
  const { root, fleetcom } = sandbox;
  const { recipe } = writeSameFleet(root, "resources", TASKS, COMMAND);
  await fleetcom.run("load", recipe);
  const pid = daemonPid(sandbox);
  const share = async (during: () => Promise<unknown>) => {
    const before = processCpuMs(pid);
    await during();
    return ((processCpuMs(pid) - before) / WINDOW_MS) * 100;
  };
  const idle: number[] = [];
  const watched: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    idle.push(await share(() => sleep(WINDOW_MS)));
    const client = await openDaemonClient(sandbox);
    await client.subscribe(() => {}, { resources: true });
    watched.push(await share(() => sleep(WINDOW_MS)));
    client.close();
  }
  const { resources } = JSON.parse(await fleetcom.run("status", "--json")) as { resources: { samples: number } };
  process.stderr.write(`daemon CPU: idle ${median(idle).toFixed(2)}%, sampling ${median(watched).toFixed(2)}% of one core; ${resources.samples} samples\n`);
  return [reportLine(`sample-${TASKS}-tasks-cpu`, median(watched) - median(idle), (v) => `${v.toFixed(2)}%`)];
}
