// The client's side of the handshake against a stand-in daemon on a real Unix socket: a one-shot
// command's request follows its hello at once (one round trip, not two), and a refused hello fails
// that request with the daemon's reason. Event-driven: the stand-in answers only once it holds both.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DaemonClient, noticeLines, refusalText } from "../../src/client.ts";
import { HERE } from "../../src/client-target.ts";
import { VERSION } from "../../src/version.ts";
import { FrameDecoder, MAX_CLIENT_FRAME, PROTOCOL_VERSION, decodeJson, encodeControl } from "../../src/wire-framing.ts";

let dir: string;
let server: Server | null = null;
const saved = process.env.FLEETCOM_RUNTIME_DIR;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "fleetcom-handshake-")));
  process.env.FLEETCOM_RUNTIME_DIR = dir;
});

afterEach(() => {
  server?.close();
  server = null;
  if (saved === undefined) delete process.env.FLEETCOM_RUNTIME_DIR;
  else process.env.FLEETCOM_RUNTIME_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in daemon that collects control messages until it has a hello and a request, then answers with `answer`. */
function standIn(answer: (socket: Socket, request: { id: number }) => void): Promise<void> {
  server = createServer((socket) => {
    const decoder = new FrameDecoder(MAX_CLIENT_FRAME);
    const seen: { type: string; id?: number }[] = [];
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) seen.push(decodeJson(frame.payload) as { type: string; id?: number });
      const request = seen.find((m) => m.type === "request");
      if (seen[0]?.type === "hello" && request) answer(socket, request as { id: number });
    });
  });
  return new Promise((resolve) => server!.listen(join(dir, "default.sock"), () => resolve()));
}

test("the request goes out right behind the hello: nothing waits for the welcome first", async () => {
  await standIn((socket, request) => {
    socket.write(encodeControl({ type: "welcome", protocol: PROTOCOL_VERSION, version: "test", pid: 4242 }));
    socket.write(encodeControl({ type: "reply", id: request.id, ok: true, result: [] }));
  });
  const client = await DaemonClient.open(HERE, { autostart: false, notices: false });
  try {
    expect(await client.request("ls")).toEqual([]);
    expect(client.daemonPid).toBe(4242);
  } finally {
    client.close();
  }
});

test("a refused hello fails the request already sent behind it, with the daemon's reason", async () => {
  await standIn((socket) => {
    socket.end(encodeControl({ type: "refused", error: "the running daemon speaks protocol 0" }));
  });
  const client = await DaemonClient.open(HERE, { autostart: false, notices: false });
  try {
    await expect(client.request("ls")).rejects.toThrow("the running daemon speaks protocol 0");
  } finally {
    client.close();
  }
});

test("a daemon of another protocol on another host is named with both versions and the upgrade", () => {
  const refusal = { type: "refused" as const, error: "the running daemon speaks protocol 1", daemon: { protocol: 1, version: "0.0.9" } };
  const host = { name: "gpu1", ssh: "gpu1", home: "/home/me" };
  expect(refusalText(refusal, host)).toBe(
    `gpu1 runs fleetcom 0.0.9 (protocol 1) and this is fleetcom ${VERSION} (protocol ${PROTOCOL_VERSION}); upgrade it with 'fleetcom hosts add gpu1', then 'fleetcom --host gpu1 --kill' ends the old daemon and its tasks`,
  );
  // Here, the daemon's own words stand: `fleetcom --kill` is the remedy.
  expect(refusalText(refusal, null)).toBe("the running daemon speaks protocol 1");
});

test("another host's one-time notices name it, and their remedy runs there", () => {
  const now = Date.parse("2026-01-01T12:03:00Z");
  const notices = {
    crash: { snapshot: "s.json", tasks: 2, writtenAt: "2026-01-01T12:00:00Z", recover: "fleetcom recover --latest" },
    config: ["config.toml:3: unknown key 'x'; ignored"],
  };
  expect(noticeLines(notices, { name: "gpu1", ssh: "gpu1", home: "/home/me" }, now)).toEqual([
    "gpu1: the previous fleet (2 tasks, autosaved 3m ago) ended unexpectedly — fleetcom --host gpu1 recover --latest",
    "gpu1: warning: config.toml:3: unknown key 'x'; ignored",
  ]);
  expect(noticeLines(notices, null, now)[0]).toBe("the previous fleet (2 tasks, autosaved 3m ago) ended unexpectedly — fleetcom recover --latest");
});
