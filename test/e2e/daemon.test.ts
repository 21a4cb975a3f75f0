// The daemon's life: autostart, the single-daemon guarantee, stale takeover, the runtime directory's
// trust checks and teardown (its events: daemon-events; misbehaving clients: daemon-hostile).
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { encodeControl } from "../../src/wire-framing.ts";
import { isProcessAlive } from "../../src/platform.ts";
import { daemonsOf, eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { RawClient } from "../harness/raw-client.ts";
import { fleetcomArgv } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

// The early autostart (client-early-start.ts) is the compiled binary's under Bun. An empty
// XDG_RUNTIME_DIR keeps systemd-run out of it wherever the machine has one.
const EARLY = Boolean(process.env.FLEETCOM_TEST_BIN) && process.env.FLEETCOM_TEST_RUNTIME !== "deno";
const NO_SCOPE = { XDG_RUNTIME_DIR: "" };

/**
 * The connections waiting in the backlog of the socket `pid` listens on, or taken: /proc/net/unix lists
 * each under the path its listener was bound at (the daemon binds a temporary name, then renames it).
 */
function connectionsTo(pid: number): number {
  const inodes = new Set(readdirSync(`/proc/${pid}/fd`).flatMap((fd) => /^socket:\[(\d+)\]$/.exec(readlinkSafe(`/proc/${pid}/fd/${fd}`))?.[1] ?? []));
  const rows = readFileSync("/proc/net/unix", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/));
  const LISTENING = "00010000";
  const listener = rows.find((row) => row[3] === LISTENING && inodes.has(row[6]!) && row[7] !== undefined);
  if (!listener) throw new Error(`process ${pid} listens on no named Unix socket`);
  return rows.filter((row) => row[7] === listener[7]).length - 1;
}

const readlinkSafe = (path: string) => {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
};

const killIfThere = (pid: number) => {
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
};

describe.skipIf(!EARLY)("the early autostart", () => {
  test("a cold ls starts its daemon before anything else loads: the daemon opens its own log, and no task inherits what it was told", async () => {
    expect((await fleet.cli(["ls"], { env: NO_SCOPE })).code).toBe(0);
    const log = readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8");
    expect(log).toContain("started early by a client, before it had checked for a daemon; this log opened by the daemon");
    expect(log).toMatch(/daemon \d+ listening on /);
    const id = await fleet.run("env; echo env-done; exec sleep 60");
    const screen = await until("the task's environment", async () => {
      const text = await fleet.ok(["peek", String(id)]);
      return text.includes("env-done") && text;
    });
    expect(screen).toContain("FLEETCOM_RUNTIME_DIR=");
    expect(screen).not.toContain("FLEETCOM_OPEN_LOG");
    expect(screen).not.toContain("FLEETCOM_READY_FD");
  });

  test("one that ends before it listens, its output nowhere, is started again as before: its log says why", async () => {
    const lock = join(fleet.sandbox.runtime, "daemon.lock");
    mkdirSync(fleet.sandbox.runtime, { mode: 0o700, recursive: true });
    mkdirSync(lock); // no daemon can take a lock that is a directory
    try {
      const r = await fleet.cli(["ls"], { env: NO_SCOPE });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^fleetcom: the daemon \(pid \d+\) exited with status 1 before it listened; see .*daemon\.log\n$/);
      expect(readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8")).toContain("EISDIR");
    } finally {
      rmSync(lock, { recursive: true });
    }
  });
});

