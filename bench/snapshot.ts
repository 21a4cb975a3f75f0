// snapshot: a daemon with 500 tasks gets 1,000 renames within one second, on one connection, paced
// in batches as a script would send them; with the default two-second debounce that must make
// exactly one snapshot write. Then the time of one pass over 500 tasks (build the recipe, write it
// atomically with fsync, prune), as the daemon logs it; median of several passes (target ≤ 10 ms).
// Writes are counted from the daemon log's `snapshot written` lines.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, median, openDaemonClient, poll, reportLine, sleep } from "./common.ts";

const TASKS = 500;
const RENAMES = 1_000;
const BATCHES = 20;
const PASS_SAMPLES = 5;
const DEBOUNCE_MS = 2_000;

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("snapshot");
  const { root, env, fleetcom } = sandbox;
  const recipe = join(root, "snapshot.json");
  writeFileSync(recipe, JSON.stringify({ version: 1, name: "snapshot", dirs: { [root]: Array(TASKS).fill("sleep 3600") } }));
  await fleetcom.run("load", recipe);
  const log = join(env.FLEETCOM_RUNTIME_DIR!, "daemon.log");
  await settledSnapshots(log);

  const client = await openDaemonClient(sandbox);
  const before = passes(log).length;
  const started = performance.now();
  const perBatch = RENAMES / BATCHES;
  for (let batch = 0; batch < BATCHES; batch++) {
    const renames = Array.from({ length: perBatch }, (_, i) =>
      client.request("rename", { task: { id: 1 + ((batch * perBatch + i) % TASKS) }, name: `r${batch}-${i}` }),
    );
    await Promise.all(renames);
    await sleep(Math.max(0, ((batch + 1) * 1000) / BATCHES - (performance.now() - started)));
  }
  const burstMs = performance.now() - started;
  if (burstMs > 1_000 + 100) throw new Error(`the renames took ${burstMs.toFixed(0)} ms, not one second`);
  await poll(() => passes(log).length > before, "the pass after the burst", 30_000, 20);
  // A second write, if the burst made one, would come within one more debounce period.
  await sleep(DEBOUNCE_MS + 1_000);
  const burstWrites = passes(log).length - before;

  for (let i = 0; i < PASS_SAMPLES; i++) {
    const count = passes(log).length;
    await client.request("rename", { task: { id: 1 }, name: `sample ${i}` });
    await poll(() => passes(log).length > count, "a sample pass", 30_000, 20);
  }
  client.close();
  const samples = passes(log).slice(-PASS_SAMPLES);
  return [reportLine(`snapshot-writes-for-${RENAMES}-renames`, burstWrites, String), reportLine(`snapshot-pass-${TASKS}`, median(samples))];
}

/**
 * Returns once the loaded fleet's snapshots have stopped: where starting 500 tasks takes longer than
 * the debounce (a slow machine: 5 s), the daemon writes one every two seconds until the tasks have
 * all started, and a write of the load must not be counted as one of the burst's.
 */
async function settledSnapshots(log: string): Promise<void> {
  await poll(() => passes(log).length > 0, "the snapshot of the loaded fleet", 30_000, 20);
  for (let deadline = performance.now() + 60_000; ; ) {
    const count = passes(log).length;
    await sleep(DEBOUNCE_MS + 1_000);
    if (passes(log).length === count) return;
    if (performance.now() > deadline) throw new Error("the loaded fleet's snapshots did not stop within 60 s");
  }
}

/** The duration of every logged snapshot write, in ms. */
function passes(log: string): number[] {
  const text = readFileSync(log, "utf8");
  return [...text.matchAll(/ snapshot written .*: \d+ task\(s\) in ([\d.]+) ms$/gm)].map((m) => Number(m[1]));
}
