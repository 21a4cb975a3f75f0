// Nobody else's process (issue 11, H2 and H3): fleetcom never signals a process it cannot prove is
// its own. PID reuse is forced inside a private PID namespace (`unshare --pid --fork --mount-proc`,
// root only), where writing /proc/sys/kernel/ns_last_pid hands a chosen number to the next process:
// an unrelated process group is given a finished task's old PID, or the dead daemon's, and then
// `rm`, `--kill` and the daemon's teardown run. When the namespace's first process exits, the kernel
// kills everything left in it, so nothing a scenario starts outlives it.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { entry, fleetcomArgv, makeSandbox, type Sandbox } from "../harness/helpers.ts";
import { isProcessAlive } from "../../src/platform.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { killProcessGroups, processesWithMarker, recoveryDirOf, snapshotFleet, snapshotNames, snapshotWrites } from "../harness/recovery-helpers.ts";
import { parseSnapshotName, snapshotFileName, snapshotLabel } from "../../src/recipe-snapshot-rules.ts";
import { latestSnapshot, listSnapshots } from "../../src/recipe-snapshots.ts";
import { formatRecipe } from "../../src/recipe.ts";
import { SnapshotWriter } from "../../src/daemon-snapshots.ts";

const CANNOT_UNSHARE = namespaceUnavailable();