describe("daemon lifecycle", () => {
  test("ten clients autostarting at the same moment end with exactly one daemon and are all served", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => fleet.cli(["ls", "--json"])));
    expect(results.map((r) => r.code)).toEqual(Array(10).fill(0));
    expect(results.every((r) => JSON.parse(r.stdout).length === 0)).toBe(true);
    const pid = fleet.daemonPid()!;
    expect(isProcessAlive(pid)).toBe(true);
    await until("losing daemons to exit", () => daemonsOf(fleet.sandbox.runtime).length === 1);
    expect(daemonsOf(fleet.sandbox.runtime)).toEqual([pid]);
  });

  test("clients that start the daemon before their code loads (bare ls, run CMD) race to one daemon too", async () => {
    const lines = Array.from({ length: 8 }, (_, i) => (i % 2 ? ["ls"] : ["run", "true"]));
    const results = await Promise.all(lines.map((argv) => fleet.cli(argv)));
    expect(results.map((r) => [r.code, r.stderr])).toEqual(Array(8).fill([0, ""]));
    await until("losing daemons to exit", () => daemonsOf(fleet.sandbox.runtime).length === 1);
    expect(daemonsOf(fleet.sandbox.runtime)).toEqual([fleet.daemonPid()!]);
    expect((await fleet.ls()).length).toBe(4);
  });

  test("a line refused for its words starts no daemon, though its command would have", async () => {
    for (const argv of [
      ["ls", "--bogus"],
      ["run", "--bogus", "true"],
      ["run", "-x", "true"],
    ]) {
      const r = await fleet.cli(argv);
      expect(r.code).toBe(2);
      expect(fleet.daemonPid()).toBeNull();
      // Nor one spawned that has not taken its lock yet: it is there from the moment it is spawned.
      expect(daemonsOf(fleet.sandbox.runtime)).toEqual([]);
    }
  });

  test("a socket still listening for a process that is gone is no daemon: status says so", async () => {
    // What a killed daemon can leave for a moment: its listening socket, held by no live daemon.
    // Here the process that listened exits and a child of its keeps the socket, never accepting.
    mkdirSync(fleet.sandbox.runtime, { mode: 0o700 });
    const socket = join(fleet.sandbox.runtime, "default.sock");
    const holder = Bun.spawnSync([
      "python3",
      "-c",
      "import os,socket,sys,time\ns=socket.socket(socket.AF_UNIX);s.bind(sys.argv[1]);s.listen(8)\nchild=os.fork()\nif child==0:\n  os.close(1);os.close(2);time.sleep(60);os._exit(0)\nprint(os.getpid(),child)",
      socket,
    ]);
    const [gone, keeper] = holder.stdout.toString().trim().split(" ").map(Number) as [number, number];
    try {
      await until("the listener's maker to be gone", () => !isProcessAlive(gone));
      const status = await fleet.cli(["status"]);
      expect(status.code).toBe(3);
      expect(status.stdout).toContain("not running");
    } finally {
      process.kill(keeper, "SIGKILL");
    }
  });

  test("after the daemon is SIGKILLed the next client starts a fresh one over the stale socket and lock", async () => {
    await fleet.run("sleep 300");
    const first = fleet.daemonPid()!;
    process.kill(first, "SIGKILL");
    await until("daemon dead", () => !isProcessAlive(first));
    const tasks = await fleet.ls();
    expect(tasks).toEqual([]);
    const second = fleet.daemonPid()!;
    expect(second).not.toBe(first);
    expect(isProcessAlive(second)).toBe(true);
  });

  test("a daemon that takes a command's connection and dies before its welcome is replaced: the command gets its answer from a fresh one", async () => {
    await fleet.run("sleep 300");
    const first = fleet.daemonPid()!;
    // Stopped, the daemon's socket still takes connections into its backlog and answers none.
    process.kill(first, "SIGSTOP");
    try {
      const taken = connectionsTo(first) + 1;
      const ls = fleet.cli(["ls", "--json"]);
      await until("ls's connection in the stopped daemon's backlog", () => connectionsTo(first) >= taken);
      process.kill(first, "SIGKILL");
      const r = await ls;
      expect(r.stderr).not.toContain("lost the connection");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      const second = fleet.daemonPid()!;
      expect(second).not.toBe(first);
      expect(isProcessAlive(second)).toBe(true);
    } finally {
      killIfThere(first);
    }
  });

  test("a command that starts no daemon, its connection dropped by one dying before its welcome, says none runs", async () => {
    const id = await fleet.run("sleep 300");
    const first = fleet.daemonPid()!;
    process.kill(first, "SIGSTOP");
    try {
      const taken = connectionsTo(first) + 1;
      const wait = fleet.cli(["wait", String(id), "--for", "exit"]);
      await until("wait's connection in the stopped daemon's backlog", () => connectionsTo(first) >= taken);
      process.kill(first, "SIGKILL");
      const r = await wait;
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 3, stderr: "fleetcom: the daemon is not running\n" });
      expect(daemonsOf(fleet.sandbox.runtime)).toEqual([]);
    } finally {
      killIfThere(first);
    }
  });

  test("a daemon given a pipe as its fd 3 says there that it listens, then closes it (what autostart waits on)", async () => {
    const daemon = Bun.spawn(fleetcomArgv(["daemon"]), {
      env: { ...fleet.sandbox.env, FLEETCOM_READY_FD: "3" },
      stdio: ["ignore", "ignore", "ignore", "pipe"],
    });
    try {
      // Read to the end: the daemon must close its end, or this never returns.
      const said = await Bun.file(daemon.stdio[3] as number).text();
      expect(said).toBe("listening\n");
      // Said means listening: status (which never starts a daemon) finds it at once.
      const status = await fleet.cli(["status"]);
      expect(status.code).toBe(0);
      expect(fleet.daemonPid()).toBe(daemon.pid);
    } finally {
      daemon.kill();
      await daemon.exited;
    }
  });

  test("status says not running with exit 3 and does not start a daemon", async () => {
    const r = await fleet.cli(["status"]);
    expect(r.code).toBe(3);
    expect(r.stdout.trim()).toBe("not running");
    expect(fleet.daemonPid()).toBeNull();
    await fleet.ls();
    const json = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(json).toMatchObject({ running: true, pid: fleet.daemonPid(), socket: join(fleet.sandbox.runtime, "default.sock") });
    expect(json.sessionDir).toBe(join(fleet.sandbox.config, "sessions"));
  });

  test("the runtime directory is created 0700 and the socket 0600", async () => {
    await fleet.ls();
    const { statSync } = await import("node:fs");
    expect(statSync(fleet.sandbox.runtime).mode & 0o777).toBe(0o700);
    expect(statSync(join(fleet.sandbox.runtime, "default.sock")).mode & 0o777).toBe(0o600);
  });

  test("a runtime directory that is a symlink is refused", async () => {
    const real = join(fleet.sandbox.root, "real");
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, fleet.sandbox.runtime);
    const r = await fleet.cli(["ls"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`fleetcom: runtime directory ${fleet.sandbox.runtime} is a symlink; refusing to use it`);
    rmSync(fleet.sandbox.runtime);
  });

  test("a group- or world-writable runtime directory is refused", async () => {
    mkdirSync(fleet.sandbox.runtime);
    for (const mode of [0o770, 0o707]) {
      chmodSync(fleet.sandbox.runtime, mode);
      const r = await fleet.cli(["ls"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`has mode 0${mode.toString(8)}, not 0700 (private to you); refusing to use it`);
    }
    chmodSync(fleet.sandbox.runtime, 0o700);
  });

  test("a command that only asks a running daemon refuses such a directory too, though no socket is in it", async () => {
    // Its look for a daemon (client-target.ts) opens the directory with the same checks a connection does.
    mkdirSync(fleet.sandbox.runtime, { mode: 0o700 });
    chmodSync(fleet.sandbox.runtime, 0o770);
    for (const command of [["recover", "--list"], ["config"]]) {
      const r = await fleet.cli(command);
      expect(r).toMatchObject({ code: 1, stdout: "" });
      expect(r.stderr).toBe(`fleetcom: runtime directory ${fleet.sandbox.runtime} has mode 0770, not 0700 (private to you); refusing to use it\n`);
    }
    chmodSync(fleet.sandbox.runtime, 0o700);
  });

  test("--kill ends every task: TERM-trapping, TERM-ignoring, HUP-immune and background children", async () => {
    const trapper = await fleet.run("trap 'exit 0' TERM; echo pid:$$; while :; do sleep 0.05; done");
    const ignorer = await fleet.run("trap '' TERM HUP; echo pid:$$; while :; do sleep 0.05; done");
    const parent = await fleet.run("sleep 300 & echo pid:$!; wait");
    const pids: number[] = [];
    for (const id of [trapper, ignorer, parent]) {
      pids.push(await until(`pid of ${id}`, async () => Number(/pid:(\d+)/.exec(await fleet.peek(id))?.[1]) || undefined));
    }
    const daemon = fleet.daemonPid()!;
    expect(await fleet.ok(["--kill"])).toContain(`stopped daemon ${daemon}`);
    expect(isProcessAlive(daemon)).toBe(false);
    await until("every task process gone", () => pids.every((p) => !isProcessAlive(p)));
    expect(daemonsOf(fleet.sandbox.runtime)).toEqual([]);
  });

  test("a client of another protocol version is refused with the advice to run fleetcom --kill", async () => {
    const raw = new RawClient(await fleet.socketPath());
    raw.socket.write(encodeControl({ type: "hello", protocol: 999, version: "9.9.9", cwd: "/", env: {}, cols: 80, rows: 24 }));
    await until("refusal", () => raw.closed);
    expect(raw.messages[0].type).toBe("refused");
    expect(raw.messages[0].error).toContain("run 'fleetcom --kill'");
  });
});
