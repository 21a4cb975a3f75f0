// Clients that misbehave against the real daemon: bad requests, floods, clients that never read.
// And files that are not what fleetcom expects there: a FIFO or a device at a config file or a
// cache is refused in one line naming it, and the daemon answers throughout.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { installFakeAgents } from "../harness/agent-fakes.ts";
import { FrameKind, PROTOCOL_VERSION, encodeControl, encodeFrame } from "../../src/wire-framing.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { RawClient } from "../harness/raw-client.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

describe("hostile clients", () => {
  test("garbage, oversize, unknown-kind, truncated and invalid-JSON frames drop only their own client", async () => {
    const path = await fleet.socketPath();
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
    const raw = new RawClient(await fleet.socketPath());
    raw.hello();
    raw.socket.write(encodeControl({ type: "request", id: 1, op: "rename", args: { task: 5 } }));
    await until("reply", () => raw.messages.find((m) => m.type === "reply"));
    const reply = raw.messages.find((m) => m.type === "reply");
    expect(reply).toMatchObject({ id: 1, ok: false });
    expect(raw.closed).toBe(false);
    raw.socket.end();
  });

  test("attached to a task that floods, it costs a queue of about one output bound; the task and the client carry on", async () => {
    const driver = await fleet.rawClient();
    // The flood waits for a line, sent once the client is attached and stuck: on a loaded machine a
    // flood that started at once could end before the attach, which then has nothing to fall behind on.
    const command = "read -r go; head -c 3000000 /dev/urandom | base64; echo FLOOD-DONE";
    const flood = ((await driver.request("run", { command })).result as { id: number }).id;
    const stuck = await fleet.rawClient();
    const attached = await stuck.request("attach", { task: { id: flood }, cols: 80, rows: 24 });
    expect(attached.ok).toBe(true);
    expect((attached.result as { state: string }).state).toBe("running");
    stuck.pause();
    expect((await driver.request("send", { task: { id: flood }, text: "go", enter: true })).ok).toBe(true);
    let peakQueued = 0;
    await until(
      "the 4 MB flood to finish while the client is stuck",
      async () => {
        peakQueued = Math.max(peakQueued, (await driver.clientStats()).maxQueuedBytes);
        return (await fleet.task(flood)).state === "exited";
      },
      90_000,
    );
    expect((await fleet.task(flood)).exitCode).toBe(0);
    expect(await fleet.peek(flood)).toContain("FLOOD-DONE");
    // outputHighWater (64 KiB at 80x24), the chunk that crossed it and a screen; without the bound it
    // is the flood itself, megabytes.
    if (process.env.SHOW_NUMBERS) console.log({ peakQueued });
    expect(peakQueued).toBeLessThan(512 * 1024);
    stuck.resume();
    await until(
      "the stuck client catches up with a fresh screen and the end",
      () => stuck.dataBytes > 0 && stuck.messages.some((m) => m.type === "attach-end"),
    );
    expect(stuck.closed).toBe(false);
  }, 120_000);

  test("fifty clients connecting at once are all served", async () => {
    const path = await fleet.socketPath();
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

describe("a FIFO or a device where fleetcom expects a file", () => {
  function fifo(path: string): string {
    mkdirSync(dirname(path), { recursive: true });
    expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
    return path;
  }
  function zeroLink(path: string): string {
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync("/dev/zero", path);
    return path;
  }
  const daemonLog = () => readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8");

  test.each([
    ["a FIFO", fifo, "a FIFO"],
    ["a symlink to /dev/zero", zeroLink, "a character device"],
  ])("config.toml as %s: fleetcom config and the daemon go on with the defaults, saying so in one line naming it", async (_what, make, kind) => {
    const file = make(join(fleet.sandbox.config, "config.toml"));
    const warning = `fleetcom: warning: ${file}: not a regular file (${kind}); using the defaults\n`;
    const config = await fleet.cli(["config"]);
    expect(config).toMatchObject({ code: 0, stderr: warning });
    expect(config.stdout).toMatch(/^scrollback +2000 +default$/m);
    const run = await fleet.cli(["run", "--", "echo hi"]);
    expect(run).toMatchObject({ code: 0, stderr: warning });
    const id = Number(run.stdout.trim());
    await fleet.waitForExit(id);
    expect(await fleet.peek(id)).toContain("hi");
  });

  test("at the probe cache and at ~/.codex/config.toml: the probe asks the binary and rewrites its cache, codex runs uninstrumented with a log line naming the file, and the daemon keeps answering", async () => {
    installFakeAgents(fleet);
    // In place before the daemon starts: it reads its probe cache at start, and asks codex then.
    const cache = fifo(join(fleet.sandbox.home, ".cache", "fleetcom", "agent-flags.json"));
    const config = fifo(join(fleet.sandbox.home, ".codex", "config.toml"));
    const id = await fleet.run("codex");
    await until("the log line", () => daemonLog().includes(`task ${id}: codex runs uninstrumented: ${config}: not a regular file (a FIFO)`));
    expect(statSync(cache).isFile()).toBe(true);
    expect((await fleet.ls()).map((t) => t.id)).toEqual([id]);
    expect((await fleet.cli(["ls"])).code).toBe(0);
  });
});
