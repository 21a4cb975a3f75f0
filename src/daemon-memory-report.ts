// What the daemon's memory holds, for the memory benchmarks only (bench/memory.ts, bench/scale.ts):
// with FLEETCOM_BENCH_MEMORY_REPORT set to a file, SIGUSR2 writes there the JS heap's figures (Bun's
// heapStats: object counts by type, the heap's size and capacity) and the process's memoryUsage.
// Unset, nothing is installed and bun:jsc is never loaded.
import { writeFileSync } from "node:fs";

export const MEMORY_REPORT_VARIABLE = "FLEETCOM_BENCH_MEMORY_REPORT";

export function reportMemoryOnSignal(env: NodeJS.ProcessEnv, log: (message: string) => void): void {
  const file = env[MEMORY_REPORT_VARIABLE];
  if (!file || typeof Bun === "undefined") return;
  process.on("SIGUSR2", () => {
    void writeMemoryReport(file).catch((error) => log(`memory report: ${String(error)}`));
  });
}

async function writeMemoryReport(file: string): Promise<void> {
  const { heapStats } = await import("bun:jsc");
  const heap = heapStats();
  const largest = Object.entries(heap.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 40);
  const report = {
    heapSize: heap.heapSize,
    heapCapacity: heap.heapCapacity,
    extraMemorySize: heap.extraMemorySize,
    objectCount: heap.objectCount,
    protectedObjectCount: heap.protectedObjectCount,
    memoryUsage: process.memoryUsage(),
    objectTypeCounts: Object.fromEntries(largest),
  };
  writeFileSync(file, `${JSON.stringify(report, null, 1)}\n`, { mode: 0o600 });
}
