// scale: many idle tasks. One `load` of a recipe of N `sleep 3600` commands against one `tmux
// source-file` of N `new-session`: seconds until all N run, `ls --json` against `tmux ls`, and what
// each task adds to the daemon's resident memory.
//
// At 500 both servers stand side by side and the ls samples alternate. At 2,000 they take turns:
// the two fleets at once would hold 4,000 PTYs, about what a Linux machine allows
// (/proc/sys/kernel/pty/max, 4,096 by default, shared with everyone else on it), so fleetcom's
// figures are taken and its daemon stopped before tmux starts its fleet. Before each fleet the
// machine's limits are checked, and a limit that would stop it is named in the line.
import { readFileSync } from "node:fs";
import {
  alternate,
  compareLine,
  daemonPid,
  makeSandbox,
  median,
  procStatusKb,
  processCpuMs,
  reportLine,
  runCommand,
  type Sandbox,
  sleep,
  timeCommand,
  versusLine,
  writeSameFleet,
} from "./common.ts";

const LS_RUNS = 10;
/** Tasks given their first input, then a second, for scale-first-input-cpu. */
const INPUT_SAMPLES = 20;
const COMMAND = "sleep 3600";
/** Descriptors the daemon holds per task (the PTY's master and its dups, the terminal's side, a pidfd), rounded up. */
const FDS_PER_TASK = 6;
/** Besides the fleets: the bench's own clients, and what other users of the machine hold meanwhile. */
const PTY_MARGIN = 50;
/** How long a fleet waits for the PTYs it needs to come free (a stopped fleet's, someone else's) before it is given up. */
const PTY_WAIT_MS = 30_000;

