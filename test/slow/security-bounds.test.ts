// Issue 11's bounds: what a client, a task or a recipe can make the daemon hold or wait for. Each
// test drives the real daemon through raw socket clients or the CLI and checks the bound, not a time.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadChunks } from "../../src/client-recipes.ts";
import { coalesce } from "../../src/daemon-connection.ts";
import type { TaskEvent, TaskInfo } from "../../src/wire-protocol.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { entry, runFleetcom, thrown } from "../harness/helpers.ts";
import { snapshotFileName } from "../../src/recipe-snapshot-rules.ts";
import { SnapshotWriter, type SnapshotState } from "../../src/daemon-snapshots.ts";
import { recoveryDirOf } from "../harness/recovery-helpers.ts";
import type { RawClient } from "../harness/raw-client.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

async function subscribed(): Promise<RawClient> {
  const client = await fleet.rawClient();
  expect((await client.request("subscribe")).ok).toBe(true);
  return client;
}

/** Bytes of control frames `client` receives up to and including the reply to one more request. */
async function bytesUntilNextReply(client: RawClient): Promise<number> {
  const before = client.controlBytes;
  await client.request("ls");
  return client.controlBytes - before;
}

/** A task whose every output turns into a changed event of about `size` bytes (a long command). */
function chattyCommand(i: number, size: number): string {
  return `while :; do echo tick ${i}; sleep 0.25; done # ${"x".repeat(size)}`;
}

