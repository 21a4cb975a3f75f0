// The daemon's life: autostart, the single-daemon guarantee, stale takeover, the runtime directory's
// trust checks, teardown, and clients that misbehave.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { FrameKind, PROTOCOL_VERSION, encodeControl, encodeFrame } from "../../src/wire-framing.ts";
import { isProcessAlive } from "../../src/platform.ts";
import { daemonsOf, eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { RawClient } from "../harness/raw-client.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
}

/** The daemon's socket, the daemon started first. */
async function socketPath(): Promise<string> {
  await fleet.ls();
  return join(fleet.sandbox.runtime, "default.sock");
}

/** A raw client that has shaken hands and subscribed to task events. */
async function subscribedClient(): Promise<RawClient> {
  const raw = new RawClient(await socketPath());
  raw.hello();
  raw.socket.write(encodeControl({ type: "request", id: 1, op: "subscribe" }));
  await until("subscribed", () => raw.messages.some((m) => m.type === "reply" && m.id === 1));
  return raw;
}

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
    const raw = new RawClient(await socketPath());
    raw.socket.write(encodeControl({ type: "hello", protocol: 999, version: "9.9.9", cwd: "/", env: {}, cols: 80, rows: 24 }));
    await until("refusal", () => raw.closed);
    expect(raw.messages[0].type).toBe("refused");
    expect(raw.messages[0].error).toContain("run 'fleetcom --kill'");
  });
});

describe("events and settings", () => {
  test("a subscribed client hears created, changed, exited and removed, in that order", async () => {
    const raw = await subscribedClient();
    const id = await fleet.run("read x; echo done");
    await fleet.ok(["rename", String(id), "job"]);
    await fleet.ok(["send", String(id), "go"]);
    await fleet.waitForExit(id);
    await fleet.ok(["rm", String(id)]);
    await until("removed event", () => raw.messages.some((m) => m.event === "removed"));
    // The lifecycle in order: created first; changes while it runs; exited once; anything after it
    // (a batched change that was already on its way) shows the exited task; removed last.
    const events = raw.messages.filter((m) => m.type === "event" && m.task.id === id);
    const names = events.map((m) => m.event as string);
    const exitedAt = names.indexOf("exited");
    expect(names[0]).toBe("created");
    expect(names.at(-1)).toBe("removed");
    expect(names.filter((n) => n === "exited")).toHaveLength(1);
    expect(names.slice(1, exitedAt).length).toBeGreaterThan(0);
    expect(new Set(names.slice(1, exitedAt))).toEqual(new Set(["changed"]));
    expect(
      events
        .slice(exitedAt, -1)
        .map((m) => `${m.event}:${m.task.state}`)
        .filter((e) => e !== "changed:exited"),
    ).toEqual(["exited:exited"]);
    const exited = raw.messages.find((m) => m.event === "exited");
    expect(exited.task).toMatchObject({ id, name: "job", state: "exited", exitCode: 0, preview: "done" });
    raw.socket.end();
  });

  test("a task going quiet for the idle spell is announced once as idle, and output makes it active again", async () => {
    fleet.env.FLEETCOM_IDLE_SECONDS = "1.5";
    const raw = await subscribedClient();
    const id = await fleet.run("echo hello; read x; echo again; sleep 300");
    const idle = (m: any) => m.event === "changed" && m.task.id === id && m.task.idle;
    await until("an idle event", () => raw.messages.some(idle));
    await fleet.ok(["send", String(id), "go"]);
    const active = (m: any) => m.event === "changed" && m.task.preview === "again" && !m.task.idle;
    await until("an active event", () => raw.messages.some(active));
    // Once per quiet spell: one idle event before the task spoke again (it may go quiet again later).
    expect(raw.messages.slice(0, raw.messages.findIndex(active)).filter(idle)).toHaveLength(1);
    raw.socket.end();
  });

  test("FLEETCOM_SCROLLBACK sets the lines kept above the screen, 0 keeping none", async () => {
    for (const [setting, expected] of [
      ["0", 40],
      ["5", 45],
    ] as const) {
      await fleet.cli(["--kill"]);
      await fleet.cli(["ls"], { env: { FLEETCOM_SCROLLBACK: setting } });
      const id = await fleet.run("seq 1 200");
      await fleet.waitForExit(id);
      const lines = (await fleet.ok(["peek", String(id), "--lines", "1000"])).split("\n").filter(Boolean);
      expect(lines.length).toBeLessThanOrEqual(expected);
      expect(lines.at(-1)).toBe("200");
      expect(lines[0]).toBe(String(200 - expected + 2));
    }
  });
});

