// logs: what writing each task's log costs the daemon (issue 43). The daemon's own log writer
// (daemon-logs.ts), in process, on a temp directory: about 64 MB of output in the chunks a PTY
// gives (base64 lines ending in CRLF, some with colours), pushed as the output path pushes them and
// written in the batches the writer makes (a batch at every 4 MB waiting, and on its timer);
// the CPU time (user + system, process.cpuUsage) of cutting, timing and appending, per MB of output,
// rotation at the default cap included. Median of five runs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LogStore } from "../src/daemon-logs.ts";
import { DEFAULT_LOG_MAX } from "../src/settings.ts";
import { median, reportLine } from "./common.ts";

const RUNS = 5;
const CHUNK_BYTES = 4096;
const TOTAL_BYTES = 64 * 1024 * 1024;

export async function run(): Promise<string[]> {
  const chunks = outputChunks();
  const perMB: number[] = [];
  for (let i = 0; i < RUNS; i++) perMB.push(await writeOnce(chunks));
  return [reportLine("log-write-cpu-per-MB", median(perMB))];
}

/** PTY-sized chunks of base64 lines, every eighth line coloured. */
function outputChunks(): Uint8Array[] {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < CHUNK_BYTES * 64; i++) {
    const text = Buffer.from(crypto.getRandomValues(new Uint8Array(57))).toString("base64");
    const line = i % 8 === 0 ? `\x1b[32m${text}\x1b[0m\r\n` : `${text}\r\n`;
    lines.push(line);
    size += line.length;
  }
  const block = new TextEncoder().encode(lines.join(""));
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < block.length; at += CHUNK_BYTES) chunks.push(block.subarray(at, at + CHUNK_BYTES));
  return chunks;
}

async function writeOnce(chunks: Uint8Array[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "fleetcom-bench-logs-"));
  try {
    const store = new LogStore({ dir: join(dir, "history"), logMax: DEFAULT_LOG_MAX, intervalMs: 1_000, log: () => {} }).start();
    const log = store.open("1");
    const before = process.cpuUsage();
    let pushed = 0;
    while (pushed < TOTAL_BYTES) {
      for (const chunk of chunks) {
        log.push(chunk, Date.now());
        pushed += chunk.length;
      }
      // The writer's batches run between turns of the event loop, as in the daemon.
      await new Promise((resolve) => setImmediate(resolve));
    }
    store.stop();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / (pushed / 1e6);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
