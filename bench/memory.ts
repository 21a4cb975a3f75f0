// memory: the server's resident memory, fleetcom's daemon beside the tmux server on the same work.
//
// rss-idle: 10 `sleep 3600` tasks (sessions), then 3 s of nothing; VmRSS of the daemon and of the
// tmux server (target ≤ 60 MB for fleetcom). rss-flood: 20 tasks started by one `load` (one tmux
// `source-file`), each printing 3 MB of base64 (`head -c 2250000 /dev/urandom | base64`) at the same
// time and then sleeping; the peak, VmHWM, once every task has printed all of it and the server has
// had 2 s to settle (target ≤ 150 MB). Each figure has its own sandbox, so a peak is that work's.
//
// Beside rss-idle, in the same run and after the same settling time, the floors under it
// (bench/floor/imports.ts, compiled like fleetcom): rss-idle-floor, a Bun process that has loaded
// only what the daemon must load anyway, the socket protocol's schemas as the daemon loads them
// (arktype's checks precompiled at build time; arktype itself loads only to word a refusal) and
// @xterm/headless, and sits idle; rss-idle-floor-no-validator, the same without the schemas. Their
// difference is what the validator costs; rss-idle minus rss-idle-floor is fleetcom's own.
//
// rss-idle-spoken (report): the same ten tasks as a fleet in use has them, each having printed a
// line, been typed a line into and printed what it got; VmRSS once the history writer has written
// (its interval, 5 s, and the settling time). rss-idle's tasks never print, so no screen, log or
// history is ever made for them.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareLine, compileFloor, daemonPid, makeSandbox, onCleanup, poll, procStatusKb, sleep, type Sandbox } from "./common.ts";

const IDLE_TASKS = 10;
const SETTLE_MS = 3_000;
const FLOOD_TASKS = 20;
const FLOOD = "head -c 2250000 /dev/urandom | base64";

export async function run(): Promise<string[]> {
  const idle = await rssIdle();
  const spoken = await rssSpoken();
  const flood = await rssFlood();
  const mb = (kb: number) => `${(kb / 1024).toFixed(1)}MB`;
  return [
    compareLine("rss-idle", idle.fleetcom, idle.tmux, mb),
    compareLine("rss-idle-floor", idle.floor, idle.tmux, mb),
    compareLine("rss-idle-floor-no-validator", idle.floorNoValidator, idle.tmux, mb),
    compareLine("rss-idle-spoken", spoken.fleetcom, spoken.tmux, mb),
    compareLine("rss-flood", flood.fleetcom, flood.tmux, mb),
  ];
}

async function rssIdle(): Promise<{ fleetcom: number; tmux: number; floor: number; floorNoValidator: number }> {
  const sandbox = makeSandbox("rss-idle");
  const { root, env, fleetcom, tmux } = sandbox;
  const floorBinary = compileFloor("imports", root);
  for (let i = 1; i <= IDLE_TASKS; i++) await fleetcom.start("sleep 3600");
  await tmux.start("s1", "sleep 3600");
  for (let i = 2; i <= IDLE_TASKS; i++) await tmux.newSession(`s${i}`, "sleep 3600");
  const floor = await startFloor([floorBinary, "validator"], env);
  const floorNoValidator = await startFloor([floorBinary], env);
  await sleep(SETTLE_MS);
  return {
    fleetcom: procStatusKb(daemonPid(sandbox), "VmRSS"),
    tmux: procStatusKb(tmuxPid(sandbox), "VmRSS"),
    floor: procStatusKb(floor, "VmRSS"),
    floorNoValidator: procStatusKb(floorNoValidator, "VmRSS"),
  };
}

/** Each task says it is ready, reads a line and says what it got; the history writer writes 5 s after output. */
const SPOKEN_TASK = (marker: string) => `echo ready; read line; echo "got $line" > ${marker}; echo "got $line"; exec sleep 3600`;
const HISTORY_INTERVAL_MS = 5_000;

async function rssSpoken(): Promise<{ fleetcom: number; tmux: number }> {
  const sandbox = makeSandbox("rss-spoken");
  const { root, fleetcom, tmux } = sandbox;
  const marker = (tool: string, i: number) => join(root, `${tool}-got-${i}`);
  const ids: string[] = [];
  for (let i = 1; i <= IDLE_TASKS; i++) ids.push(await fleetcom.start(SPOKEN_TASK(marker("fleetcom", i))));
  await tmux.start("s1", SPOKEN_TASK(marker("tmux", 1)));
  for (let i = 2; i <= IDLE_TASKS; i++) await tmux.newSession(`s${i}`, SPOKEN_TASK(marker("tmux", i)));
  // A line typed before the task reads it waits in its terminal, as a typed one would.
  for (const [i, id] of ids.entries()) {
    await fleetcom.run("send", id, "hello");
    await tmux.run("send-keys", "-t", `s${i + 1}`, "hello", "Enter");
  }
  for (let i = 1; i <= IDLE_TASKS; i++)
    await poll(() => existsSync(marker("fleetcom", i)) && existsSync(marker("tmux", i)), "every task to read its line", 30_000, 10);
  await sleep(HISTORY_INTERVAL_MS + SETTLE_MS);
  return { fleetcom: procStatusKb(daemonPid(sandbox), "VmRSS"), tmux: procStatusKb(tmuxPid(sandbox), "VmRSS") };
}

/** Starts a floor process and waits until it has loaded what it loads; returns its pid. */
async function startFloor(argv: string[], env: Record<string, string>): Promise<number> {
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  onCleanup(() => proc.kill("SIGKILL"));
  const reader = proc.stdout.getReader();
  let said = "";
  while (!said.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${argv.join(" ")} exited before it was ready`);
    said += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return proc.pid;
}

async function rssFlood(): Promise<{ fleetcom: number; tmux: number }> {
  const sandbox = makeSandbox("rss-flood");
  const { root, fleetcom, tmux } = sandbox;
  // Both servers are up before the flood, each with nothing else to hold.
  await fleetcom.run("ls");
  await tmux.start();
  const marker = (tool: string, i: number) => join(root, `${tool}-done-${i}`);
  const command = (tool: string, i: number) => `${FLOOD}; : > ${marker(tool, i)}; exec sleep 3600`;

  const recipe = join(root, "flood.json");
  writeFileSync(recipe, JSON.stringify({ version: 1, name: "flood", dirs: { [root]: Array.from({ length: FLOOD_TASKS }, (_, i) => command("fleetcom", i)) } }));
  await fleetcom.run("load", recipe);
  await allDone((i) => marker("fleetcom", i));

  const script = join(root, "flood.tmux");
  writeFileSync(script, Array.from({ length: FLOOD_TASKS }, (_, i) => `new-session -d -s f${i} "${command("tmux", i)}"\n`).join(""));
  await tmux.run("source-file", script);
  await allDone((i) => marker("tmux", i));

  await sleep(2_000);
  return { fleetcom: procStatusKb(daemonPid(sandbox), "VmHWM"), tmux: procStatusKb(tmuxPid(sandbox), "VmHWM") };
}

async function allDone(marker: (i: number) => string): Promise<void> {
  await poll(() => Array.from({ length: FLOOD_TASKS }, (_, i) => marker(i)).every(existsSync), "every flood to finish", 120_000, 20);
}

function tmuxPid({ tmux }: Sandbox): number {
  const out = Bun.spawnSync(tmux.argv("display-message", "-p", "#{pid}"), { env: tmux.env });
  const pid = Number(out.stdout.toString().trim());
  if (!(pid > 0)) throw new Error("no tmux server pid");
  return pid;
}
