// Replies and events in the order a loaded machine delivers them, made certain by a go-between on the
// socket (held-reply-proxy.ts); the daemon and the clients are the real ones.
//
// The daemon's reply to `subscribe` and its next event batch can reach the client in one read; a
// client that applied the events first and the (older) fleet of the reply after them showed stale
// rows, put the dashboard's cursor on the wrong task, and left `wait` waiting for an exit it had
// already been told of. A late reply must not undo a key pressed meanwhile.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDashboard, rows, selectedRow } from "../harness/dashboard.ts";
import { eachTestGetsAFleet, type Fleet, PtyClient, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { HeldReplyProxy } from "../harness/held-reply-proxy.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

let proxy: HeldReplyProxy;
let clients: PtyClient[];
beforeEach(() => {
  clients = [];
});
afterEach(() => {
  for (const client of clients) client.kill();
  proxy?.close();
});

/** The daemon started, and a proxy in front of its socket: the environment of a client that goes through it. */
async function proxied(): Promise<Record<string, string>> {
  proxy = new HeldReplyProxy(await fleet.socketPath());
  await proxy.listen();
  return { ...fleet.env, FLEETCOM_RUNTIME_DIR: proxy.runtime };
}

function proxiedClient(env: Record<string, string>, args: string[], size = { cols: 160, rows: 30 }): PtyClient {
  const client = new PtyClient(fleetcomArgv(args), env, fleet.sandbox.home, size);
  clients.push(client);
  return client;
}

describe("events right behind the subscribe reply", () => {
  test("wait --for exit hears an exit that comes with the reply", async () => {
    const id = await fleet.run("sleep 3600");
    const env = await proxied();
    const held = proxy.holdReply("subscribe", "next-write");
    const waiting = fleet.cli(["wait", String(id), "--for", "exit", "--timeout", "20"], { env });
    await held;
    await fleet.ok(["kill", String(id)]);
    const r = await waiting;
    expect(r.stderr).toBe("");
    // The exit heard is the kill's: TERM, 128 + 15, as wait reports a task's end.
    expect(r.code).toBe(143);
  });

  test("the dashboard shows the event's news, and its cursor starts on the first task", async () => {
    const first = await fleet.run("sleep 3601");
    const second = await fleet.run("sleep 3602");
    const env = await proxied();
    const held = proxy.holdReply("subscribe", "next-write");
    const client = proxiedClient(env, []);
    await held;
    await fleet.ok(["rename", String(second), "renamed"]);
    const screen = await client.waitForScreen("the dashboard with the rename", (s) => isDashboard(s) && s.includes("renamed"));
    expect(selectedRow(screen)).toContain(`${first} sleep 3601`);
    expect(rows(screen).filter((r) => / \d+ (sleep 3601|renamed) · /.test(r))).toEqual([
      expect.stringContaining(`${first} sleep 3601`),
      expect.stringContaining(`${second} renamed`),
    ]);
  });

  test("attached, a task that starts waiting with the reply is news in the title", async () => {
    const flag = join(fleet.sandbox.root, "ring");
    const attached = await fleet.run("sleep 3600");
    const other = await fleet.run(`while [ ! -e '${flag}' ]; do sleep 0.1; done; printf 'ding\\a'; sleep 3600`, ["--name", "builder"]);
    const env = await proxied();
    const held = proxy.holdReply("subscribe", "next-write");
    const client = proxiedClient(env, ["attach", String(attached)], { cols: 80, rows: 10 });
    const titles: string[] = [];
    client.term.onTitleChange((t) => titles.push(t));
    await held;
    writeFileSync(flag, "");
    await until("the notice", () => titles.includes(`fleetcom ! task ${other} builder rang the bell`), 15_000);
  });
});

describe("a reply that comes after a key", () => {
  test("a peek closed by a key stays closed when the peek's refresh answers late", async () => {
    const id = await fleet.run("printf 'line one\\nline two\\n'; sleep 3600");
    await until("output", async () => (await fleet.peek(id)).includes("line two"));
    const client = proxiedClient(await proxied(), []);
    await client.waitForScreen("the dashboard", isDashboard);
    client.write(" ");
    await client.waitForScreen("the peek", (s) => s.includes(`── peek ${id} printf`));
    // An event about the peeked task refreshes the peek; its answer is held back…
    const held = proxy.holdReply("peek", "release");
    await fleet.ok(["rename", String(id), "first"]);
    await held;
    // …while a key closes the peek.
    client.write("j");
    await client.waitForScreen("the list", (s) => !s.includes("── peek") && s.includes("?:help"));
    proxy.release();
    await fleet.ok(["rename", String(id), "second"]);
    const screen = await client.waitForScreen("the second name", (s) => s.includes("second"));
    expect(screen).not.toContain("── peek");
  });

  test("Ctrl-\\ typed while attach waits for its answers detaches, rather than quitting it by signal", async () => {
    const id = await fleet.run("echo picked-me; exec cat");
    await until("output", async () => (await fleet.peek(id)).includes("picked-me"));
    const env = await proxied();
    const held = proxy.holdReply("subscribe", "release");
    const client = proxiedClient(env, ["attach", String(id)]);
    await held;
    await client.waitForScreen("the task's screen", (s) => s.includes("picked-me"));
    client.write("\x1cd");
    proxy.release();
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain(`[detached from task ${id}]`);
  });

  test("Ctrl-C typed while the dashboard connects is its key, not a signal", async () => {
    await fleet.run("sleep 3600");
    const env = await proxied();
    const held = proxy.holdReply("subscribe", "release");
    const client = proxiedClient(env, []);
    await held;
    client.write("\x03");
    proxy.release();
    expect(await client.proc.exited).toBe(0);
    expect((await fleet.ls()).map((t) => t.state)).toEqual(["running"]);
  });
});
