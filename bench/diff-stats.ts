// diff-stats: what keeping each agent's changes figure costs the daemon (docs/review.md). Twenty
// agents, each printing every second and rewriting a file of its own now and then, in a generated
// 10,000-file repository; the daemon's CPU over a window (its own and that of the git processes it
// ran and reaped) as % of one core, against the same daemon with the same twenty agents in a
// directory outside any repository, where no figure is kept. Target: the difference at most 2 %.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { daemonPid, makeSandbox, processCpuMs, runCommand, sleep, versusLine } from "./common.ts";

const AGENTS = 20;
const FILES = 10_000;
const FILES_PER_DIR = 100;
/** Long enough for every agent to have its baseline and its first counts behind it. */
const WARM_UP_MS = 15_000;
const WINDOW_MS = Number(process.env.DIFF_STATS_WINDOW_MS ?? 40_000);

const CLOCK_TICKS_PER_SECOND = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("diff-stats");
  const { root, env, fleetcom } = sandbox;
  Object.assign(env, { GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" });
  env.PATH = `${installBusyAgent(root)}:${env.PATH ?? process.env.PATH}`;
  const repo = join(root, "repo");
  await generateRepository(repo, env);
  const plain = join(root, "plain");
  mkdirSync(plain);

  await fleetcom.run("ls");
  const pid = daemonPid(sandbox);
  const inRepo = await agentsCpu(sandbox, pid, repo);
  await fleetcom.run("rm", "--all", "--force");
  const outside = await agentsCpu(sandbox, pid, plain);
  const percent = (v: number) => `${v.toFixed(2)}%`;
  return [
    versusLine(`diff-stats-${AGENTS}-agents-cpu`, inRepo, "outside-repo", outside, percent),
    `diff-stats-${AGENTS}-agents-cpu-cost  fleetcom=${percent(inRepo - outside)}  target=2.00%`,
  ];
}

/** Starts the agents in `cwd`, lets them settle, and returns the daemon's CPU over the window as % of one core. */
async function agentsCpu(sandbox: ReturnType<typeof makeSandbox>, pid: number, cwd: string): Promise<number> {
  for (let i = 0; i < AGENTS; i++) await sandbox.fleetcom.run("run", "--cwd", cwd, "--", "claude");
  await sleep(WARM_UP_MS);
  const before = daemonCpuMs(pid);
  const started = performance.now();
  await sleep(WINDOW_MS);
  const used = daemonCpuMs(pid) - before;
  const tasks = JSON.parse(await sandbox.fleetcom.run("ls", "--json")) as { state: string; changes: unknown }[];
  const counted = tasks.filter((t) => t.changes !== null && t.changes !== undefined).length;
  process.stderr.write(`${cwd}: ${tasks.length} tasks, ${tasks.filter((t) => t.state === "running").length} running, ${counted} with a changes figure\n`);
  return (used / (performance.now() - started)) * 100;
}

/** The daemon's own CPU and that of the children it has reaped (git), in ms. */
function daemonCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const children = ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_SECOND;
  return processCpuMs(pid) + children;
}

/** A stand-in agent named `claude`: prints a line a second and rewrites a file of its own every fifth. */
function installBusyAgent(root: string): string {
  const bin = join(root, "agents");
  mkdirSync(bin);
  const script = `#!/bin/sh
[ "$1" = --help ] && exit 0
i=0
while :; do
  i=$((i + 1))
  echo "working $i"
  [ $((i % 5)) -eq 0 ] && echo "$i" > "agent-$$.txt"
  sleep 1
done
`;
  writeFileSync(join(bin, "claude"), script);
  chmodSync(join(bin, "claude"), 0o755);
  return bin;
}

async function generateRepository(repo: string, env: Record<string, string>): Promise<void> {
  for (let i = 0; i < FILES; i++) {
    const dir = join(repo, `d${Math.floor(i / FILES_PER_DIR)}`);
    if (i % FILES_PER_DIR === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.txt`), `file ${i}\n`.repeat(20));
  }
  await runCommand(["git", "-C", repo, "init", "-q", "-b", "main"], env);
  await runCommand(["git", "-C", repo, "add", "."], env);
  await runCommand(["git", "-C", repo, "commit", "-qm", "generated"], env);
}
