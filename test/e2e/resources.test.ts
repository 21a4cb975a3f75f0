// What each task uses, through the real binary (issue 43, "What each task uses"): a busy loop shows
// CPU near one core and a task holding 200 MB shows it in `ls --json`, `ls` and the dashboard (in
// tmux); a child's use counts for its task; --max-memory stops a task that passes it, saying why;
// and nothing is sampled while no client shows the figures, nor for an ls with no running task.
// Linux only (/proc).
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";
import type { DaemonStatus, TaskInfo } from "../../src/wire-protocol.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));
let tmux: Tmux | undefined;
afterEach(() => tmux?.kill());

const MIB = 1024 * 1024;
/**
 * A busy loop, at the highest priority (the tests run as root; elsewhere nice says so and runs it as
 * it is): on a machine shared with other work it still gets most of a core.
 */
const BUSY = "nice -n -19 sh -c 'while :; do :; done'";
/** Holds 200 MiB, every page written, then sleeps. */
const HOLD_200M = `python3 -c 'import time; b = b"x" * (200 << 20); time.sleep(600)'`;

const lsJson = async () => JSON.parse(await fleet.ok(["ls", "--json"])) as TaskInfo[];
const status = async () => JSON.parse(await fleet.ok(["status", "--json"])) as DaemonStatus;

/** Polls `ls --json` (which samples, as `ls` does) until task `id` meets `test`. */
function lsUntil(id: number, what: string, test: (t: TaskInfo) => boolean): Promise<TaskInfo> {
  return until(`task ${id} ${what} in ls --json`, async () => {
    const t = (await lsJson()).find((x) => x.id === id);
    return t && test(t) ? t : undefined;
  });
}

test("a busy loop shows its CPU, a task holding 200 MB shows it, in ls --json and ls", async () => {
  const busy = await fleet.run(BUSY);
  const holder = await fleet.run(HOLD_200M);
  const idle = await fleet.run("sleep 600");
  // The machine is shared (under the suite's parallel workers a busy loop gets a fraction of a core):
  // a loose lower bound, well above the idle task's figure checked below.
  await lsUntil(busy, "busy", (t) => (t.cpu ?? 0) > 30);
  const held = await lsUntil(holder, "holding 200 MiB", (t) => (t.rss ?? 0) >= 200 * MIB);
  expect(held.rss!).toBeLessThan(400 * MIB);
  const quiet = (await lsJson()).find((t) => t.id === idle)!;
  expect(quiet.cpu).toBeLessThan(20);

  const table = (await fleet.ok(["ls"])).split("\n");
  expect(table[0]).toMatch(/AGE\s+CPU\s+MEM\s+PREVIEW/);
  expect(table.find((l) => l.startsWith(`${holder} `))).toMatch(/\s2\d\dM(\s|$)/);
  const verbose = (await fleet.ok(["ls", "-v"])).split("\n");
  expect(verbose[0]).toMatch(/CPU\s+MEM\s+THREADS\s+PROCS/);

  // An exited task has no figures.
  await fleet.ok(["kill", String(busy)]);
  await fleet.waitForExit(busy);
  const gone = (await lsJson()).find((t) => t.id === busy)!;
  expect([gone.cpu, gone.rss]).toEqual([null, null]);
});

test("a child process's CPU and memory count for its task", async () => {
  // The shell stays as the group's leader: the work is all in its children.
  const parent = await fleet.run(`${HOLD_200M} & ${BUSY} & wait`);
  const t = await lsUntil(parent, "with its children's use", (x) => (x.rss ?? 0) >= 200 * MIB && (x.cpu ?? 0) > 30);
  expect(t.processes!).toBeGreaterThanOrEqual(3);
});