describe("M4: a client that stops reading", () => {
  const event = (kind: TaskEvent["event"], state: TaskInfo["state"] = "running"): TaskEvent => ({
    type: "event",
    event: kind,
    task: { id: 1, state } as TaskInfo,
  });

  test("a waiting event is replaced by the later state, announced as created while the client never heard of the task", () => {
    expect(coalesce(undefined, event("changed"))).toEqual(event("changed"));
    expect(coalesce(event("changed"), event("exited", "exited"))).toEqual(event("exited", "exited"));
    expect(coalesce(event("exited", "exited"), event("changed"))).toEqual(event("changed"));
    expect(coalesce(event("created"), event("exited", "exited"))).toEqual(event("created", "exited"));
    expect(coalesce(event("changed"), event("removed"))).toEqual(event("removed"));
    expect(coalesce(event("created"), event("removed"))).toBeNull();
    const notice = { type: "snapshot", error: null } as const;
    expect(coalesce({ type: "snapshot", error: { message: "x", since: "t" } }, notice)).toEqual(notice);
  });

  test("costs the daemon a bounded queue while 20 chatty tasks run: events wait coalesced, one per task", async () => {
    const driver = await fleet.rawClient();
    for (let i = 0; i < 20; i++) expect((await driver.request("run", { command: chattyCommand(i, 4000) })).ok).toBe(true);
    const stuck = await subscribed();
    stuck.pause();
    const watcher = await subscribed();
    // The watcher gets every event the stuck client would have: wait until that is well past any bound.
    const broadcast = 2 * 1024 * 1024;
    await until("2 MiB of events broadcast", () => watcher.controlBytes > broadcast, 60_000);
    const held = await driver.clientStats();
    // Reading again, it gets what the kernel held, the queue and one event per task: not the backlog.
    stuck.resume();
    const delivered = await bytesUntilNextReply(stuck);
    if (process.env.SHOW_NUMBERS) console.log({ broadcast: watcher.controlBytes, held, delivered });
    expect(delivered).toBeLessThan(broadcast / 2);
    const latest = stuck.messages.filter((m) => m.type === "event");
    expect(new Set(latest.map((m) => (m.task as { id: number }).id)).size).toBe(20);
    // EVENT_HIGH_WATER (64 KiB) plus the event that crossed it.
    expect(held.maxQueuedBytes).toBeLessThan(128 * 1024);
    expect(held.waitingEvents).toBeGreaterThan(0);
    expect(held.waitingEvents).toBeLessThanOrEqual(20);
    expect((await driver.clientStats()).droppedBehind).toBe(0);
  }, 120_000);

  test("that keeps asking without reading is dropped with a reason it can read, and nothing else is", async () => {
    const driver = await subscribed();
    const task = (await driver.request("run", { command: `sleep 600 # ${"y".repeat(60_000)}` })).result as { id: number };
    const greedy = await fleet.rawClient();
    greedy.pause();
    // Each `tag` reply carries the 60 KB command: 200 unread replies would be 12 MB queued for it.
    const replies = Array.from({ length: 200 }, () => greedy.request("tag", { task: { id: task.id } }));
    const tagEvents = () => driver.messages.filter((m) => m.type === "event" && (m.task as { id: number }).id === task.id).length;
    await until("the daemon to handle or drop the burst", async () => tagEvents() >= 201 || (await driver.clientStats()).droppedBehind === 1, 60_000);
    greedy.resume();
    await until("the greedy client closed, or every reply in", async () => greedy.closed || (await Promise.all(replies)).length === 200, 30_000);
    const refusal = greedy.messages.find((m) => m.type === "refused");
    expect(refusal?.error).toMatch(/^dropped: this client stopped reading \(\d+(\.\d)? MiB queued for it\)$/);
    expect((await Promise.all(replies)).filter((r) => r.ok).length).toBeLessThan(200);
    expect((await driver.clientStats()).droppedBehind).toBe(1);
    expect((await fleet.task(task.id)).state).toBe("running");
  }, 120_000);

  test("that pipelines peek --history requests is answered a few at a time and dropped, while the others are served", async () => {
    const driver = await subscribed();
    // 2,000 lines of 118 characters: each history reply is about 240 KB.
    const printer = `python3 -c 'for i in range(3000): print("%06d " % i + "y"*110)'; echo PRINTED; sleep 600`;
    const task = (await driver.request("run", { command: printer })).result as { id: number };
    await until("the history printed", async () => (await fleet.task(task.id)).preview?.includes("PRINTED"), 60_000);
    const greedy = await fleet.rawClient();
    greedy.pause();
    // One write: a tag (its event tells the driver the daemon has begun on this client), then 300
    // requests for replies of 240 KB each, about 70 MB the client never reads.
    const tagged = () => driver.messages.some((m) => m.type === "event" && (m.task as { id: number }).id === task.id && m.task.tagged);
    const requests = [greedy.request("tag", { task: { id: task.id } })];
    for (let i = 0; i < 300; i++) requests.push(greedy.request("peek", { task: { id: task.id }, lines: 2000, history: true }));
    await until("the daemon to take the greedy client's requests", tagged, 60_000);
    // Whether the driver's next request is answered before or after the drop depends on the
    // machine's speed (the queue passes its bound after ~35 replies); that the replies are built a
    // few at a time is what `answered` and `maxQueuedBytes` below hold.
    await until("the greedy client dropped", async () => (await driver.clientStats()).droppedBehind === 1, 60_000);
    greedy.resume();
    await until("the greedy client closed", () => greedy.closed, 30_000);
    expect(greedy.messages.find((m) => m.type === "refused")?.error).toMatch(/^dropped: this client stopped reading \(\d+(\.\d)? MiB queued for it\)$/);
    const answered = (await Promise.all(requests)).filter((r) => r.ok).length;
    expect(answered).toBeLessThan(100);
    const stats = await driver.clientStats();
    expect(stats.connected).toBe(2);
    expect(stats.maxQueuedBytes).toBeLessThan(1024 * 1024);
    expect((await fleet.task(task.id)).state).toBe("running");
  }, 120_000);
});

