import { alternate, compareLine, daemonPid, makeSandbox, median, procStatusKb, reportLine, runCommand, timeCommand, writeSameFleet } from "./common.ts";

const TASKS = 500;
const LS_RUNS = 10;
const COMMAND = "sleep 3600";

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("scale");
  const { root, env, fleetcom, tmux } = sandbox;
  const { recipe, script } = writeSameFleet(root, "scale", TASKS, COMMAND);

  // Both servers are up and idle before the clock starts: this measures starting tasks, not servers.
  await fleetcom.run("ls");
  const daemon = daemonPid(sandbox);
  const baseline = procStatusKb(daemon, "VmRSS");
  await tmux.start();

  const fleetStart = await timeUntilRunning(fleetcom.argv("load", recipe), env, async () => {
    const tasks = JSON.parse(await fleetcom.run("ls", "--json")) as { state: string }[];
    return tasks.filter((t) => t.state === "running").length;
  });
  const tmuxStart = await timeUntilRunning(tmux.argv("source-file", script), env, async () => {
    // `keep`, started above, is not one of the 500.
    return (await tmux.run("ls", "-F", "#{session_name}")).split("\n").filter((n) => /^t\d+$/.test(n)).length;
  });
  const perTaskMb = (procStatusKb(daemon, "VmRSS") - baseline) / TASKS / 1024;

  const ls = await alternate(
    LS_RUNS,
    () => timeCommand(fleetcom.argv("ls", "--json"), env),
    () => timeCommand(tmux.argv("ls"), env),
  );
  const seconds = (v: number) => `${(v / 1000).toFixed(2)}s`;
  return [
    compareLine("scale-start-500", fleetStart, tmuxStart, seconds),
    compareLine("scale-ls-500", median(ls.fleetcom), median(ls.tmux)),
    reportLine("scale-rss-per-task", perTaskMb, (v) => `${v.toFixed(2)}MB`),
  ];
}

/** From running `argv` until `running()` counts all TASKS, in ms; each count is itself a client call. */
async function timeUntilRunning(argv: string[], env: Record<string, string>, running: () => Promise<number>): Promise<number> {
  const started = performance.now();
  await runCommand(argv, env);
  while ((await running()) < TASKS) {
    if (performance.now() - started > 120_000) throw new Error(`not all ${TASKS} tasks running after 120 s`);
  }
  return performance.now() - started;
}
