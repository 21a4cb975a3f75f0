// throughput: a task prints 100 MB of base64 (102.6 MB through the PTY, its line feeds made \r\n); time
// from start to exit, once with nobody attached and once with one attached client (in a real PTY)
// reading everything.
//
// Detached: from spawning the start command (`fleetcom run` / `tmux new-session -d`) until the
// task's shell has been reaped by the tool. Attached: the task waits for Enter from the attached
// client, so the clock starts with every client in place and ends when the client shows the
// task's end (`[task N exited 0]` / `[exited]`): all output has reached the client by then.
// Neither tool lets a slow terminal slow the task, so the client does not see every byte: the
// report line throughput-attached-client says how much each client had to draw.
//
// throughput-detached-floor: the same detached flood under bench/floor/pty.ts, a Bun program that runs
// it in a PTY as the daemon does and drops its output, against tmux in the same rounds; fleetcom's
// distance from it (throughput-detached-over-floor) is what the daemon does with the output.
import { join } from "node:path";
import { alternate, compareLine, compileFloor, makeSandbox, median, poll, processGone, PtyClient, readPid, type Sandbox, versusLine } from "./common.ts";

interface AttachedRun {
  elapsed: number;
  /** Bytes the client wrote to its terminal. */
  drawn: number;
}

const RUNS = 3;
// One detached flood's time moves by ±10 % between runs on a 2-core machine, and the line's target
// is a ratio of 1.0: the median of five.
const DETACHED_RUNS = 5;
const FLOOD = "head -c 75000000 /dev/urandom | base64";

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("throughput");
  await sandbox.fleetcom.run("ls"); // autostart outside the clock
  await sandbox.tmux.start();
  const floorBinary = compileFloor("pty", sandbox.root);
  let n = 0;
  const floor: number[] = [];
  const detached = await alternate(
    DETACHED_RUNS,
    () => fleetcomDetached(sandbox, ++n),
    async () => {
      floor.push(await floorDetached(sandbox, floorBinary, ++n));
      return tmuxDetached(sandbox, ++n);
    },
  );
  const drawn = { fleetcom: [] as number[], tmux: [] as number[] };
  const attached = await alternate(
    RUNS,
    async () => keepDrawn(await fleetcomAttached(sandbox), drawn.fleetcom),
    async () => keepDrawn(await tmuxAttached(sandbox, ++n), drawn.tmux),
  );
  return [
    compareLine("throughput-detached", median(detached.fleetcom), median(detached.tmux)),
    versusLine("throughput-detached-floor", median(floor), "tmux", median(detached.tmux)),
    versusLine("throughput-detached-over-floor", median(detached.fleetcom), "floor", median(floor)),
    compareLine("throughput-attached", median(attached.fleetcom), median(attached.tmux)),
    compareLine("throughput-attached-client", median(drawn.fleetcom), median(drawn.tmux), megabytes),
  ];
}

function keepDrawn(run: AttachedRun, drawn: number[]): number {
  drawn.push(run.drawn);
  return run.elapsed;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)}MB`;
}

/** The flood, behind a line that records the shell's pid so its exit can be watched. */
function floodRecordingPid(pidFile: string): string {
  return `echo $$ > ${pidFile}; ${FLOOD}`;
}

async function untilReaped(pidFile: string): Promise<void> {
  const pid = await poll(() => readPid(pidFile), "the task's pid");
  await poll(() => processGone(pid), "the task to exit", 120_000);
}

/**
 * Times one detached flood: from `start` (given the flood's command line) until the flood's shell
 * has been reaped. Returns the time and what `start` gave (to clean up after the clock).
 */
async function timedFlood<T>(root: string, n: number, start: (command: string) => Promise<T>): Promise<{ elapsed: number; started: T }> {
  const pidFile = join(root, `flood-${n}.pid`);
  const clock = performance.now();
  const started = await start(floodRecordingPid(pidFile));
  await untilReaped(pidFile);
  return { elapsed: performance.now() - clock, started };
}

async function fleetcomDetached({ root, fleetcom }: Sandbox, n: number): Promise<number> {
  const { elapsed, started: id } = await timedFlood(root, n, (command) => fleetcom.start(command));
  await fleetcom.remove(id);
  return elapsed;
}

async function tmuxDetached({ root, tmux }: Sandbox, n: number): Promise<number> {
  return (await timedFlood(root, n, (command) => tmux.newSession(`flood-${n}`, command))).elapsed;
}

async function floorDetached({ root, env }: Sandbox, binary: string, n: number): Promise<number> {
  const spawn = async (command: string) => Bun.spawn([binary, command], { env, stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  const { elapsed, started: floor } = await timedFlood(root, n, spawn);
  await floor.exited;
  return elapsed;
}

/** Prints READY, then floods once Enter arrives through the attached client. */
const FLOOD_ON_ENTER = `printf READY; read go; ${FLOOD}`;

async function floodThroughClient(client: PtyClient, endText: string): Promise<AttachedRun> {
  await client.waitFor("READY");
  const ended = client.waitFor(endText, 120_000);
  const started = performance.now();
  client.write("\r");
  const elapsed = (await ended) - started;
  await client.close();
  return { elapsed, drawn: client.received };
}

async function fleetcomAttached({ fleetcom }: Sandbox): Promise<AttachedRun> {
  const id = await fleetcom.start(FLOOD_ON_ENTER);
  const client = new PtyClient(fleetcom.argv("attach", id), fleetcom.env);
  const run = await floodThroughClient(client, `[task ${id} `);
  await fleetcom.remove(id);
  return run;
}

async function tmuxAttached({ tmux }: Sandbox, n: number): Promise<AttachedRun> {
  const name = `flood-${n}`;
  await tmux.newSession(name, FLOOD_ON_ENTER);
  const client = new PtyClient(tmux.argv("attach", "-t", name), tmux.env);
  return floodThroughClient(client, "[exited]");
}
