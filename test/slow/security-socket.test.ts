// Issue 11, the socket: nobody else's socket (H1), nobody else reaching ours (M2), no fleet lost when
// the runtime directory is removed (M1), no silent connection kept forever and a truthful word when
// the daemon is busy (L3). The cross-user tests create a throwaway Unix user when run as root and
// are skipped, visibly, otherwise.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FrameDecoder, FrameKind, MAX_DAEMON_FRAME, PROTOCOL_VERSION, decodeJson, encodeControl } from "../../src/wire-framing.ts";
import { openRuntimeDir } from "../../src/runtime-dir.ts";
import { isProcessAlive } from "../../src/platform.ts";
import { eachTestGetsAFleet, type Fleet, until, daemonsOf } from "../harness/fleet.ts";
import { fleetcomArgv, runFleetcom } from "../harness/helpers.ts";

const AS_ROOT = process.getuid?.() === 0;
const NEEDS_ROOT = "needs root to create a second Unix user (useradd)";
if (!AS_ROOT) console.warn(`security-socket: SKIPPING the second-user tests: ${NEEDS_ROOT}`);

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

// ---- a second, real Unix user -------------------------------------------------------------------

interface OtherUser {
  name: string;
  uid: number;
  gid: number;
}
let other: OtherUser;
/** World-traversable scratch for what the other user runs and writes; removed after the file. */
let shared: string;
/** Everything started as the other user. */
const started: ReturnType<typeof Bun.spawn>[] = [];