describe("M6: a large load", () => {
  test("lets another client's status through before its own reply", async () => {
    const loader = await subscribed();
    const other = await fleet.rawClient();
    const entries = Array.from({ length: 300 }, (_, i) => entry(fleet.sandbox.home, `sleep 600 # ${i}`));
    const order: string[] = [];
    const noted =
      (what: string) =>
      <T>(reply: T): T => {
        order.push(what);
        return reply;
      };
    const load = loader.request("load", { entries }).then(noted("load"));
    await until("the load under way", () => loader.messages.some((m) => m.type === "event" && m.event === "created"), 60_000);
    const status = other.request("status").then(noted("status"));
    const [loaded, answered] = await Promise.all([load, status]);
    expect(order).toEqual(["status", "load"]);
    expect(answered.ok).toBe(true);
    expect((loaded.result as { started: number[] }).started).toHaveLength(300);
  }, 120_000);
});

describe("L4: a recipe larger than one request", () => {
  test("of 100,000 entries loads in chunks on one connection", async () => {
    const file = join(fleet.sandbox.home, "huge.json");
    const missing = join(fleet.sandbox.root, "no-such-dir");
    writeFileSync(file, JSON.stringify({ [missing]: Array.from({ length: 100_000 }, (_, i) => `echo entry ${i}`) }));
    const r = await fleet.cli(["load", file]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("loaded 'huge': 0 task(s), 100000 skipped (missing directory), 0 dropped");
    expect(r.code).toBe(0);
  }, 120_000);

  test("splits into request-sized runs in order, and refuses an entry no request can carry, naming the file", () => {
    const entries = Array.from({ length: 50 }, (_, i) => entry("/d", `cmd ${i} ${"z".repeat(100)}`));
    const chunks = loadChunks(entries, "/r.json", 1000);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat()).toEqual(entries);
    for (const chunk of chunks) expect(JSON.stringify(chunk).length).toBeLessThanOrEqual(1000);
    const huge = entry(`/${"d".repeat(2000)}`, "true");
    expect(thrown(() => loadChunks([huge], "/r.json", 1000)).message).toMatch(
      /^\/r\.json: an entry in \/d+… is too large to send \(\d+ bytes; at most 1000\)$/,
    );
  });

  test("a command over 64 KiB is refused in one line naming the file, by the dry run and the load alike", async () => {
    const file = join(fleet.sandbox.home, "long.json");
    writeFileSync(file, JSON.stringify({ [fleet.sandbox.home]: ["true", `echo ${"a".repeat(70_000)}`] }));
    const expected = `fleetcom: ${file}: command too long (70005 bytes; at most 64 KiB) in ${fleet.sandbox.home}\n`;
    for (const args of [
      ["load", file],
      ["load", "--dry-run", file],
    ]) {
      const r = await fleet.cli(args);
      expect(r.stderr).toBe(expected);
      expect(r.code).toBe(1);
    }
    expect(await fleet.ls()).toEqual([]);
    const run = await fleet.cli(["run", "--", `echo ${"a".repeat(70_000)}`]);
    expect(run.stderr).toBe("fleetcom: command too long (70005 bytes; at most 64 KiB)\n");
    expect(run.code).toBe(1);
  }, 60_000);
});

