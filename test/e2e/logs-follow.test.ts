// `logs --follow` follows the log kept on disk (docs/logs.md, Following), through the binary: the kept
// lines (-n, --since, -t applied), then every new line, with no line missing or repeated at the
// seam, each after its time with -t; it ends with the task's exit code. With history = false it
// follows the terminal's lines as before, and says so.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => {
  fleet = f;
  fleet.env.FLEETCOM_LOG_INTERVAL_MS = "100";
});

/** A task numbering its lines: 5,000 at once (past the scrollback), then on until `stop` exists, then exiting 7. */
function countingTask(stop: string): string {
  return `seq 1 5000; i=5001; while [ ! -e ${stop} ]; do echo "$i"; i=$((i+1)); sleep 0.01; done; exit 7`;
}

/** `fleetcom logs ARGS` in the background, its stdout into a file, its stderr piped. */
function followInto(out: string, args: string[]) {
  return Bun.spawn(["/bin/sh", "-c", `exec "$@" > ${out}`, "sh", ...fleetcomArgv(["logs", ...args])], { env: fleet.env, stderr: "pipe" });
}

const linesOf = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").slice(0, -1) : []);

test("logs -f -n 5 prints the last 5 kept lines, then every new line: contiguous across the seam, then the task's exit code", async () => {
  const stop = join(fleet.sandbox.root, "stop");
  const id = await fleet.run(countingTask(stop), ["--name", "counter"]);
  await until("the counting under way in the log", async () => Number((await fleet.ok(["logs", "-n", "1", String(id)])).trim()) >= 5100);
  const out = join(fleet.sandbox.root, "follow.txt");
  const follower = followInto(out, ["-f", "-n", "5", String(id)]);
  await until("the follower past its first lines", () => linesOf(out).length >= 60);
  writeFileSync(stop, "");
  expect(await follower.exited).toBe(7);
  expect(await new Response(follower.stderr).text()).toBe("");
  const got = linesOf(out).map(Number);
  const first = got[0]!;
  expect(first).toBeGreaterThanOrEqual(5096);
  // Every number once, in order, from the first of the last five to the task's last line.
  expect(got).toEqual(Array.from({ length: got.length }, (_, i) => first + i));
  const all = (await fleet.ok(["logs", String(id)])).trimEnd().split("\n");
  expect(got.at(-1)).toBe(Number(all.at(-1)));
});

test("logs -f --since 1m -t prints the kept lines and the new ones, each after the time it was printed", async () => {
  const stop = join(fleet.sandbox.root, "stop");
  const id = await fleet.run(countingTask(stop), ["--name", "timed"]);
  await until("the counting under way in the log", async () => (await fleet.ok(["logs", String(id)])).includes("\n5020\n"));
  const out = join(fleet.sandbox.root, "follow.txt");
  const follower = followInto(out, ["-f", "--since", "1m", "-t", String(id)]);
  await until("the follower well past the seam", () => linesOf(out).length >= 5150);
  writeFileSync(stop, "");
  expect(await follower.exited).toBe(7);
  expect(await new Response(follower.stderr).text()).toBe("");
  const stamp = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\d+)$/;
  const lines = linesOf(out);
  for (const line of lines) expect(line).toMatch(stamp);
  const numbers = lines.map((l) => Number(stamp.exec(l)![2]));
  // The whole minute: from the first line, every number once.
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  const times = lines.map((l) => Date.parse(stamp.exec(l)![1]!));
  expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
});

test("logs -f without -n follows the whole log, far beyond the scrollback, then every new line", async () => {
  const stop = join(fleet.sandbox.root, "stop");
  const id = await fleet.run(countingTask(stop), ["--name", "whole"]);
  await until("the counting under way in the log", async () => Number((await fleet.ok(["logs", "-n", "1", String(id)])).trim()) >= 5020);
  const out = join(fleet.sandbox.root, "follow.txt");
  const follower = followInto(out, ["-f", String(id)]);
  await until("the follower past the seam", () => linesOf(out).length >= 5100);
  writeFileSync(stop, "");
  expect(await follower.exited).toBe(7);
  const got = linesOf(out).map(Number);
  expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 1));
});

test("logs -f of a task that exited prints its kept lines and ends with its code", async () => {
  const id = await fleet.run("seq 1 3000; exit 4", ["--name", "done"]);
  await fleet.waitForExit(id);
  const r = await fleet.cli(["logs", "-f", "-n", "3", "-t", String(id)]);
  expect(r.code).toBe(4);
  expect(
    r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => l.split(" ")[1]),
  ).toEqual(["2998", "2999", "3000"]);
});

test("with history = false, logs -f follows the scrollback and the terminal's lines, and says so; -t is refused", async () => {
  fleet.env.FLEETCOM_HISTORY = "false";
  const id = await fleet.run("seq 1 3000; exit 5", ["--name", "unkept"]);
  await fleet.waitForExit(id);
  const r = await fleet.cli(["logs", "-f", "-n", "2", String(id)]);
  expect(r.code).toBe(5);
  expect(r.stdout).toBe("2999\n3000\n");
  expect(r.stderr).toContain("history = false keeps no log");
  const timed = await fleet.cli(["logs", "-f", "-t", String(id)]);
  expect(timed.code).not.toBe(0);
  expect(timed.stderr).toContain("no log is kept (history = false)");
});