beforeAll(() => {
  shared = mkdtempSync(join(tmpdir(), "fleetcom-shared-"));
  chmodSync(shared, 0o755);
  if (!AS_ROOT) return;
  const name = `fcsock${process.pid}`;
  const made = Bun.spawnSync(["useradd", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", name]);
  if (made.exitCode !== 0) throw new Error(`useradd ${name}: ${made.stderr}`);
  const id = (flag: string) => Number(Bun.spawnSync(["id", flag, name]).stdout.toString().trim());
  other = { name, uid: id("-u"), gid: id("-g") };
});

afterAll(async () => {
  for (const proc of started) proc.kill("SIGKILL");
  await Promise.all(started.map((p) => p.exited));
  if (other) Bun.spawnSync(["userdel", other.name]);
  rmSync(shared, { recursive: true, force: true });
});

/** Runs argv as the other user. Each process started this way is killed after the file, whatever happened. */
function asOther(argv: string[]) {
  const proc = Bun.spawn(["setpriv", `--reuid=${other.uid}`, `--regid=${other.gid}`, "--clear-groups", ...argv], {
    env: { PATH: "/usr/bin:/bin", HOME: shared, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" },
    stdout: "pipe",
    stderr: "pipe",
  });
  started.push(proc);
  return proc;
}

/** Makes `path` a directory the other user owns, with exactly `mode`. */
function otherUsersDir(path: string, mode: number): string {
  mkdirSync(path, { mode });
  chmodSync(path, mode);
  Bun.spawnSync(["chown", `${other.uid}:${other.gid}`, path]);
  return path;
}

/**
 * The other user's listening socket, logging what reaches it: `connected N`, `data N <bytes>` and
 * `closed N <total bytes>` per connection, in order.
 */
async function attackerSocket(sock: string, log: string): Promise<ReturnType<typeof asOther>> {
  const script = join(shared, `attacker-${Date.now()}.mjs`);
  writeFileSync(
    script,
    `import { createServer } from "node:net";
import { appendFileSync, chmodSync } from "node:fs";
const [sock, log] = process.argv.slice(2);
let n = 0;
createServer((c) => {
  const id = ++n;
  let total = 0;
  appendFileSync(log, "connected " + id + "\\n");
  c.on("data", (d) => { total += d.length; appendFileSync(log, "data " + id + " " + d.length + "\\n"); });
  c.on("close", () => appendFileSync(log, "closed " + id + " " + total + "\\n"));
  c.on("error", () => {});
}).listen(sock, () => { chmodSync(sock, 0o777); appendFileSync(log, "ready\\n"); });
`,
    { mode: 0o644 },
  );
  const proc = asOther([process.execPath, script, sock, log]);
  await until("the other user's socket", () => existsSync(log) && readFileSync(log, "utf8").includes("ready"));
  return proc;
}

function logOf(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n") : [];
}

/** The fleet's environment with the runtime directory left to its default, `${TMPDIR}/fleetcom-<uid>`. */
function defaultRuntimeEnv(tmp: string): Record<string, string> {
  const { FLEETCOM_RUNTIME_DIR: _, XDG_RUNTIME_DIR: __, ...env } = fleet.env;
  return { ...env, TMPDIR: tmp, SECRET_TOKEN: "victim-secret-abc123" };
}

// ---- helpers for the daemon side -------------------------------------------------------------------

class RawClient {
  readonly socket: Socket;
  readonly messages: any[] = [];
  closed = false;
  private readonly decoder = new FrameDecoder(MAX_DAEMON_FRAME);

  constructor(path: string) {
    this.socket = connect(path);
    this.socket.on("data", (chunk: Buffer) => {
      for (const f of this.decoder.push(chunk)) if (f.kind === FrameKind.control) this.messages.push(decodeJson(f.payload));
    });
    this.socket.on("close", () => (this.closed = true));
    this.socket.on("error", () => {});
  }

  hello(): void {
    this.socket.write(
      encodeControl({ type: "hello", protocol: PROTOCOL_VERSION, version: "test", cwd: "/", env: { PATH: "/usr/bin:/bin" }, cols: 80, rows: 24 }),
    );
  }
}

const sockIn = (runtime: string) => join(runtime, "default.sock");

// ---- H1 -----------------------------------------------------------------------------------------

describe("H1: a client talks only to its own user's daemon", () => {
  test.skipIf(!AS_ROOT)("a runtime directory another user made first in a shared sticky TMPDIR is refused, and their socket gets nothing", async () => {
    const tmp = mkdtempSync(join(shared, "tmp-"));
    chmodSync(tmp, 0o1777);
    const log = join(otherUsersDir(join(shared, `log-${Date.now()}`), 0o755), "attacker.log");
    const squatted = otherUsersDir(join(tmp, `fleetcom-${process.getuid!()}`), 0o777);
    const attacker = await attackerSocket(join(squatted, "default.sock"), log);
    try {
      const r = await runFleetcom(["ls"], { env: defaultRuntimeEnv(tmp), cwd: fleet.sandbox.home });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`fleetcom: runtime directory ${squatted} is owned by uid ${other.uid}, not you (uid 0); refusing to use it\n`);
      // The attacker serves connections in order: once our own probe is logged, the client's would have been.
      const probe = connect(join(squatted, "default.sock"));
      probe.on("error", () => {});
      await until("the probe to reach the attacker", () => logOf(log).includes("connected 1"));
      probe.destroy();
      expect(logOf(log).filter((l) => l.startsWith("connected"))).toEqual(["connected 1"]);
    } finally {
      attacker.kill("SIGKILL");
      await attacker.exited;
    }
  });

  test.skipIf(!AS_ROOT)("another user's socket inside a directory that passes every check is refused by the peer check before a byte is sent", async () => {
    mkdirSync(fleet.sandbox.runtime, { mode: 0o700 });
    const theirs = otherUsersDir(join(shared, `theirs-${Date.now()}`), 0o755);
    const log = join(theirs, "attacker.log");
    const attacker = await attackerSocket(join(theirs, "s.sock"), log);
    // The bound socket keeps its owner wherever its name goes: root moves it into our private directory.
    renameSync(join(theirs, "s.sock"), sockIn(fleet.sandbox.runtime));
    const client = Bun.spawn(fleetcomArgv(["ls"]), { env: { ...fleet.env, SECRET_TOKEN: "victim-secret-abc123" }, stdout: "pipe", stderr: "pipe" });
    try {
      // The old client sent its hello (with SECRET_TOKEN) and then waited for an answer forever.
      await Promise.race([client.exited, until("the client's bytes at the attacker", () => logOf(log).some((l) => l.startsWith("data 1")))]);
      client.kill("SIGKILL");
      expect(await client.exited).toBe(1);
      expect(await new Response(client.stderr).text()).toBe(
        `fleetcom: ${sockIn(fleet.sandbox.runtime)} is served by uid ${other.uid}, not you (uid 0); refusing to talk to it\n`,
      );
      await until("the attacker to see the connection close", () => logOf(log).some((l) => l.startsWith("closed 1")));
      expect(logOf(log)).toEqual(["ready", "connected 1", "closed 1 0"]);
    } finally {
      client.kill("SIGKILL");
      attacker.kill("SIGKILL");
      await attacker.exited;
    }
  });

  test("a checked runtime directory is reached through its fd: a directory swapped in at its path afterwards is never used", async () => {
    const path = join(fleet.sandbox.root, "rt");
    mkdirSync(path, { mode: 0o700 });
    const dir = openRuntimeDir(path);
    const servers: Server[] = [];
    const serve = (sock: string, name: string) =>
      new Promise<void>((resolve) => {
        const server = createServer((c) => c.end(name));
        servers.push(server);
        server.listen(sock, () => resolve());
      });
    try {
      await serve(join(path, "default.sock"), "checked");
      renameSync(path, `${path}.moved`);
      mkdirSync(path, { mode: 0o700 });
      await serve(join(path, "default.sock"), "impostor");
      const answer = await new Promise<string>((resolve, reject) => {
        const c = connect(dir.entry("default.sock"));
        let got = "";
        c.on("data", (d) => (got += d));
        c.on("end", () => resolve(got));
        c.on("error", reject);
      });
      expect(answer).toBe("checked");
      expect(dir.stillAtPath()).toBe(false);
    } finally {
      dir.close();
      for (const s of servers) s.close();
    }
  });

  test.skipIf(!AS_ROOT)("another user cannot connect to the daemon's socket", async () => {
    await fleet.ls();
    const script = join(shared, `connect-${Date.now()}.mjs`);
    writeFileSync(
      script,
      `import { connect } from "node:net";
const c = connect(process.argv[2]);
c.on("connect", () => { console.log("CONNECTED"); process.exit(0); });
c.on("error", (e) => { console.log(e.code); process.exit(0); });
`,
      { mode: 0o644 },
    );
    const proc = asOther([process.execPath, script, sockIn(fleet.sandbox.runtime)]);
    expect((await new Response(proc.stdout).text()).trim()).toBe("EACCES");
  });

  test.skipIf(!AS_ROOT)("the daemon drops a connection from another user even when that user can reach its socket", async () => {
    await fleet.ls();
    // As if the socket had been reachable (M2's window before chmod): a second name for it where the other user can reach it.
    const door = otherUsersDir(join(shared, `door-${Date.now()}`), 0o755);
    const pwned = join(door, "pwned");
    linkSync(sockIn(fleet.sandbox.runtime), join(door, "daemon.sock"));
    chmodSync(join(door, "daemon.sock"), 0o666);
    const script = join(door, "intruder.mjs");
    writeFileSync(
      script,
      `import { connect } from "node:net";
const frame = (m) => { const p = Buffer.from(JSON.stringify(m)); const h = Buffer.alloc(5); h.writeUInt32BE(p.length); h[4] = 1; return Buffer.concat([h, p]); };
const c = connect(process.argv[2]);
let buf = Buffer.alloc(0);
c.on("connect", () => {
  c.write(frame({ type: "hello", protocol: ${PROTOCOL_VERSION}, version: "x", cwd: "/", env: { PATH: "/usr/bin:/bin" }, cols: 80, rows: 24 }));
  c.write(frame({ type: "request", id: 1, op: "run", args: { command: "id > ${pwned}" } }));
});
const out = [];
const report = () => { console.log(JSON.stringify(out)); process.exit(0); };
c.on("data", (d) => {
  buf = Buffer.concat([buf, d]);
  while (buf.length >= 5 && buf.length >= 5 + buf.readUInt32BE(0)) { const n = buf.readUInt32BE(0); out.push(JSON.parse(buf.subarray(5, 5 + n).toString())); buf = buf.subarray(5 + n); }
  if (out.some((m) => m.type === "reply")) report();
});
c.on("close", report);
c.on("error", () => {});
`,
      { mode: 0o644 },
    );
    const proc = asOther([process.execPath, script, join(door, "daemon.sock")]);
    const messages = JSON.parse(await new Response(proc.stdout).text());
    chmodSync(sockIn(fleet.sandbox.runtime), 0o600);
    expect(messages).toEqual([{ type: "refused", error: `this daemon serves uid 0 only, not uid ${other.uid}` }]);
    expect(await fleet.ls()).toEqual([]);
    expect(existsSync(pwned)).toBe(false);
    expect(readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8")).toContain(
      `refused a connection: this daemon serves uid 0 only, not uid ${other.uid}`,
    );
  });
});

// ---- M2 -----------------------------------------------------------------------------------------

describe("M2: the socket is private from the moment it exists", () => {
  test("a runtime directory with any group or other bit is refused before any daemon starts", async () => {
    mkdirSync(fleet.sandbox.runtime);
    for (const mode of [0o755, 0o750, 0o705, 0o701, 0o710]) {
      chmodSync(fleet.sandbox.runtime, mode);
      const r = await fleet.cli(["ls"]);
      expect(r.code).toBe(1);
      const shown = mode.toString(8).padStart(4, "0");
      expect(r.stderr).toBe(`fleetcom: runtime directory ${fleet.sandbox.runtime} has mode ${shown}, not 0700 (private to you); refusing to use it\n`);
    }
    const daemon = await fleet.cli(["daemon"]);
    expect(daemon.code).toBe(1);
    expect(daemon.stderr).toContain("not 0700 (private to you); refusing to use it");
    expect(readdirSync(fleet.sandbox.runtime)).toEqual([]);
    chmodSync(fleet.sandbox.runtime, 0o700);
  });

  test("under umask 000 the directory is made 0700 and the socket appears as 0600, with no temporary name left", async () => {
    const proc = Bun.spawn(["sh", "-c", 'umask 000; exec "$@"', "sh", ...fleetcomArgv(["daemon"])], { env: fleet.env, stdout: "ignore", stderr: "ignore" });
    await until("the socket", () => existsSync(sockIn(fleet.sandbox.runtime)));
    const { statSync } = await import("node:fs");
    expect(statSync(fleet.sandbox.runtime).mode & 0o777).toBe(0o700);
    expect(statSync(sockIn(fleet.sandbox.runtime)).mode & 0o777).toBe(0o600);
    expect(readdirSync(fleet.sandbox.runtime).sort()).toEqual(["daemon.lock", "default.sock"]);
    await fleet.cli(["--kill"]);
    await proc.exited;
  });
});

// ---- M1 -----------------------------------------------------------------------------------------

async function taskPids(ids: number[]): Promise<number[]> {
  const pids: number[] = [];
  for (const id of ids) {
    const text = await until(`task ${id}'s pid`, async () => /pid:(\d+)/.exec(await fleet.peek(id))?.[1]);
    pids.push(Number(text));
  }
  return pids;
}

describe("M1: removing the runtime directory loses no fleet and never makes two daemons", () => {
  test("the daemon makes its directory, socket and lock again, and ls shows the same tasks from the same daemon", async () => {
    const ids = [await fleet.run("echo pid:$$; exec sleep 300"), await fleet.run("echo pid:$$; exec sleep 301")];
    const pid = fleet.daemonPid()!;
    const pids = await taskPids(ids);
    rmSync(fleet.sandbox.runtime, { recursive: true, force: true });
    await until("the daemon to make its socket again", () => existsSync(sockIn(fleet.sandbox.runtime)));
    expect((await fleet.ls()).map((t) => t.id)).toEqual(ids);
    expect(fleet.daemonPid()).toBe(pid);
    expect(daemonsOf(fleet.sandbox.runtime)).toEqual([pid]);
    expect(pids.every(isProcessAlive)).toBe(true);
    expect(readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8")).toContain("made the runtime directory, socket and lock again");
  });

  test("a daemon that finds another in its place gives way after a final snapshot: one daemon, no unreachable task", async () => {
    const id = await fleet.run("echo pid:$$; exec sleep 302");
    const old = fleet.daemonPid()!;
    const [taskPid] = await taskPids([id]);
    // Paused, the old daemon cannot notice before a client starts a new one in the new directory.
    process.kill(old, "SIGSTOP");
    try {
      rmSync(fleet.sandbox.runtime, { recursive: true, force: true });
      expect(await fleet.ls()).toEqual([]);
      const fresh = fleet.daemonPid()!;
      expect(fresh).not.toBe(old);
      process.kill(old, "SIGCONT");
      await until("the old daemon to stop", () => !isProcessAlive(old));
      expect(isProcessAlive(taskPid!)).toBe(false);
      expect(daemonsOf(fleet.sandbox.runtime)).toEqual([fresh]);
      expect(fleet.daemonPid()).toBe(fresh);
      expect(await fleet.ls()).toEqual([]);
      const recovery = join(fleet.sandbox.config, "sessions", "recovery");
      const snapshot = readdirSync(recovery).find((name) => name.endsWith(`-${old}.json`));
      expect(readFileSync(join(recovery, snapshot!), "utf8")).toContain("sleep 302");
    } finally {
      try {
        process.kill(old, "SIGKILL");
      } catch {}
    }
  });
});

// ---- L3 -----------------------------------------------------------------------------------------

describe("L3: silent connections time out; a busy daemon is called busy", () => {
  test("a connection that sends no hello is closed after FLEETCOM_HANDSHAKE_TIMEOUT_MS; one that did stays", async () => {
    const env = { ...fleet.env, FLEETCOM_HANDSHAKE_TIMEOUT_MS: "1000" };
    expect((await fleet.cli(["ls"], { env })).code).toBe(0);
    const polite = new RawClient(sockIn(fleet.sandbox.runtime));
    polite.hello();
    const silent = new RawClient(sockIn(fleet.sandbox.runtime));
    await until("the silent connection to be closed", () => silent.closed);
    expect(silent.messages).toEqual([{ type: "refused", error: "no handshake within 1000 ms" }]);
    expect(polite.closed).toBe(false);
    polite.socket.write(encodeControl({ type: "request", id: 1, op: "ls" }));
    await until("the polite client's reply", () => polite.messages.some((m) => m.type === "reply" && m.id === 1));
    polite.socket.destroy();
  });

  test("a live daemon that does not accept is reported as busy, not as a daemon that did not start", async () => {
    await fleet.ls();
    const pid = fleet.daemonPid()!;
    process.kill(pid, "SIGSTOP");
    const held: Socket[] = [];
    try {
      // Fill the stopped daemon's listen backlog until the kernel turns connections away.
      for (;;) {
        const c = connect(sockIn(fleet.sandbox.runtime));
        held.push(c);
        const ok = await new Promise<boolean>((resolve) => {
          c.once("connect", () => resolve(true));
          c.once("error", () => resolve(false));
        });
        if (!ok) break;
      }
      const r = await fleet.cli(["ls"]);
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(
        `fleetcom: daemon ${pid} is running but not accepting connections (busy, stopped or out of file descriptors); see ${join(fleet.sandbox.runtime, "daemon.log")}\n`,
      );
      expect(daemonsOf(fleet.sandbox.runtime)).toEqual([pid]);
    } finally {
      for (const c of held) c.destroy();
      process.kill(pid, "SIGCONT");
    }
    expect(await fleet.ls()).toEqual([]);
  });
});
