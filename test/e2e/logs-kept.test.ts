// Each task's log on disk (docs/logs.md), through the binary: everything a task printed is in `logs`
// beyond the scrollback, with its times (--since, --until, -t), across reruns and restarts; a small
// log_max drops the oldest part only; history = false writes nothing and says so; a full disk stops
// the log's writes with one warning and never the task or the daemon.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { crashDaemon, recoveryDirOf } from "../harness/recovery-helpers.ts";
import { isSnapshotName } from "../../src/recipe-snapshot-rules.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => {
  fleet = f;
  fleet.env.FLEETCOM_LOG_INTERVAL_MS = "100";
});

const logLines = async (args: string[]) => (await fleet.ok(["logs", ...args])).replace(/\n$/, "").split("\n");

/** The log part files of every history directory of the sandbox's recovery directory. */
function logParts(): { name: string; bytes: number }[] {
  const dir = recoveryDirOf(fleet);
  if (!existsSync(dir)) return [];
  const parts: { name: string; bytes: number }[] = [];
  for (const history of readdirSync(dir).filter((n) => n.endsWith(".history"))) {
    for (const name of readdirSync(join(dir, history)).filter((n) => n.endsWith(".log"))) parts.push({ name, bytes: statSync(join(dir, history, name)).size });
  }
  return parts;
}

function historyDir(): string {
  const dir = recoveryDirOf(fleet);
  const name = readdirSync(dir).find((n) => n.endsWith(".history"));
  if (!name) throw new Error("no history directory");
  return join(dir, name);
}

test("200,000 lines printed are all in logs, far beyond the scrollback", async () => {
  const id = await fleet.run("seq 1 200000", ["--name", "flood"]);
  await fleet.waitForExit(id, 60_000);
  const lines = await logLines([String(id)]);
  expect(lines.length).toBe(200_000);
  expect(lines[0]).toBe("1");
  expect(lines[199_999]).toBe("200000");
  // Every line once, in order.
  expect(lines.every((l, i) => l === String(i + 1))).toBe(true);
  expect(await logLines(["-n", "3", String(id)])).toEqual(["199998", "199999", "200000"]);
  // grep searches all of it, not only the scrollback.
  expect(await fleet.ok(["grep", "^17$", String(id)])).toContain("17");
  // status shows the space logs take.
  expect(await fleet.ok(["status"])).toMatch(/logs +\d+(\.\d)? (KiB|MiB) on disk \(at most 100 MiB per task\)/);
});

test("a tab stays in logs and grep, parting the words as the terminal showed them", async () => {
  const id = await fleet.run("printf 'ok\\tpkg\\t0.01s\\n'", ["--name", "tabs"]);
  await fleet.waitForExit(id);
  expect(await logLines([String(id)])).toEqual(["ok\tpkg\t0.01s"]);
  expect(await fleet.ok(["grep", "pkg", String(id)])).toContain("ok\tpkg\t0.01s");
});

test("--since, --until and -t choose and show lines by the time they were printed", async () => {
  const id = await fleet.run("echo early; sleep 1.2; echo late; sleep 30", ["--name", "timed"]);
  await until("the late line in the log", async () => (await fleet.ok(["logs", String(id)])).includes("late"));
  const stamped = await logLines(["-t", String(id)]);
  const stamp = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (.*)$/;
  expect(stamped.map((l) => stamp.exec(l)?.[2])).toEqual(["early", "late"]);
  const [early, late] = stamped.map((l) => Date.parse(stamp.exec(l)![1]!));
  expect(late! - early!).toBeGreaterThanOrEqual(1_000);
  // An RFC 3339 time between the two lines splits them.
  const between = new Date(early! + 500).toISOString();
  expect(await logLines(["--since", between, String(id)])).toEqual(["late"]);
  expect(await logLines(["--until", between, String(id)])).toEqual(["early"]);
  // A duration back from now, and a clock time.
  expect(await logLines(["--since", "1h", String(id)])).toEqual(["early", "late"]);
  expect(await fleet.ok(["logs", "--since", "1ms", String(id)])).toBe("");
  const clock = new Date(Date.now() + 60_000);
  const hhmm = `${String(clock.getHours()).padStart(2, "0")}:${String(clock.getMinutes()).padStart(2, "0")}`;
  // A clock time still ahead today is yesterday's: everything printed today is since it.
  expect(await logLines(["--since", hhmm, String(id)])).toEqual(["early", "late"]);
  const bad = await fleet.cli(["logs", "--since", "yesterday-ish", String(id)]);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain("--since: 'yesterday-ish' is not a duration");
});