export async function run(): Promise<string[]> {
  const lines = await sideBySide(500);
  try {
    lines.push(...(await inTurns(2_000)));
  } catch (error) {
    // The 500 lines stand; a limit of the machine's (checkLimits) says which.
    lines.push(`scale-2000  failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return lines;
}

const seconds = (v: number) => `${(v / 1000).toFixed(2)}s`;
const megabytes = (v: number) => `${v.toFixed(2)}MB`;

async function sideBySide(tasks: number): Promise<string[]> {
  await checkLimits(tasks, 2 * tasks);
  const sandbox = makeSandbox(`scale-${tasks}`);
  const { env, fleetcom, tmux } = sandbox;
  const { recipe, script } = writeSameFleet(sandbox.root, "scale", tasks, COMMAND);
  // Both servers are up and idle before the clock starts: this measures starting tasks, not servers.
  await fleetcom.run("ls");
  const memory = rssPerTask(sandbox, tasks);
  await tmux.start();
  const fleetStart = await startFleetcom(sandbox, recipe, tasks);
  const tmuxStart = await startTmux(sandbox, script, tasks);
  const perTaskMb = memory();
  const ls = await alternate(
    LS_RUNS,
    () => timeCommand(fleetcom.argv("ls", "--json"), env),
    () => timeCommand(tmux.argv("ls"), env),
  );
  // Their PTYs go back to the machine before the next fleet asks for its own.
  fleetcom.killDaemon();
  tmux.killServer();
  return [
    compareLine(`scale-start-${tasks}`, fleetStart, tmuxStart, seconds),
    compareLine(`scale-ls-${tasks}`, median(ls.fleetcom), median(ls.tmux)),
    reportLine("scale-rss-per-task", perTaskMb, megabytes),
  ];
}

async function inTurns(tasks: number): Promise<string[]> {
  await checkLimits(tasks, tasks);
  const sandbox = makeSandbox(`scale-${tasks}`);
  const { env, fleetcom, tmux } = sandbox;
  const { recipe, script } = writeSameFleet(sandbox.root, "scale", tasks, COMMAND);

  await fleetcom.run("ls");
  const memory = rssPerTask(sandbox, tasks);
  const fleetStart = await startFleetcom(sandbox, recipe, tasks);
  const perTaskMb = memory();
  const fleetLs = await samples(() => timeCommand(fleetcom.argv("ls", "--json"), env));
  const input = await firstInputCpu(sandbox, tasks);
  fleetcom.killDaemon();

  await checkLimits(tasks, tasks);
  await tmux.start();
  const tmuxStart = await startTmux(sandbox, script, tasks);
  const tmuxLs = await samples(() => timeCommand(tmux.argv("ls"), env));
  tmux.killServer();
  return [
    compareLine(`scale-start-${tasks}`, fleetStart, tmuxStart, seconds),
    compareLine(`scale-ls-${tasks}`, median(fleetLs), median(tmuxLs)),
    reportLine(`scale-rss-per-task-${tasks}`, perTaskMb, megabytes),
    versusLine(`scale-first-input-cpu-${tasks}`, input.first, "again", input.again),
  ];
}

/**
 * The daemon's CPU per `send` to a task that has had no input yet, against a second `send` to the
 * same tasks: the first finds the task's PTY master among the daemon's descriptors (term-pty.ts).
 */
async function firstInputCpu(sandbox: Sandbox, tasks: number): Promise<{ first: number; again: number }> {
  const { fleetcom } = sandbox;
  const daemon = daemonPid(sandbox);
  const ids = Array.from({ length: INPUT_SAMPLES }, (_, i) => String(Math.floor(tasks / 2) + i));
  const cpuOfSends = async () => {
    const before = processCpuMs(daemon);
    for (const id of ids) await fleetcom.run("send", id, "x");
    return (processCpuMs(daemon) - before) / ids.length;
  };
  const first = await cpuOfSends();
  return { first, again: await cpuOfSends() };
}

/** From now, a function that gives the daemon's resident memory added since, per task, in MB. */
function rssPerTask(sandbox: Sandbox, tasks: number): () => number {
  const daemon = daemonPid(sandbox);
  const baseline = procStatusKb(daemon, "VmRSS");
  return () => (procStatusKb(daemon, "VmRSS") - baseline) / tasks / 1024;
}

async function startFleetcom({ env, fleetcom }: Sandbox, recipe: string, tasks: number): Promise<number> {
  return timeUntilRunning(fleetcom.argv("load", recipe), env, tasks, async () => {
    const listed = JSON.parse(await fleetcom.run("ls", "--json")) as { state: string }[];
    return listed.filter((t) => t.state === "running").length;
  });
}

async function startTmux({ env, tmux }: Sandbox, script: string, tasks: number): Promise<number> {
  return timeUntilRunning(tmux.argv("source-file", script), env, tasks, async () => {
    // `keep`, the session that holds the server up, is not one of the fleet.
    return (await tmux.run("ls", "-F", "#{session_name}")).split("\n").filter((n) => /^t\d+$/.test(n)).length;
  });
}

async function samples(measure: () => Promise<number>): Promise<number[]> {
  const taken: number[] = [];
  for (let i = 0; i < LS_RUNS; i++) taken.push(await measure());
  return taken;
}

/** From running `argv` until `running()` counts all `tasks`, in ms; each count is itself a client call. */
async function timeUntilRunning(argv: string[], env: Record<string, string>, tasks: number, running: () => Promise<number>): Promise<number> {
  const started = performance.now();
  await runCommand(argv, env);
  while ((await running()) < tasks) {
    if (performance.now() - started > 240_000) throw new Error(`not all ${tasks} tasks running after 240 s`);
  }
  return performance.now() - started;
}

/**
 * Throws, naming the limit, when this machine cannot hold `ptys` more PTYs (the kernel's count, for
 * every user) or a daemon cannot open a descriptor for each of `tasks` (the hard limit the daemon
 * may raise its own to). PTYs a fleet just stopped take a moment to close, so they are waited for.
 */
async function checkLimits(tasks: number, ptys: number): Promise<void> {
  const ptyMax = readNumber("/proc/sys/kernel/pty/max");
  const free = () => (ptyMax ?? Number.POSITIVE_INFINITY) - (readNumber("/proc/sys/kernel/pty/nr") ?? 0);
  const deadline = performance.now() + PTY_WAIT_MS;
  while (free() < ptys + PTY_MARGIN && performance.now() < deadline) await sleep(200);
  if (free() < ptys + PTY_MARGIN)
    throw new Error(
      `limit: ${ptys} PTYs needed at once for ${tasks} tasks, but /proc/sys/kernel/pty/max is ${ptyMax} with ${ptyMax! - free()} in use (raise it: sysctl kernel.pty.max)`,
    );
  const hard = descriptorHardLimit();
  if (hard !== null && hard < FDS_PER_TASK * tasks + 100)
    throw new Error(`limit: ${tasks} tasks need about ${FDS_PER_TASK * tasks} descriptors in the daemon, but the hard limit is ${hard} (ulimit -Hn)`);
}

function readNumber(file: string): number | null {
  try {
    const value = Number(readFileSync(file, "utf8").trim());
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** RLIMIT_NOFILE's hard limit, from /proc/self/limits ("Max open files  soft  hard  files"). */
function descriptorHardLimit(): number | null {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const hard = line?.trim().split(/\s+/)[4];
    return hard === "unlimited" ? Number.POSITIVE_INFINITY : hard ? Number(hard) : null;
  } catch {
    return null;
  }
}