describe("L2: input to a task that does not read", () => {
  test("is bounded: send past 1 MiB pending is refused whole, what was accepted arrives whole, task and daemon live on", async () => {
    const driver = await fleet.rawClient();
    // Raw mode, so the terminal passes bytes through as they are; nothing is read until the file
    // `count` says how many bytes to read, and then exactly that many.
    const countFile = join(fleet.sandbox.home, "count");
    const command = `stty raw -echo; echo ready; while [ ! -s ${countFile} ]; do sleep 0.1; done; head -c $(cat ${countFile}) | wc -c; sleep 600`;
    const id = ((await driver.request("run", { command })).result as { id: number }).id;
    // Typed before raw mode, a long line would be cut by the terminal's own line editor.
    await until("the task in raw mode", async () => (await fleet.peek(id)).includes("ready"));
    const chunk = "a".repeat(200 * 1024);
    const replies: { ok: boolean; error?: string }[] = [];
    for (let i = 0; i < 10; i++) replies.push(await driver.request("send", { task: { id }, text: chunk }));
    const accepted = replies.filter((r) => r.ok).length;
    const refusals = replies.filter((r) => !r.ok).map((r) => r.error);
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]).toMatch(new RegExp(`^task ${id} is not reading its input \\((\\d|\\.)+ MiB pending\\)$`));
    // The bound, plus what the terminal itself buffers (4 KiB) before anything waits in the daemon.
    expect(accepted * chunk.length).toBeLessThanOrEqual(1024 * 1024 + 4096);
    expect((await driver.request("status")).ok).toBe(true);
    expect((await fleet.task(id)).state).toBe("running");
    // Every accepted send arrives in full: the task reads exactly that many bytes and says so.
    writeFileSync(countFile, String(accepted * chunk.length));
    expect(await until("the task to count its input", async () => (await fleet.peek(id)).match(/^\s*(\d+)$/m)?.[1], 30_000)).toBe(
      String(accepted * chunk.length),
    );
    // Drained, it takes input again.
    expect((await driver.request("send", { task: { id }, text: "x" })).ok).toBe(true);
  }, 60_000);

  test("a single send over 1 MiB is refused, not cut", async () => {
    const driver = await fleet.rawClient();
    const id = ((await driver.request("run", { command: "sleep 600" })).result as { id: number }).id;
    const reply = await driver.request("send", { task: { id }, text: "b".repeat(1024 * 1024 + 1) });
    expect(reply).toMatchObject({ ok: false, error: "send: text too long (1048577 bytes; at most 1 MiB at a time)" });
  });

  test("send - with more than a frame on stdin says text too long, as for 2 MiB, and types nothing", async () => {
    const id = await fleet.run("cat");
    const stdin = `${"c".repeat(5 * 1024 * 1024)}\n`;
    const r = await runFleetcom(["send", String(id), "-"], { env: fleet.env, cwd: fleet.sandbox.home, stdin });
    expect(r.stderr).toBe("fleetcom: send: text too long (5242880 bytes; at most 1 MiB at a time)\n");
    expect(r.code).toBe(1);
    await fleet.ok(["send", String(id), "after"]);
    const screen = await until("the next send typed", async () => {
      const text = await fleet.peek(id);
      return text.includes("after") && text;
    });
    expect(screen).not.toContain("ccc");
  });

  test("keystrokes from an attached client wait in its own queue past the bound, and flow again once the task ends", async () => {
    const driver = await fleet.rawClient();
    const id = ((await driver.request("run", { command: "sleep 600" })).result as { id: number }).id;
    const typist = await fleet.rawClient();
    expect((await typist.request("attach", { task: { id }, cols: 80, rows: 24 })).ok).toBe(true);
    const frame = new Uint8Array(512 * 1024).fill(0x61);
    for (let i = 0; i < 8; i++) typist.sendData(frame);
    await until("the typist's input paused", async () => (await driver.clientStats()).inputBlocked === 1, 30_000);
    expect((await driver.request("kill", { tasks: [{ id }] })).ok).toBe(true);
    await until("the typist told of the exit", () => typist.messages.some((m) => m.type === "attach-end"), 30_000);
    expect((await driver.clientStats()).inputBlocked).toBe(0);
    expect((await typist.request("ls")).ok).toBe(true);
  }, 60_000);
});