test("a rerun's and a restart's logs follow the earlier run's, each under its separator", async () => {
  const id = await fleet.run('seq 1 5000; echo "end of run"', ["--name", "again"]);
  await fleet.waitForExit(id);
  await fleet.ok(["rerun", String(id)]);
  await fleet.waitForTask(id, "its second run to end", (t) => t.run === 2 && t.state === "exited");
  await fleet.ok(["restart", String(id)]);
  await fleet.waitForTask(id, "its third run to end", (t) => t.run === 3 && t.state === "exited");
  const lines = await logLines([String(id)]);
  // Three whole runs (far more than the scrollback), in order, under their separators.
  expect(lines.length).toBe(3 * 5001 + 2);
  expect(lines[5001]).toMatch(/^── run 2 · \d\d:\d\d:\d\d · after exit 0 ──$/);
  expect(lines[2 * 5001 + 1]).toMatch(/^── run 3 · \d\d:\d\d:\d\d · after exit 0 ──$/);
  for (const start of [0, 5002, 2 * 5001 + 2]) {
    expect(lines[start]).toBe("1");
    expect(lines[start + 5000]).toBe("end of run");
  }
});

test("after a SIGKILL of the daemon and recover, the log goes on after the marker, everything before it kept", async () => {
  fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = "100";
  fleet.env.FLEETCOM_HISTORY_INTERVAL_MS = "100";
  const runs = join(fleet.sandbox.root, "runs");
  const id = await fleet.run(`n=$(cat ${runs} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${runs}; seq -f "run $n line %g" 1 5000; exec sleep 600`);
  // A snapshot by its name: the supervisor's state file beside it (supervisor-….state.json) is there from the start.
  await until("the snapshot", () => readdirSync(recoveryDirOf(fleet)).some(isSnapshotName));
  await until("the whole first run in the log", () => logParts().reduce((sum, p) => sum + p.bytes, 0) > 5000 * 15);
  // The history beside it too: its time is the marker's.
  await until("the history on disk", () => existsSync(join(historyDir(), `${id}.txt.gz`)));
  await crashDaemon(fleet);
  await fleet.ok(["recover", "--latest"]);
  const [task] = await fleet.ls();
  await until("the second run in the log", async () => (await fleet.ok(["logs", String(task!.id)])).includes("run 2 line 5000"));
  const lines = await logLines([String(task!.id)]);
  expect(lines.length).toBe(10_001);
  expect(lines.slice(0, 5000)).toEqual(Array.from({ length: 5000 }, (_, i) => `run 1 line ${i + 1}`));
  expect(lines[5000]).toMatch(/^── restored from before \d{4}-\d\d-\d\d \d\d:\d\d UTC ──$/);
  expect(lines.slice(5001)).toEqual(Array.from({ length: 5000 }, (_, i) => `run 2 line ${i + 1}`));
});

test("at a small log_max, rotation drops the oldest part only: the newest lines stay, in order, within the cap", async () => {
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), 'log_max = "64K"\n');
  const id = await fleet.run("seq 1 100000", ["--name", "rotated"]);
  await fleet.waitForExit(id, 60_000);
  const lines = await logLines([String(id)]);
  const first = Number(lines[0]);
  expect(first).toBeGreaterThan(1);
  // From the first line kept to the last, nothing missing: whole parts went, oldest first.
  expect(lines.every((l, i) => l === String(first + i))).toBe(true);
  expect(lines[lines.length - 1]).toBe("100000");
  const total = logParts().reduce((sum, p) => sum + p.bytes, 0);
  // The cap, and at most one chunk of output over it (a part is begun between chunks).
  expect(total).toBeLessThanOrEqual(64 * 1024 + 64 * 1024);
  expect(total).toBeGreaterThan(32 * 1024);
  expect(await fleet.ok(["config"])).toMatch(/\nlog_max +64K +config\.toml:1\n/);
});

test("a removed task's log goes with it; the other task's stays", async () => {
  const gone = await fleet.run("echo secret-line", ["--name", "gone"]);
  const kept = await fleet.run("echo kept-line", ["--name", "kept"]);
  await fleet.waitForExit(gone);
  await fleet.waitForExit(kept);
  await until("both logs on disk", () => logParts().length === 2);
  await fleet.ok(["rm", String(gone)]);
  expect(logParts().map((p) => p.name)).toEqual([`${kept}.1.log`]);
  expect(await logLines([String(kept)])).toEqual(["kept-line"]);
});

