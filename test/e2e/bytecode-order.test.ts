// `make build` lays the binary's bytecode out by where its common starts go (scripts/build.ts
// --bytecode-order, scripts/bytecode-order.ts). A recording that stopped working (a command renamed,
// a step that no longer succeeds) would only leave the layout out, which nothing else would notice:
// this runs the recording against the binary under test.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { RECORDED_STARTS, recordBytecodeOrder } from "../../scripts/bytecode-order.ts";

const BIN = process.env.FLEETCOM_TEST_BIN;

/** The entries of a profile: a line each after the format's own first line (`v2`). */
function entriesIn(file: string): number {
  const [format, ...entries] = readFileSync(file, "utf8").split("\n");
  expect(format).toMatch(/^v\d+$/);
  return entries.filter((line) => line !== "").length;
}

// Only a binary built with --bytecode records; from source there is nothing to record.
describe.skipIf(!BIN)("the bytecode order the build records", () => {
  test("each common start leaves a profile, and the daemon's is its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fleetcom-order-test-"));
    try {
      const files = await recordBytecodeOrder(resolve(BIN!), dir);
      expect(files.map((file) => basename(file))).toEqual(RECORDED_STARTS.map((start) => `${start}.order`));
      const counts = Object.fromEntries(files.map((file) => [basename(file, ".order"), entriesIn(file)]));
      for (const start of RECORDED_STARTS) expect(counts[start]).toBeGreaterThan(1000);
      // The supervisor, its tasks and their terminals: far more than any client loads. A daemon that
      // lost its profile to a client's would have a client's count.
      expect(counts.daemon).toBeGreaterThan(counts.ls! + 1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
