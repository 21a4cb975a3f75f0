// cli: what a whole client command costs, start-up included, as a user's shell sees it.
// `fleetcom ls` against a daemon with 10 tasks vs `tmux ls` against a server with 10 sessions
// (target: at most 2.5× tmux), and the floors under it: `fleetcom --version` vs `tmux -V` (the
// compiled binary starting and printing, nothing imported), and cli-ls-floor, a compiled Bun program
// that only connects to the same daemon, asks for ls and prints the count (bench/floor/ls.ts), and
// `fleetcom ls` against that floor in turns (cli-ls-over-floor; target ≤ 1.15, issue 46). cli-ls-terminal:
// `fleetcom ls` and `tmux ls` each in a terminal of its own (a PTY), as a user types them (report).
//
// Then the commands that read recipes and settings without a daemon (cmd-*: CPU time, user + sys,
// of the whole process, each against `fleetcom --version` in the same rounds; target ≤ 2×), and the
// cold start: no daemon, `fleetcom ls` starts one and prints (wall time, against `--version`;
// target ≤ 4×), with the CPU time that daemon had used when the ls returned (target ≤ 0.15 s).
import { join } from "node:path";
import {
  alternate,
  compareLine,
  compileFloor,
  cpuCommand,
  daemonPid,
  floorLine,
  makeSandbox,
  median,
  poll,
  processCpuMs,
  processGone,
  reportLine,
  type Sandbox,
  timeCommand,
  timeInTerminal,
  versusLine,
} from "./common.ts";
import { existsSync, readdirSync } from "node:fs";

const TASKS = 10;
const RUNS = 30;
const WARMUP = 3;
const COLD_RUNS = 10;

export async function run(): Promise<string[]> {
  return [...(await lsAndFloors()), ...(await commandsWithoutDaemon()), ...(await coldStart())];
}

async function lsAndFloors(): Promise<string[]> {
  const { root, fleetcom, tmux } = makeSandbox("cli");
  const floor = compileFloor("ls", root);
  for (let i = 1; i <= TASKS; i++) await fleetcom.start("sleep 3600");
  await tmux.start("s1", "sleep 3600");
  for (let i = 2; i <= TASKS; i++) await tmux.newSession(`s${i}`, "sleep 3600");
  const ls = await timeBoth(fleetcom.argv("ls"), tmux.argv("ls"), fleetcom.env);
  const version = await timeBoth(fleetcom.argv("--version"), tmux.argv("-V"), fleetcom.env);
  const floorLs = await timeBoth([floor], tmux.argv("ls"), fleetcom.env);
  // The issue-46 target, ls against its floor, taken in turns like every other pair.
  const overFloor = await timeBoth(fleetcom.argv("ls"), [floor], fleetcom.env);
  const inTerminal = await timeBoth(fleetcom.argv("ls"), tmux.argv("ls"), fleetcom.env, timeInTerminal);
  return [
    compareLine("cli-ls", median(ls.fleetcom), median(ls.tmux)),
    compareLine("cli-ls-terminal", median(inTerminal.fleetcom), median(inTerminal.tmux)),
    compareLine("cli-version", median(version.fleetcom), median(version.tmux)),
    compareLine("cli-ls-floor", median(floorLs.fleetcom), median(floorLs.tmux)),
    versusLine("cli-ls-over-floor", median(overFloor.fleetcom), "floor", median(overFloor.tmux)),
  ];
}

async function timeBoth(fleetcomArgv: string[], tmuxArgv: string[], env: Record<string, string>, time = timeCommand) {
  await alternate(
    WARMUP,
    () => time(fleetcomArgv, env),
    () => time(tmuxArgv, env),
  );
  return alternate(
    RUNS,
    () => time(fleetcomArgv, env),
    () => time(tmuxArgv, env),
  );
}

/** Each command's CPU time against `--version`'s, taken in turns; no daemon runs meanwhile. */
async function commandsWithoutDaemon(): Promise<string[]> {
  const sandbox = makeSandbox("cmd");
  const { fleetcom } = sandbox;
  await leaveSessionAndSnapshot(sandbox);
  const commands: [string, string[]][] = [
    ["cmd-sessions", ["sessions"]],
    ["cmd-config", ["config"]],
    ["cmd-recover-list", ["recover", "--list"]],
    ["cmd-load-dry-run", ["load", "demo", "--dry-run"]],
  ];
  const lines: string[] = [];
  for (const [name, args] of commands) {
    const cpu = () => cpuCommand(fleetcom.argv(...args), fleetcom.env);
    const version = () => cpuCommand(fleetcom.argv("--version"), fleetcom.env);
    await alternate(WARMUP, cpu, version);
    const samples = await alternate(RUNS, cpu, version);
    lines.push(floorLine(name, median(samples.fleetcom), median(samples.tmux)));
  }
  return lines;
}

/** A saved session with three tasks and the recovery snapshot its daemon wrote, then no daemon. */
async function leaveSessionAndSnapshot(sandbox: Sandbox): Promise<void> {
  const { fleetcom, env } = sandbox;
  for (let i = 0; i < 3; i++) await fleetcom.start(`sleep 3600 # ${i}`);
  await fleetcom.run("save", "demo");
  const recovery = join(env.FLEETCOM_CONFIG_DIR!, "sessions", "recovery");
  await poll(() => existsSync(recovery) && readdirSync(recovery).length > 0, "a recovery snapshot", 60_000, 50);
  await stopDaemon(sandbox);
}

async function stopDaemon(sandbox: Sandbox): Promise<void> {
  const pid = daemonPid(sandbox);
  sandbox.fleetcom.killDaemon();
  await poll(() => processGone(pid), "the daemon to stop", 30_000, 5);
}

/**
 * No daemon; `fleetcom ls` autostarts one and prints the (empty) list. Wall time of that ls against
 * `--version`, in turns, and the daemon's CPU time read from /proc as soon as the ls has returned.
 */
async function coldStart(): Promise<string[]> {
  const sandbox = makeSandbox("cold-start");
  const { fleetcom } = sandbox;
  const wall: number[] = [];
  const daemonCpu: number[] = [];
  const version: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    wall.push(await timeCommand(fleetcom.argv("ls"), fleetcom.env));
    daemonCpu.push(processCpuMs(daemonPid(sandbox)));
    await stopDaemon(sandbox);
    version.push(await timeCommand(fleetcom.argv("--version"), fleetcom.env));
  }
  return [floorLine("cold-start", median(wall), median(version)), reportLine("cold-start-daemon-cpu", median(daemonCpu))];
}
