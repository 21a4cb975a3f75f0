// Nobody else's process (issue 11, H2 and H3): fleetcom never signals a process it cannot prove is
// its own. PID reuse is forced inside a private PID namespace (`unshare --pid --fork --mount-proc`,
// root only), where writing /proc/sys/kernel/ns_last_pid hands a chosen number to the next process:
// an unrelated process group is given a finished task's old PID, or the dead daemon's, and then
// `rm`, `--kill` and the daemon's teardown run. When the namespace's first process exits, the kernel
// kills everything left in it, so nothing a scenario starts outlives it.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fleetcomArgv, makeSandbox, type Sandbox } from "./helpers.ts";
import { groupIsTheTasks, type GroupIdentity } from "../src/process-group.ts";
import type { ProcStat } from "../src/proc.ts";
import { isProcessAlive } from "../src/runtime.ts";
import { Fleet, until } from "./fleet.ts";

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
  [ "$VICTIM" = "$1" ] || setup_failed "victim got pid $VICTIM, not $1"
  wait_until grep -q '^[0-9]* (sleep)' /proc/$VICTIM/stat
  local pgrp=$(sed 's/.*) //' /proc/$VICTIM/stat | cut -d' ' -f3)
  [ "$pgrp" = "$1" ] || setup_failed "victim's group is $pgrp, not $1"
  say "VICTIM $VICTIM"
}
`;

async function inNamespace(sandbox: Sandbox, name: string, body: string): Promise<Map<string, string>> {
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
    if (facts.has("SETUP-FAILED")) throw new Error(`scenario set-up failed: ${facts.get("SETUP-FAILED")}\n${stdout}\n${stderr}`);
    if (!facts.has("DONE")) throw new Error(`scenario did not finish:\n${stdout}\n${stderr}`);
    return facts;
  } finally {
    proc.kill("SIGKILL"); // --kill-child takes the whole namespace with it
  }
}

describe("a finished task's PID given to an unrelated process group (H2)", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => sandbox.cleanup());

  nsTest("rm never signals it, and still sweeps what its own finished task left behind", async () => {
    const facts = await inNamespace(sandbox, "rm", `
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
`);
    expect(facts.get("VICTIM")).toBe(facts.get("TASK-PID"));
    expect(facts.get("RM")).not.toContain("fleetcom:");
    expect(facts.get("VICTIM-AFTER-RM")).toBe("alive");
    expect(facts.get("KID-AFTER-RM")).toBe("killed");
    expect(facts.get("VICTIM-AFTER-KILL")).toBe("alive");
  });

  nsTest("the daemon's teardown (--kill) never signals it, and still ends the running tasks", async () => {
    const facts = await inNamespace(sandbox, "teardown", `
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
`);
    expect(facts.get("VICTIM")).toBe(facts.get("TASK-PID"));
    expect(facts.get("KILL")).toContain("stopped daemon");
    expect(facts.get("VICTIM-AFTER-KILL")).toBe("alive");
  });

  nsTest("a killed task's PID reused: rm of it signals nobody", async () => {
    const facts = await inNamespace(sandbox, "killed", `
fc run -- "sleep 300" >/dev/null || setup_failed "run"
P=$(task_pid 1); say "TASK-PID $P"
fc kill 1 >/dev/null || setup_failed "kill"
fc wait 1 --for exit --timeout 30 >/dev/null || setup_failed "wait"
victim_at $P
say "RM $(fc rm 1 2>&1 | tr '\\n' ' ')"
say "VICTIM-AFTER-RM $(status $VICTIM)"
fc --kill >/dev/null
say "DONE ok"
`);
    expect(facts.get("VICTIM")).toBe(facts.get("TASK-PID"));
    expect(facts.get("VICTIM-AFTER-RM")).toBe("alive");
  });
});

describe("fleetcom --kill and the PID in daemon.lock (H3)", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => sandbox.cleanup());

  nsTest("after a crash, an unrelated process holding the dead daemon's PID is not signalled", async () => {
    const facts = await inNamespace(sandbox, "stale-lock", `
fc run -- "sleep 100" >/dev/null || setup_failed "run"
D=$(cat "$FLEETCOM_RUNTIME_DIR/daemon.lock"); say "DAEMON $D"
kill -9 $D
wait_until gone $D
wait_until [ ! -e /proc/$D ]
echo $((D - 1)) > /proc/sys/kernel/ns_last_pid
sleep 1000 &
VICTIM=$!; [ "$VICTIM" = "$D" ] || setup_failed "victim got pid $VICTIM, not $D"
say "VICTIM $VICTIM"
say "LOCK-SAYS $(cat "$FLEETCOM_RUNTIME_DIR/daemon.lock")"
OUT=$(fc --kill 2>&1); say "KILL-EXIT $?"; say "KILL $(echo $OUT)"
say "VICTIM-AFTER-KILL $(status $VICTIM)"
say "FILES-LEFT $(ls "$FLEETCOM_RUNTIME_DIR" | grep -x -e default.sock -e daemon.lock | tr '\\n' ' ')."
say "DONE ok"
`);
    expect(facts.get("VICTIM")).toBe(facts.get("DAEMON"));
    expect(facts.get("LOCK-SAYS")).toBe(facts.get("DAEMON"));
    expect(facts.get("KILL")).toBe("no daemon running");
    expect(facts.get("KILL-EXIT")).toBe("0");
    expect(facts.get("VICTIM-AFTER-KILL")).toBe("alive");
    // The stale socket and lock are cleaned away.
    expect(facts.get("FILES-LEFT")).toBe(".");
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

describe("the proof that a process group is still the task's (pure rule)", () => {
  const P = 500;
  const held: GroupIdentity = { pgid: P, leaderStart: 1_000, reapedAt: null };
  const reaped: GroupIdentity = { ...held, reapedAt: 2_000 };
  const proc = (pid: number, start: number, over: Partial<ProcStat> = {}): ProcStat => ({ pid, state: "S", pgrp: P, session: P, start, ...over });
  const cases: [string, GroupIdentity, ProcStat[] | null, boolean][] = [
    ["the leader itself, not yet reaped", held, [proc(P, 1_000)], true],
    ["the leader as a zombie, not yet reaped", held, [proc(P, 1_000, { state: "Z" })], true],
    ["the leader's PID held by a later process: reused, whoever else is in the group", reaped, [proc(P, 5_000), proc(600, 1_500)], false],
    ["the leader's PID reused before the reap was reported", held, [proc(P, 5_000)], false],
    ["leader reaped, a member of its session started before the reap", reaped, [proc(600, 1_500)], true],
    ["leader reaped, only members started after the reap (a new session with the old number)", reaped, [proc(600, 2_000), proc(601, 9_000)], false],
    ["leader reaped, a member of the group in another session", reaped, [proc(600, 1_500, { session: 42 })], false],
    ["leader reaped, only zombies left", reaped, [proc(600, 1_500, { state: "Z" })], false],
    ["leader reaped, a member older than the leader", reaped, [proc(600, 999)], false],
    ["leader reaped, nothing left", reaped, [], false],
    ["no /proc: held", held, null, true],
    ["no /proc: reaped", reaped, null, false],
    ["start unknown: held", { ...held, leaderStart: null }, [proc(P, 1_000)], true],
    ["start unknown: reaped", { ...reaped, leaderStart: null }, [proc(600, 1_500)], false],
  ];
  for (const [name, id, stats, expected] of cases) {
    test(`${name}: ${expected ? "signal" : "never signal"}`, () => {
      expect(groupIsTheTasks(id, stats, 3_000)).toBe(expected);
    });
  }
});
