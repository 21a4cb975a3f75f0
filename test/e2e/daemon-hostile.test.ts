// Clients that misbehave against the real daemon: bad requests, floods, clients that never read.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FrameKind, PROTOCOL_VERSION, encodeControl, encodeFrame } from "../../src/wire-framing.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
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