test("--max-memory stops a task that passes it, with the reason; a size that is no size is refused", async () => {
  const id = await fleet.run(HOLD_200M, ["--max-memory", "100M"]);
  const stopped = await fleet.waitForExit(id);
  expect(stopped.stopReason).toMatch(/^memory 2\d\dM over --max-memory 100M$/);
  expect(stopped.maxMemory).toBe(100 * MIB);
  expect(await fleet.peek(id)).toContain("fleetcom: stopped: memory");
  expect((await fleet.ok(["ls"])).split("\n").find((l) => l.startsWith(`${id} `))).toMatch(/stopped: memory 2\d\dM over --max-memory 100M/);
  // A task under its limit runs on.
  const fine = await fleet.run("sleep 600", ["--max-memory", "1G"]);
  expect((await lsJson()).find((t) => t.id === fine)!.state).toBe("running");

  const bad = await fleet.cli(["run", "--max-memory", "2 gigs", "--", "true"]);
  expect(bad.code).toBe(2);
  expect(bad.stderr.trim()).toBe('fleetcom: run: --max-memory expects a size such as 2G or 512M, got "2 gigs"');
  expect((await lsJson()).length).toBe(2);
});

test("--max-memory under a restart policy: the run is stopped and started again, as pm2's max_memory_restart", async () => {
  // The group's leader catches the stop and leaves with 0: the stop still counts as a failure for on-failure.
  const id = await fleet.run(`trap 'exit 0' TERM; ${HOLD_200M} & wait`, ["--max-memory", "100M", "--restart", "on-failure"]);
  const restarted = await fleet.waitForTask(id, "restarted by its policy", (t) => t.restarts >= 1);
  expect(restarted.stopReason === null || /over --max-memory 100M$/.test(restarted.stopReason)).toBe(true);
  expect(restarted.restart).toBe("on-failure");
  expect(await fleet.peek(id)).toContain("fleetcom: stopped: memory");
  expect(readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8")).toMatch(new RegExp(`task ${id} stopped: memory \\d+M over --max-memory 100M`));
});

test("a recipe keeps max_memory: save writes it, load enforces it, a size that is no size fails the load naming the file", async () => {
  await fleet.run("sleep 600", ["--max-memory", "1536M", "--name", "bounded"]);
  await fleet.ok(["save", "bounded"]);
  const saved = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", "bounded.json"), "utf8"));
  expect(Object.values(saved.dirs).flat()).toEqual([{ cmd: "sleep 600", name: "bounded", max_memory: "1536M" }]);

  const dir = fleet.sandbox.home;
  const recipe = join(fleet.sandbox.root, "holder.json");
  writeFileSync(recipe, JSON.stringify({ version: 1, name: "holder", dirs: { [dir]: [{ cmd: HOLD_200M, name: "holder", max_memory: "100M" }] } }));
  await fleet.ok(["load", recipe]);
  const holder = await until("the loaded holder", async () => (await lsJson()).find((t) => t.name === "holder"));
  expect(holder.maxMemory).toBe(100 * MIB);
  const stopped = await fleet.waitForExit(holder.id);
  expect(stopped.stopReason).toMatch(/^memory 2\d\dM over --max-memory 100M$/);

  writeFileSync(recipe, JSON.stringify({ version: 1, name: "holder", dirs: { [dir]: [{ cmd: "sleep 1", max_memory: "lots" }] } }));
  const bad = await fleet.cli(["load", recipe]);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('max_memory of "sleep 1"');
  expect(bad.stderr).toContain('is "lots": expected a size such as "2G" or "512M"');
});

test.skipIf(!Tmux.available())(
  "nothing is sampled while no client shows the figures; the dashboard shows them, sorts by them, and sampling stops when it goes",
  async () => {
    const busy = await fleet.run(BUSY);
    const holder = await fleet.run(HOLD_200M);
    const before = (await status()).resources;
    expect(before.watchers).toBe(0);
    // Longer than a sampling interval, waited on as an event: a task that sleeps 3 s, to its exit.
    const sleeper = await fleet.run("sleep 3");
    await fleet.ok(["wait", String(sleeper), "--for", "exit"]);
    expect((await status()).resources.samples).toBe(before.samples);
    await fleet.ok(["ls"]);
    expect((await status()).resources.samples).toBe(before.samples + 1);

    tmux = new Tmux(fleet.env, fleet.sandbox.root);
    tmux.window("dash", shellWords(fleetcomArgv([])), { cols: 120, rows: 24 });
    const rowOf = (text: string, id: number) => text.split("\n").find((l) => new RegExp(`^..\\S . +${id} `).test(l)) ?? "";
    const cpuOf = (row: string) => Number(/ · (\d+)% \S+ · /.exec(row)?.[1] ?? -1);
    await tmux.waitFor(
      "dash",
      "the busy task's CPU and the holder's memory",
      (text) => cpuOf(rowOf(text, busy)) > 30 && / · \d+% 2\d\dM · /.test(rowOf(text, holder)),
    );
    await until("sampling for the dashboard", async () => (await status()).resources.watchers === 1);
    const during = (await status()).resources.samples;
    await until("samples while the dashboard shows them", async () => (await status()).resources.samples >= during + 2);

    // By memory, the holder goes before the busy task: `u` twice (CPU, then memory), named in the footer;
    // grouped by directory first, so that both are in one section whether or not they have gone idle.
    // Each key waits for the screen the last one made: two keys in one read (the busy task holds a core)
    // are a burst the dashboard drops (ui-dashboard-burst.ts).
    tmux.press("dash", "s");
    await tmux.waitFor("dash", "grouped by directory", (text) => text.split("\n")[0]!.endsWith(" · by directory"));
    tmux.press("dash", "u");
    await tmux.waitFor("dash", "sorted by CPU", (text) => text.includes("sorted by CPU · "));
    tmux.press("dash", "u");
    const byMemory = await tmux.waitFor("dash", "sorted by memory", (text) => text.includes("sorted by memory · "));
    const lines = byMemory.split("\n");
    expect(lines.indexOf(rowOf(byMemory, holder))).toBeLessThan(lines.indexOf(rowOf(byMemory, busy)));

    // The busy task's peek carries its last minute of CPU as bars, one a sample, the figures after them.
    tmux.type("dash", String(busy));
    await tmux.waitFor("dash", "the jump typed", (text) => text.includes(`go to task ${busy}`));
    tmux.press("dash", "Enter");
    await tmux.waitFor("dash", "the jump made", (text) => !text.includes("go to task") && rowOf(text, busy).startsWith("›"));
    tmux.press("dash", "Space");
    const spark = new RegExp(`── peek ${busy} .* · CPU [▁▂▃▄▅▆▇█]{2,} \\d+% · \\S+ ─`);
    await tmux.waitFor("dash", "the peek's CPU sparkline", (text) => spark.test(text));
    tmux.press("dash", "Escape");
    // The peek gone before q, so that the two keys never read as one Alt-q.
    await tmux.waitFor("dash", "the peek closed", (text) => !text.includes("── peek"));

    tmux.press("dash", "q");
    await tmux.waitForExit("dash");
    await until("no client showing them", async () => (await status()).resources.watchers === 0);
    const after = (await status()).resources.samples;
    const another = await fleet.run("sleep 3");
    await fleet.ok(["wait", String(another), "--for", "exit"]);
    expect((await status()).resources.samples).toBe(after);
  },
);

test("an ls of a fleet with no running task reads nothing of /proc; one with a running task samples it", async () => {
  // The cold start's ls meets an empty fleet: every process on the machine would be read for no row.
  await fleet.ok(["ls"]);
  await fleet.ok(["ls", "--json"]);
  expect((await status()).resources.samples).toBe(0);
  const ended = await fleet.run("true");
  await fleet.waitForExit(ended);
  await fleet.ok(["ls"]);
  expect((await status()).resources.samples).toBe(0);

  const sleeper = await fleet.run("sleep 600");
  const listed = await lsUntil(sleeper, "sampled", (t) => t.rss !== null);
  expect(listed.rss!).toBeGreaterThan(0);
  expect((await status()).resources.samples).toBeGreaterThan(0);
});