test("history = false writes no log, and logs says so", async () => {
  fleet.env.FLEETCOM_HISTORY = "false";
  const id = await fleet.run("seq 1 3000", ["--name", "unkept"]);
  await fleet.waitForExit(id);
  const result = await fleet.cli(["logs", "-n", "2", String(id)]);
  expect(result.code).toBe(0);
  expect(result.stdout.trim().split("\n")).toEqual(["2999", "3000"]);
  expect(result.stderr).toContain("history = false keeps no log");
  expect(logParts()).toEqual([]);
  const timed = await fleet.cli(["logs", "-t", String(id)]);
  expect(timed.code).not.toBe(0);
  expect(timed.stderr).toContain("no log is kept (history = false)");
});

test("a log part replaced by a symlink, a FIFO or another user's file is refused, never written through", async () => {
  const target = join(fleet.sandbox.home, "target.txt");
  writeFileSync(target, "untouched\n");
  const plant: Record<string, (path: string) => void> = {
    "a symlink, not a log file": (path) => symlinkSync(target, path),
    "not a regular file": (path) => spawnSync("mkfifo", [path]),
    "owned by uid 65534": (path) => {
      writeFileSync(path, "someone else's\n");
      chownSync(path, 65534, 65534);
    },
  };
  for (const [refusal, replace] of Object.entries(plant)) {
    const id = await fleet.run("echo one; while read l; do echo $l; done");
    await until("its first line in the log", async () => (await fleet.ok(["logs", String(id)])).includes("one"));
    const dir = historyDir();
    const part = join(dir, readdirSync(dir).find((n) => n.startsWith(`${id}.`) && n.endsWith(".log"))!);
    rmSync(part);
    replace(part);
    await fleet.ok(["send", String(id), "two"]);
    await until(
      `the refusal (${refusal}) in status`,
      async () => (await fleet.ok(["status"])).includes(`task ${id}: `) && (await fleet.ok(["status"])).includes(refusal),
    );
    // The task goes on, and the daemon answers.
    await fleet.ok(["send", String(id), "three"]);
    await until("the task to echo on", async () => (await fleet.peek(id)).includes("three"));
    expect((await fleet.task(id)).state).toBe("running");
  }
  expect(await Bun.file(target).text()).toBe("untouched\n");
});

test("a full disk stops the log's writes with one warning, and the task and the daemon go on", async () => {
  // The recovery directory (where history and logs live) on a small disk of its own.
  const mountPoint = join(fleet.sandbox.config, "sessions", "recovery");
  mkdirSync(mountPoint, { recursive: true, mode: 0o700 });
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mountPoint]);
  if (mounted.status !== 0) {
    console.warn(`skipped: mounting a tmpfs is not permitted here (${String(mounted.stderr).trim()})`);
    return;
  }
  try {
    const id = await fleet.run("seq 1 200000; echo done-printing; sleep 30", ["--name", "filler"]);
    await until("the task to print its last line", async () => (await fleet.peek(id)).includes("done-printing"), 60_000);
    const status = await until("the warning in status", async () => {
      const text = await fleet.ok(["status"]);
      return /logs .*FAILING.*(No space left|ENOSPC|disk is full)/i.test(text) && text;
    });
    expect(status).toContain(`task ${id}`);
    expect((await fleet.task(id)).state).toBe("running");
    expect(await fleet.ok(["run", "--", "echo still-here"])).toMatch(/\d+/);
    const log = readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8");
    expect(log.match(/log writes stopped/g)?.length).toBe(1);
    // The dashboard's notices say it too.
    const dashboard = fleet.spawnClient([], { cols: 160, rows: 30 });
    await dashboard.waitForScreen("the notice", (screen) => screen.includes("log writes stopped") && screen.includes("the task runs on"));
    dashboard.kill();
  } finally {
    // The daemon first (it writes there), then the disk; the sandbox goes after the test.
    await fleet.cli(["--kill"]);
    const unmounted = spawnSync("umount", ["-l", mountPoint]);
    if (unmounted.status !== 0) console.error(`umount ${mountPoint} failed: ${String(unmounted.stderr).trim()}`);
  }
});