function namespaceUnavailable(): string | null {
  if (process.platform !== "linux") return "PID namespaces are Linux-only";
  if (process.getuid?.() !== 0) return "needs root for unshare --pid and ns_last_pid";
  const probe = Bun.spawnSync(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c", "echo $$ > /proc/sys/kernel/ns_last_pid"]);
  return probe.exitCode === 0 ? null : `unshare --pid --mount-proc failed here: ${probe.stderr.toString().trim()}`;
}

/** A test that needs the PID namespace, skipped with the reason in its name when there is none. */
function nsTest(name: string, body: () => Promise<void>): void {
  if (CANNOT_UNSHARE) test.skip(`${name} (skipped: ${CANNOT_UNSHARE})`, body);
  else test(name, body, 120_000);
}

const shellQuote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

// What every scenario starts with: fleetcom as the tests run it, helpers that wait on events (never
// a fixed sleep), and `victim_at P`, which gives P to a new session and group leader.
const PRELUDE = `
set -u
fc() { ${fleetcomArgv([]).map(shellQuote).join(" ")} "$@"; }
say() { echo "$*"; }
setup_failed() { say "SETUP-FAILED $*"; exit 0; }
# The PID wanted was taken first (a thread the daemon started takes a number too): not the rule's
# failure, so the scenario runs again in a new namespace.
setup_raced() { say "SETUP-RACED $*"; exit 0; }
task_pid() { fc ls --json | tr -d ' \\n' | tr '{' '\\n' | sed -n "s/.*\\"id\\":$1,.*\\"pid\\":\\([0-9]*\\).*/\\1/p"; }
alive() { [ -r /proc/$1/stat ] && [ "$(sed 's/.*) //' /proc/$1/stat | cut -d' ' -f1)" != Z ]; }
status() { if alive $1; then echo alive; else echo killed; fi; }
gone() { ! alive $1; }
wait_until() { local n=0; until "$@"; do n=$((n+1)); [ $n -gt 600 ] && setup_failed "timed out: $*"; sleep 0.05; done; }
# The next process created in this namespace gets PID $1: a setsid'd sleep, leading its own session
# and group, exactly like a task. Nothing else forks between the write and the fork.
victim_at() {
  echo $(($1 - 1)) > /proc/sys/kernel/ns_last_pid
  setsid sleep 1000 &
  VICTIM=$!
  [ "$VICTIM" = "$1" ] || setup_raced "victim got pid $VICTIM, not $1"
  wait_until grep -q '^[0-9]* (sleep)' /proc/$VICTIM/stat
  local pgrp=$(sed 's/.*) //' /proc/$VICTIM/stat | cut -d' ' -f3)
  [ "$pgrp" = "$1" ] || setup_failed "victim's group is $pgrp, not $1"
  say "VICTIM $VICTIM"
}
`;

const SETUP_ATTEMPTS = 3;

/**
 * Runs the scenario in a PID namespace of its own, each attempt in a new sandbox, and returns what
 * it said (`KEY value` lines). A set-up that raced for a PID runs again, at most SETUP_ATTEMPTS times.
 */
async function inNamespace(name: string, body: string): Promise<Map<string, string>> {
  for (let attempt = 1; ; attempt++) {
    const sandbox = makeSandbox();
    try {
      const { facts, output } = await runScenario(sandbox, name, body);
      if (facts.has("SETUP-RACED") && attempt < SETUP_ATTEMPTS) continue;
      const failed = facts.get("SETUP-FAILED") ?? facts.get("SETUP-RACED");
      if (failed !== undefined) throw new Error(`scenario set-up failed: ${failed}\n${output}`);
      if (!facts.has("DONE")) throw new Error(`scenario did not finish:\n${output}`);
      return facts;
    } finally {
      sandbox.cleanup();
    }
  }
}

async function runScenario(sandbox: Sandbox, name: string, body: string): Promise<{ facts: Map<string, string>; output: string }> {
  const script = join(sandbox.root, `${name}.sh`);
  writeFileSync(script, PRELUDE + body, { mode: 0o700 });
  const proc = Bun.spawn(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "bash", script], {
    env: sandbox.env,
    cwd: sandbox.home,
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const facts = new Map<string, string>();
    for (const line of stdout.split("\n")) {
      const space = line.indexOf(" ");
      if (space > 0) facts.set(line.slice(0, space), line.slice(space + 1));
    }
    return { facts, output: `${stdout}\n${stderr}` };
  } finally {
    proc.kill("SIGKILL"); // --kill-child takes the whole namespace with it
  }
}

describe("a finished task's PID given to an unrelated process group (H2)", () => {
  nsTest("rm never signals it, and still sweeps what its own finished task left behind", async () => {
    const facts = await inNamespace(
      "rm",
      `
fc run -- true >/dev/null || setup_failed "run"
fc wait 1 --for exit --timeout 30 >/dev/null || setup_failed "wait 1"
P=$(task_pid 1); say "TASK-PID $P"
victim_at $P
fc run -- "trap '' HUP; sleep 400 & echo kids: \\$!" >/dev/null || setup_failed "run 2"
fc wait 2 --for exit --timeout 30 >/dev/null || setup_failed "wait 2"
KID=$(fc peek 2 | sed -n 's/^kids: //p'); alive $KID || setup_failed "left-behind child $KID not running"
say "RM $(fc rm 1 2 2>&1 | tr '\\n' ' ')"
say "VICTIM-AFTER-RM $(status $VICTIM)"
wait_until gone $KID
say "KID-AFTER-RM $(status $KID)"
fc --kill >/dev/null
say "VICTIM-AFTER-KILL $(status $VICTIM)"
say "DONE ok"
`,
    );
    // One match over every fact, so a failure shows all the scenario said.
    expect(Object.fromEntries(facts)).toMatchObject({
      VICTIM: facts.get("TASK-PID"),
      RM: expect.not.stringContaining("fleetcom:"),
      "VICTIM-AFTER-RM": "alive",
      "KID-AFTER-RM": "killed",
      "VICTIM-AFTER-KILL": "alive",
    });
  });

  nsTest("the daemon's teardown (--kill) never signals it, and still ends the running tasks", async () => {
    const facts = await inNamespace(
      "teardown",
      `
fc run -- true >/dev/null || setup_failed "run"
fc wait 1 --for exit --timeout 30 >/dev/null || setup_failed "wait 1"
P=$(task_pid 1); say "TASK-PID $P"
victim_at $P
fc run -- "sleep 300" >/dev/null || setup_failed "run 2"
S=$(task_pid 2); alive $S || setup_failed "task 2 not running"
say "KILL $(fc --kill 2>&1 | tr '\\n' ' ')"
say "VICTIM-AFTER-KILL $(status $VICTIM)"
wait_until gone $S
say "DONE ok"
`,
    );
    expect(Object.fromEntries(facts)).toMatchObject({
      VICTIM: facts.get("TASK-PID"),
      KILL: expect.stringContaining("stopped daemon"),
      "VICTIM-AFTER-KILL": "alive",
    });
  });

  nsTest("a killed task's PID reused: rm of it signals nobody", async () => {
    const facts = await inNamespace(
      "killed",
      `
fc run -- "sleep 300" >/dev/null || setup_failed "run"
P=$(task_pid 1); say "TASK-PID $P"
fc kill 1 >/dev/null || setup_failed "kill"
# wait --for exit ends with the task's own code: 143, killed by TERM.
fc wait 1 --for exit --timeout 30 >/dev/null; [ $? = 143 ] || setup_failed "wait"
victim_at $P
say "RM $(fc rm 1 2>&1 | tr '\\n' ' ')"
say "VICTIM-AFTER-RM $(status $VICTIM)"
fc --kill >/dev/null
say "DONE ok"
`,
    );
    expect(Object.fromEntries(facts)).toMatchObject({ VICTIM: facts.get("TASK-PID"), "VICTIM-AFTER-RM": "alive" });
  });
});

describe("a SIGKILLed daemon's tasks end with it; a reused PID does not (issue 39, G5)", () => {
  nsTest("a task that ignores SIGHUP, SIGTERM and SIGINT is killed by the task reaper; a finished task's PID, now another group's, is not", async () => {
    const facts = await inNamespace(
      "reaper",
      `
fc run -- true >/dev/null || setup_failed "run"
fc wait 1 --for exit --timeout 30 >/dev/null || setup_failed "wait 1"
P=$(task_pid 1); say "TASK-PID $P"
fc run -- "trap '' HUP TERM INT; sleep 300; :" >/dev/null || setup_failed "run 2"
S=$(task_pid 2); alive $S || setup_failed "task 2 not running"
victim_at $P
D=$(cat "$FLEETCOM_RUNTIME_DIR/daemon.lock")
kill -9 $D
wait_until gone $D
# The reaper polls the daemon each second; on a loaded machine its forks come late, so the wait is generous.
n=0; while alive $S && [ $n -lt 300 ]; do n=$((n+1)); sleep 0.05; done
say "TASK-AFTER-CRASH $(status $S)"
say "VICTIM-AFTER-CRASH $(status $VICTIM)"
say "DONE ok"
`,
    );
    expect(Object.fromEntries(facts)).toMatchObject({
      VICTIM: facts.get("TASK-PID"),
      "TASK-AFTER-CRASH": "killed",
      "VICTIM-AFTER-CRASH": "alive",
    });
  });
});

describe("fleetcom --kill and the PID in daemon.lock (H3)", () => {
  nsTest("after a crash, an unrelated process holding the dead daemon's PID is not signalled", async () => {
    const facts = await inNamespace(
      "stale-lock",
      `
fc run -- "sleep 100" >/dev/null || setup_failed "run"
D=$(cat "$FLEETCOM_RUNTIME_DIR/daemon.lock"); say "DAEMON $D"
kill -9 $D
wait_until gone $D
wait_until [ ! -e /proc/$D ]
echo $((D - 1)) > /proc/sys/kernel/ns_last_pid
sleep 1000 &
VICTIM=$!; [ "$VICTIM" = "$D" ] || setup_raced "victim got pid $VICTIM, not $D"
say "VICTIM $VICTIM"
say "LOCK-SAYS $(cat "$FLEETCOM_RUNTIME_DIR/daemon.lock")"
OUT=$(fc --kill 2>&1); say "KILL-EXIT $?"; say "KILL $(echo $OUT)"
say "VICTIM-AFTER-KILL $(status $VICTIM)"
say "FILES-LEFT $(ls "$FLEETCOM_RUNTIME_DIR" | grep -x -e default.sock -e daemon.lock | tr '\\n' ' ')."
say "DONE ok"
`,
    );
    expect(Object.fromEntries(facts)).toMatchObject({
      VICTIM: facts.get("DAEMON"),
      "LOCK-SAYS": facts.get("DAEMON"),
      KILL: "no daemon running",
      "KILL-EXIT": "0",
      "VICTIM-AFTER-KILL": "alive",
      // The stale socket and lock are cleaned away.
      "FILES-LEFT": ".",
    });
  });

  describe("with a live daemon", () => {
    let fleet: Fleet;
    beforeEach(() => (fleet = new Fleet()));
    afterEach(() => fleet.stop());

    test("a PID written into daemon.lock is never trusted: --kill stops the daemon, not that process", async () => {
      await fleet.run("sleep 300");
      const daemon = fleet.daemonPid()!;
      const victim = Bun.spawn(["sleep", "1000"], { stdout: "ignore", stderr: "ignore" });
      try {
        writeFileSync(join(fleet.sandbox.runtime, "daemon.lock"), `${victim.pid}\n`);
        expect(readFileSync(join(fleet.sandbox.runtime, "daemon.lock"), "utf8").trim()).toBe(String(victim.pid));
        const r = await fleet.cli(["--kill"]);
        expect(r.stdout.trim()).toBe(`stopped daemon ${daemon}`);
        expect(isProcessAlive(daemon)).toBe(false);
        expect(victim.exitCode).toBeNull();
        expect(isProcessAlive(victim.pid)).toBe(true);
      } finally {
        victim.kill("SIGKILL");
        await victim.exited;
        // On the old code the daemon survives this test and the lock no longer names it.
        if (isProcessAlive(daemon)) process.kill(daemon, "SIGTERM");
      }
    });

    test("a daemon that does not answer on its socket is still stopped when /proc proves it holds the lock", async () => {
      if (process.platform !== "linux") return; // the proof without a socket is /proc's
      await fleet.run("sleep 300");
      const daemon = fleet.daemonPid()!;
      // The socket file gone (deleted by hand): only the lock proves the daemon now.
      Bun.spawnSync(["rm", "-f", join(fleet.sandbox.runtime, "default.sock")]);
      const r = await fleet.cli(["--kill"]);
      expect(r.stdout.trim()).toBe(`stopped daemon ${daemon}`);
      await until("daemon gone", () => !isProcessAlive(daemon));
    });
  });
});

describe("a crashed long-lived fleet among ten later supervisors that died (H4)", () => {
  const DEAD_PID = 2 ** 22 + 1; // above Linux's largest pid_max: never a running process
  const MINUTE = 60_000;

  describe("the writer's prune and the store, on files", () => {
    let sandbox: Sandbox;
    let dir: string;
    let env: Record<string, string>;
    beforeEach(() => {
      sandbox = makeSandbox();
      env = sandbox.env;
      dir = join(sandbox.config, "sessions", "recovery");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    });
    afterEach(() => sandbox.cleanup());

    /** A snapshot of `tasks` sleeps by a supervisor started at `startedAt`, last written at `writtenAt`. */
    function snapshot(pid: number, startedAt: number, writtenAt: number, tasks: number): string {
      const name = snapshotFileName(new Date(startedAt), pid);
      const entries = Array.from({ length: tasks }, (_, i) => entry(sandbox.home, `sleep ${3600 + i}`));
      writeFileSync(join(dir, name), formatRecipe(snapshotLabel(new Date(writtenAt)), entries, sandbox.home), { mode: 0o600 });
      utimesSync(join(dir, name), new Date(writtenAt), new Date(writtenAt));
      return name;
    }

    /** One pass of a real writer, as the next supervisor's first pass after a change. */
    function nextSupervisorPass(): string {
      const source = { startedAt: new Date(), recipe: () => [entry(sandbox.home, "sleep 1")] };
      const writer = new SnapshotWriter(source, { dir, home: sandbox.home, debounceMs: 100, checkMs: 3_600_000, log: () => {} });
      writer.pass();
      return snapshotFileName(source.startedAt, process.pid);
    }

    test("the crashed fleet's snapshot, oldest by name but newest by write, survives and --latest picks it", () => {
      const now = Date.now();
      const crashed = snapshot(DEAD_PID, now - 120 * MINUTE, now - MINUTE, 320);
      const later = Array.from({ length: 10 }, (_, i) => snapshot(DEAD_PID + 1 + i, now - (100 - i) * MINUTE, now - (90 - i) * MINUTE, 1));
      const own = nextSupervisorPass();
      const left = readdirSync(dir);
      expect(left).toContain(crashed);
      expect(left).toContain(own);
      // Eleven candidates: the crashed fleet and the eight later files written last survive.
      expect(left.filter((n) => later.includes(n)).sort()).toEqual(later.slice(2).sort());
      const latest = latestSnapshot(own, env, sandbox.home);
      expect(latest.file).toBe(join(dir, crashed));
      expect(latest.entries).toHaveLength(320);
      // --list: newest written first, the next supervisor's own file, then the crashed fleet.
      expect(
        listSnapshots(env, sandbox.home)
          .map((s) => [s.file.slice(dir.length + 1), s.tasks])
          .slice(0, 2),
      ).toEqual([
        [own, 1],
        [crashed, 320],
      ]);
    });

    test("a running PID whose process started after the name's start time is a reused PID: no protection", async () => {
      const now = Date.now();
      // This test's own PID, in a name from a day ago: the process with it started long after.
      const reused = snapshot(process.pid, now - 24 * 60 * MINUTE, now - 200 * MINUTE, 2);
      // A live writer: a process started now, named with its start time: protected though oldest.
      const writer = Bun.spawn(["sleep", "1000"], { stdout: "ignore", stderr: "ignore" });
      try {
        await until("the writer running", () => existsSync(`/proc/${writer.pid}/stat`) || process.platform !== "linux");
        const live = snapshot(writer.pid, now - 1_000, now - 300 * MINUTE, 2);
        for (let i = 0; i < 10; i++) snapshot(DEAD_PID + i, now - (100 - i) * MINUTE, now - (90 - i) * MINUTE, 1);
        nextSupervisorPass();
        const left = readdirSync(dir);
        expect(left).toContain(live);
        if (process.platform === "linux") expect(left).not.toContain(reused); // without /proc a running PID is trusted
      } finally {
        writer.kill("SIGKILL");
        await writer.exited;
      }
    });
  });

  describe("end to end", () => {
    const mark = `fleetcom-h4-${process.pid}`;
    let crashedFleet: Fleet;
    let nextFleet: Fleet;
    beforeEach(() => {
      crashedFleet = snapshotFleet();
      crashedFleet.env.FLEETCOM_H4_MARK = mark;
      // The next daemon: another runtime directory, the same config directory and home.
      nextFleet = snapshotFleet();
      nextFleet.env.FLEETCOM_CONFIG_DIR = crashedFleet.env.FLEETCOM_CONFIG_DIR!;
      nextFleet.env.HOME = crashedFleet.env.HOME!;
    });
    afterEach(async () => {
      killProcessGroups(processesWithMarker(`FLEETCOM_H4_MARK=${mark}`));
      await nextFleet.stop();
      await crashedFleet.stop();
    });

    test("a SIGKILLed daemon's fleet survives the next daemon's first prune, and recover --latest offers it", async () => {
      for (const name of ["api", "web", "worker"]) await crashedFleet.run("sleep 300", ["--name", name]);
      const dir = recoveryDirOf(crashedFleet);
      const daemon = crashedFleet.daemonPid()!;
      const file = await until("the fleet's snapshot of three tasks", () => {
        const found = listSnapshots(crashedFleet.env, crashedFleet.sandbox.home).find((s) => s.tasks === 3);
        return found?.file;
      });
      const name = file.slice(dir.length + 1);
      const startedAt = parseSnapshotName(name)!.startedAt.getTime();
      const lastWrite = statSync(file).mtimeMs;
      // Ten supervisors started after this daemon and died before its last write.
      for (let i = 0; i < 10; i++) {
        const later = join(dir, snapshotFileName(new Date(startedAt + (i + 1) * 1_000), DEAD_PID + i));
        writeFileSync(later, formatRecipe(snapshotLabel(new Date(lastWrite)), [entry(crashedFleet.sandbox.home, `sleep ${i}`)], crashedFleet.sandbox.home), {
          mode: 0o600,
        });
        const at = new Date(lastWrite - (100 - i) * 1_000);
        utimesSync(later, at, at);
      }
      process.kill(daemon, "SIGKILL");
      await until("the daemon gone", () => !isProcessAlive(daemon));
      // The user starts one thing first: the next daemon's first pass writes and prunes.
      await nextFleet.run("sleep 301");
      await until("the next daemon's first snapshot pass", () => snapshotWrites(nextFleet) >= 1);
      expect(existsSync(file)).toBe(true);
      // The next daemon's file, the crashed fleet's, and the eight later ones written last.
      expect(snapshotNames(crashedFleet)).toHaveLength(10);
      const r = await nextFleet.cli(["recover", "--latest", "--dry-run"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`from ${file}`);
      expect(r.stdout).toContain("3 task(s) would start");
    });
  });
});