describe("hostile clients", () => {
  test("garbage, oversize, unknown-kind, truncated and invalid-JSON frames drop only their own client", async () => {
    const path = await socketPath();
    const watcher = await fleet.run("while :; do echo beat; sleep 0.1; done");
    const bad = {
      garbage: Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
      oversize: Buffer.from([0xff, 0xff, 0xff, 0xff, 1]),
      unknownKind: encodeFrame(9 as any, new Uint8Array(3)),
      invalidJson: encodeFrame(FrameKind.control, new TextEncoder().encode("{not json")),
      badHello: encodeControl({ type: "hello", protocol: "one" }),
      badRequest: Buffer.concat([
        encodeControl({ type: "hello", protocol: PROTOCOL_VERSION, version: "t", cwd: "/", env: {}, cols: 80, rows: 24 }),
        encodeControl({ type: "request", id: "x", op: "ls" }),
      ]),
    };
    const clients = Object.values(bad).map((bytes) => {
      const c = new RawClient(path);
      c.socket.write(bytes);
      return c;
    });
    await until("every bad client dropped", () => clients.every((c) => c.closed));
    const truncated = new RawClient(path);
    truncated.socket.write(Buffer.from([0, 0, 0, 100, 1, 0x7b]));
    truncated.socket.end();
    await until("truncated client gone", () => truncated.closed);
    expect((await fleet.task(watcher)).state).toBe("running");
    expect((await fleet.ls()).length).toBe(1);
  });

  test("a bad request gets an error reply and the client stays connected", async () => {
    const raw = new RawClient(await socketPath());
    raw.hello();
    raw.socket.write(encodeControl({ type: "request", id: 1, op: "rename", args: { task: 5 } }));
    await until("reply", () => raw.messages.find((m) => m.type === "reply"));
    const reply = raw.messages.find((m) => m.type === "reply");
    expect(reply).toMatchObject({ id: 1, ok: false });
    expect(raw.closed).toBe(false);
    raw.socket.end();
  });

  test("a client that never reads while a task floods is bounded; the task and other clients carry on", async () => {
    const path = await socketPath();
    const flood = await fleet.run("head -c 60000000 /dev/urandom | base64; echo FLOOD-DONE");
    const stuck = new RawClient(path);
    stuck.hello();
    stuck.socket.write(encodeControl({ type: "request", id: 1, op: "attach", args: { task: String(flood), cols: 80, rows: 24 } }));
    stuck.socket.pause();
    const daemon = fleet.daemonPid()!;
    let peakKb = 0;
    const done = await until(
      "flood to finish while a client is stuck",
      async () => {
        peakKb = Math.max(peakKb, rssKb(daemon));
        const t = await fleet.task(flood);
        return t.state === "exited" ? t : undefined;
      },
      120_000,
    );
    expect(done.exitCode).toBe(0);
    expect(await fleet.peek(flood)).toContain("FLOOD-DONE");
    console.log(`daemon peak RSS with a stuck client during an 81 MB flood: ${(peakKb / 1024).toFixed(0)} MB`);
    expect(peakKb).toBeLessThan(400 * 1024);
    stuck.socket.resume();
    await until("stuck client catches up with a fresh screen", () => stuck.dataBytes > 0 && stuck.messages.some((m) => m.type === "attach-end"));
    expect(stuck.closed).toBe(false);
    stuck.socket.end();
  });

  test("fifty clients connecting at once are all served", async () => {
    const path = await socketPath();
    const clients = Array.from({ length: 50 }, (_, i) => {
      const c = new RawClient(path);
      c.hello();
      c.socket.write(encodeControl({ type: "request", id: i, op: "ls" }));
      return c;
    });
    await until("fifty replies", () => clients.every((c) => c.messages.some((m) => m.type === "reply" && m.ok)));
    for (const c of clients) c.socket.end();
  });
});
