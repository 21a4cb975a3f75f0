// history: what keeping each task's history on disk costs (issue 18). A task prints about 54 MB of
// base64 lines in bursts over some fifteen seconds, once with FLEETCOM_HISTORY=off and once on (the
// default five-second interval), alternately; for each, the daemon's CPU time (utime + stime from
// /proc, the whole run, the final write after the task's exit included) per MB of output, and, with
// history on, the bytes the history writer put on disk per MB of output and how many writes it made
// (from `status --json`). Then one write's own work, in process: the 2,000 lines of a full
// scrollback taken from the emulator and packed, as the writer does before its atomic write.
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { encodeHistory } from "../src/recipe-history.ts";
import { Screen } from "../src/term-screen.ts";
import { makeSandbox, median, processCpuMs, reportLine, sleep, type Sandbox } from "./common.ts";

const RUNS = 3;
const CHUNKS = 40;
/** ~1 MB of base64 (75 MB of random bytes / 100, as throughput's flood) per burst, a quarter second apart. */
const FLOOD = `for i in $(seq 1 ${CHUNKS}); do head -c 1000000 /dev/urandom | base64; sleep 0.25; done`;

interface Run {
  cpuMs: number;
  outputMB: number;
  historyBytes: number;
  writes: number;
}

export async function run(): Promise<string[]> {
  const sandboxes = { off: sandboxWith("off"), on: sandboxWith("on") };
  for (const sandbox of Object.values(sandboxes)) await sandbox.fleetcom.run("ls");
  const runs: Record<"off" | "on", Run[]> = { off: [], on: [] };
  for (let i = 0; i < RUNS; i++) {
    runs.off.push(await floodOnce(sandboxes.off));
    runs.on.push(await floodOnce(sandboxes.on));
  }
  const perMB = (r: Run) => r.cpuMs / r.outputMB;
  const write = await oneWrite();
  return [
    reportLine("history-off-cpu-per-MB", median(runs.off.map(perMB))),
    reportLine("history-on-cpu-per-MB", median(runs.on.map(perMB))),
    reportLine("history-on-written-per-MB", median(runs.on.map((r) => r.historyBytes / r.outputMB)), (v) => `${(v / 1024).toFixed(1)}KB`),
    reportLine("history-on-writes-per-run", median(runs.on.map((r) => r.writes)), String),
    reportLine("history-write-2000-lines", write),
  ];
}

function sandboxWith(history: "on" | "off"): Sandbox {
  const sandbox = makeSandbox(`history-${history}`);
  sandbox.env.FLEETCOM_HISTORY = history;
  return sandbox;
}

async function status(sandbox: Sandbox): Promise<{ pid: number; history: { writes: number; bytes: number } }> {
  return JSON.parse(await sandbox.fleetcom.run("status", "--json"));
}

async function floodOnce(sandbox: Sandbox): Promise<Run> {
  const before = await status(sandbox);
  const cpuBefore = processCpuMs(before.pid);
  const id = await sandbox.fleetcom.start(FLOOD);
  for (;;) {
    const tasks = JSON.parse(await sandbox.fleetcom.run("ls", "--json")) as { id: number; state: string }[];
    if (tasks.find((t) => String(t.id) === id)?.state === "exited") break;
    await sleep(250);
  }
  // The writer's last pass for the exited task comes within one interval.
  await sleep(6_000);
  const after = await status(sandbox);
  const cpu = processCpuMs(after.pid) - cpuBefore;
  await sandbox.fleetcom.remove(id);
  // 1,000,000 bytes as base64 lines of 76 characters and a newline (CRLF through the PTY).
  const outputMB = (CHUNKS * Math.ceil(1_000_000 / 3) * 4 * (78 / 76)) / 1e6;
  return { cpuMs: cpu, outputMB, historyBytes: after.history.bytes - before.history.bytes, writes: after.history.writes - before.history.writes };
}

/** One write's work before the disk: a full scrollback's 2,000 lines out of the emulator, encoded and gzipped. Median of 20. */
async function oneWrite(): Promise<number> {
  const screen = new Screen({ cols: 120, rows: 40, scrollback: 2_000 });
  const line = "x".repeat(60);
  screen.write(Array.from({ length: 2_100 }, (_, i) => `${i} ${line} ${i}\r\n`).join(""));
  await screen.flushed();
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await promisify(gzip)(encodeHistory(screen.historyLines(2_000), new Date()));
    samples.push(performance.now() - started);
  }
  screen.dispose();
  return median(samples);
}
