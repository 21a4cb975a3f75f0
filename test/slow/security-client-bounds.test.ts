// This machine's daemon, when it does not answer or cannot (docs/security.md, round 4): a client
// never waits for ever behind a connection the kernel accepted, a daemon out of file descriptors
// refuses with its reason instead of leaving clients in its backlog, and the text of a local daemon
// reaches the terminal through the sanitiser as another host's does.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { connect, type Socket } from "node:net";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { FrameDecoder, MAX_DAEMON_FRAME, PROTOCOL_VERSION, decodeJson, encodeControl } from "../../src/wire-framing.ts";
import { VERSION } from "../../src/version.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

/** The first message the daemon sends a client that said hello, or null when none comes within `ms`. */
function greeting(path: string, ms: number): Promise<{ socket: Socket; message: { type: string; error?: string } | null }> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const decoder = new FrameDecoder(MAX_DAEMON_FRAME);
    const timer = setTimeout(() => resolve({ socket, message: null }), ms);
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ socket, message: null });
    });
    socket.on("connect", () =>
      socket.write(encodeControl({ type: "hello", protocol: PROTOCOL_VERSION, version: VERSION, cwd: "/", env: {}, cols: 80, rows: 24 })),
    );
    socket.on("data", (chunk: Buffer) => {
      const [frame] = decoder.push(chunk);
      if (!frame) return;
      clearTimeout(timer);
      resolve({ socket, message: decodeJson(frame.payload) as { type: string; error?: string } });
    });
  });
}

describe("a daemon that does not answer", () => {
  test("a stopped daemon costs ls and peek the welcome's bound, then the busy-daemon line", async () => {
    const id = await fleet.run("sleep 600");
    const pid = fleet.daemonPid()!;
    process.kill(pid, "SIGSTOP");
    try {
      for (const args of [["ls"], ["peek", String(id)]]) {
        const r = await fleet.cli(args);
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({
          args,
          code: 3,
          stderr: `fleetcom: daemon ${pid} is running but not accepting connections (busy, stopped or out of file descriptors); see ${join(fleet.sandbox.runtime, "daemon.log")}\n`,
        });
      }
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect((await fleet.ls()).map((t) => t.id)).toEqual([id]);
  }, 60_000);

  test("a daemon out of file descriptors refuses the next client with its reason, and serves again once some are free", async () => {
    // A daemon whose limit is low (`ulimit -n` in the shell that starts it, inherited by autostart).
    const started = Bun.spawn(["sh", "-c", 'ulimit -n 48 && exec "$@"', "sh", ...fleetcomArgv(["ls"])], { env: fleet.env, stdout: "ignore", stderr: "pipe" });
    expect(await started.exited).toBe(0);
    const path = join(fleet.sandbox.runtime, "default.sock");
    // Clients that said hello hold a descriptor each, until one gets no welcome: the daemon is out of them.
    const held: Socket[] = [];
    try {
      let last: Awaited<ReturnType<typeof greeting>>;
      for (;;) {
        last = await greeting(path, 5_000);
        held.push(last.socket);
        if (last.message?.type !== "welcome") break;
        expect(held.length).toBeLessThan(48);
      }
      const refusal = `the daemon (pid ${fleet.daemonPid()}) is out of file descriptors (its tasks and clients hold them all): new connections are refused until some are free`;
      expect(last.message).toEqual({ type: "refused", error: refusal });
      const r = await fleet.cli(["ls"]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 3, stderr: `fleetcom: ${refusal}\n` });
      expect(await Bun.file(join(fleet.sandbox.runtime, "daemon.log")).text()).toContain("out of file descriptors: new connections are refused");
    } finally {
      for (const socket of held) socket.destroy();
    }
    await until("the daemon to serve again", async () => (await fleet.cli(["ls"])).code === 0);
  }, 60_000);
});

describe("a local daemon's text", () => {
  test("peek and logs show a bidi override on a task's screen escaped", async () => {
    const id = await fleet.run("printf 'left\\342\\200\\256right\\n'; sleep 600");
    await until("the line on the task's screen", async () => (await fleet.ok(["peek", String(id)])).includes("right"));
    for (const args of [
      ["peek", String(id)],
      ["logs", String(id)],
    ]) {
      const out = await fleet.ok(args);
      expect({ args, out }).toEqual({ args, out: "left\\u202eright\n" });
    }
  });
});