describe("L10: snapshot writes that fail", () => {
  test("the writer reports a streak's first failure once, the first unsaved change, and clears both on success", () => {
    const root = mkdtempSync(join(tmpdir(), "fleetcom-l10-"));
    try {
      const states: SnapshotState[] = [];
      const entries = [entry("/srv", "top")];
      const source = { startedAt: new Date(), recipe: () => entries, snapshotState: (s: SnapshotState) => void states.push(s) };
      // The recovery directory's parent is a file: every pass fails with ENOTDIR.
      writeFileSync(join(root, "file"), "");
      const dir = join(root, "file", "recovery");
      const w = new SnapshotWriter(source, { dir, home: "/home/u", debounceMs: 3_600_000, checkMs: 3_600_000, log: () => {} });
      w.changed();
      expect(states).toHaveLength(1);
      expect(states[0]!.pendingSince).not.toBeNull();
      w.pass();
      w.pass();
      expect(states).toHaveLength(2);
      expect(states[1]!.error!.message).toContain("ENOTDIR");
      expect(states[1]!.pendingSince).toBe(states[0]!.pendingSince);
      rmSync(join(root, "file"));
      mkdirSync(join(root, "file"));
      w.pass();
      expect(states).toHaveLength(3);
      expect(states[2]).toEqual({ error: null, pendingSince: null });
      w.stop();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  /** `snapshot failed` lines in the daemon log: one per failed pass. */
  const failedPasses = () =>
    readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8")
      .split("\n")
      .filter((l) => / snapshot failed: /.test(l)).length;

  test("reach subscribed clients and status once per streak, make recover --list warn, and clear on the next good write", async () => {
    fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = "100";
    fleet.env.FLEETCOM_SNAPSHOT_CHECK_MS = "3600000";
    const watcher = await subscribed();
    const started = (await watcher.request("status")).result as { pid: number; startedAt: string };
    // Root ignores modes, so the write is made to fail another way: a directory where the file goes.
    const blocker = join(recoveryDirOf(fleet), snapshotFileName(new Date(started.startedAt), started.pid));
    mkdirSync(blocker, { recursive: true });
    const notices = () => watcher.messages.filter((m) => m.type === "snapshot") as unknown as { error: { message: string; since: string } | null }[];
    const id = ((await watcher.request("run", { command: "sleep 600" })).result as { id: number }).id;
    await until("the failure told", () => notices().length === 1);
    const error = notices()[0]!.error!;
    expect(error.message).toContain(blocker);
    expect(Date.parse(error.since)).not.toBeNaN();
    const status = (await watcher.request("status")).result as { snapshotError: unknown; snapshotPendingSince: string | null };
    expect(status.snapshotError).toEqual(error);
    expect(status.snapshotPendingSince).not.toBeNull();

    // A second failed pass is the same streak: no second notice. A client subscribing now hears of it.
    await watcher.request("rename", { task: { id }, name: "again" });
    await until("a second failed pass", () => failedPasses() >= 2);
    expect(notices()).toHaveLength(1);
    const late = await subscribed();
    await until("the late subscriber told", () => late.messages.some((m) => m.type === "snapshot"));
    expect(late.messages.find((m) => m.type === "snapshot")).toEqual({ type: "snapshot", error });

    const listed = await fleet.cli(["recover", "--list"]);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(
      /^fleetcom: warning: the running daemon's fleet changed \d+s ago and is newer than every snapshot listed: writing snapshots has failed for \d+s \(.+\)\n$/,
    );

    rmdirSync(blocker);
    await watcher.request("rename", { task: { id }, name: "fixed" });
    await until("the recovery told", () => notices().length === 2);
    expect(notices()[1]!.error).toBeNull();
    expect(((await watcher.request("status")).result as { snapshotError: unknown }).snapshotError).toBeNull();
    expect((await fleet.cli(["recover", "--list"])).stderr).toBe("");
  }, 60_000);
});

describe("L12: finished tasks", () => {
  const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);

  test("each keep a few hundred KB, not an emulator, and still peek and attach to their last screen", async () => {
    const driver = await fleet.rawClient();
    const daemon = fleet.daemonPid()!;
    /** Runs `count` floods of 3 MB each (far more than the 2,000 lines of scrollback an emulator keeps) and waits for them to end. */
    const floods = async (count: number, first: number) => {
      const ids: number[] = [];
      for (let i = first; i < first + count; i++)
        ids.push(((await driver.request("run", { command: `head -c 2250000 /dev/urandom | base64; echo last line ${i}` })).result as { id: number }).id);
      await until("every flood to end", async () => ((await driver.request("ls")).result as { state: string }[]).every((t) => t.state === "exited"), 120_000);
      return ids;
    };
    // The first floods pay what only the first pays (the parser's compiled code, the heap grown to
    // its working size: ~15 MB here, which divided among ten tasks once failed the bound below), so
    // what each finished task keeps is measured past them.
    await floods(3, 0);
    const base = rssKb(daemon);
    const ids = await floods(10, 3);
    // An emulator with its scrollback full is ~5.5 MB (the field report's figure); a finished screen
    // keeps ~0.33 MB (test/unit/term-screen-finished.test.ts). The garbage of the floods takes a GC to go.
    const perTaskMb = () => (rssKb(daemon) - base) / 1024 / ids.length;
    await until("the floods' memory given back", async () => (await driver.request("ls")).ok && perTaskMb() < 1.5, 90_000);

    const last = ids.at(-1)!;
    expect((await fleet.peek(last)).split("\n").at(-2)).toBe("last line 12");
    const peeked = (await driver.request("peek", { task: { id: last }, lines: 3000 })).result as { text: string };
    expect(peeked.text.split("\n").length).toBeGreaterThan(2000);
    expect((await fleet.task(last)).preview).toBe("last line 12");
    // An attach from a narrower terminal gets the screen reflowed to its size, then the exit stands.
    const viewer = await fleet.rawClient();
    const attached = await viewer.request("attach", { task: { id: last }, cols: 40, rows: 10 });
    expect(attached.ok).toBe(true);
    await until("the screen drawn", () => viewer.data.includes("last line 12"));
    // At 40 columns the 76-column base64 lines arrive wrapped (drawn by autowrap, term-serialize.ts),
    // as the live screen would have reflowed them; at the task's 80 columns nothing wraps.
    expect(viewer.data).toContain("-\x1b[D\x1b[X");
    expect((await viewer.request("detach")).ok).toBe(true);
  }, 240_000);
});

describe("L13: floods a client watches", () => {
  const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);

  test("each running flood keeps its unread tail, not an emulator full of scrollback, while its previews are read", async () => {
    // A long scrollback makes the difference plain: an emulator that parsed 20,000 lines held ~40 MB
    // here, the unread tail that decides them at most twice their text (~3 MB of base64 lines).
    fleet.env.FLEETCOM_SCROLLBACK = "20000";
    const watcher = await subscribed();
    const daemon = fleet.daemonPid()!;
    /** `count` tasks that print 3 MB of base64 (~40,000 lines), then a last line, then `then`. */
    const floods = async (count: number, first: number, then: string) => {
      const ids: number[] = [];
      for (let i = first; i < first + count; i++)
        ids.push(
          ((await watcher.request("run", { command: `head -c 2250000 /dev/urandom | base64; echo last line ${i}; ${then}` })).result as { id: number }).id,
        );
      const listed = async () => (await watcher.request("ls")).result as { id: number; preview: string }[];
      await until(
        "every flood to print its last line",
        async () => {
          const tasks = await listed();
          return ids.every((id, n) => tasks.find((t) => t.id === id)?.preview === `last line ${first + n}`);
        },
        120_000,
      );
      return ids;
    };
    // Measured from a daemon that has started a task and loaded the terminal emulator's code: what
    // only the first flood pays (compiled code, the heap grown to its working size) is in the bound.
    const warm = ((await watcher.request("run", { command: "printf '\\033[1mwarm\\033[0m\\n'" })).result as { id: number }).id;
    await until("the emulator's code loaded", async () => (await fleet.task(warm)).preview === "warm");
    const base = rssKb(daemon);
    // The subscribed client is sent each task's preview every quarter second while it prints, and the
    // polls above read it too: reading it must not parse the flood into the task's emulator.
    const ids = await floods(5, 1, "exec sleep 3600");
    const perTaskMb = () => (rssKb(daemon) - base) / 1024 / ids.length;
    await until("the floods' garbage given back", async () => (await watcher.request("ls")).ok && perTaskMb() < 12, 90_000);
    // What is kept still shows: the screen as parsing it all would show it.
    const last = ids.at(-1)!;
    expect((await fleet.peek(last)).split("\n").at(-2)).toBe("last line 5");
    expect((await fleet.task(last)).preview).toBe("last line 5");
  }, 300_000);
});
