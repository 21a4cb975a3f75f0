// The push rules (src/daemon-notify.ts) against a receiver on 127.0.0.1: the per-task rate window (the
// newest transition held back goes at its end, if still true), which ends are pushed, the bounded
// queue, and the requests' shapes. No timing is asserted: each test waits on what the receiver or
// the callbacks saw.
import { afterEach, describe, expect, test } from "bun:test";
import type { Notice } from "../../src/daemon-notify-command.ts";
import { attentionEvent, headerText, Push, PUSH_TIMING, type PushBody, pushRequest, QUEUE_BOUND } from "../../src/daemon-notify.ts";
import { notifyDestination } from "../../src/settings.ts";
import { until } from "../harness/fleet.ts";

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

/** A receiver that keeps each POST's JSON; `answer` decides when and how it replies. */
function receiver(answer: () => Response | Promise<Response> = () => new Response("ok")): { url: string; bodies: PushBody[] } {
  const bodies: PushBody[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      bodies.push(await request.json());
      return answer();
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/hook`, bodies };
}

const waiting = (message: string, state: Notice["attention"]["state"] = "input"): Notice["attention"] => ({ state, since: new Date().toISOString(), message });
const task = (id: number) => ({ id, name: `task ${id}`, group: null });
const noScreen = () => [];

function push(url: string, options: { intervalMs?: number; stillTrue?: (body: PushBody) => boolean; logs?: string[] } = {}): Push {
  const p = new Push({
    timing: { ...PUSH_TIMING, intervalMs: options.intervalMs ?? PUSH_TIMING.intervalMs },
    log: (m) => options.logs?.push(m),
    stillTrue: options.stillTrue ?? (() => true),
  });
  p.configure([url]);
  return p;
}

/** A stillTrue that keeps what it was asked about and answers `answer`. */
function noting(asked: PushBody[], answer: boolean): (body: PushBody) => boolean {
  return (body) => {
    asked.push(body);
    return answer;
  };
}

describe("the rate window", () => {
  test("the first transition goes at once; of those inside the window, only the newest goes, at its end", async () => {
    const hook = receiver();
    const p = push(hook.url, { intervalMs: 500 });
    p.raised(task(1), null, waiting("first"), noScreen);
    p.raised(task(1), null, waiting("second"), noScreen);
    p.raised(task(1), null, waiting("third", "permission"), noScreen);
    // Another task has a window of its own.
    p.raised(task(2), null, waiting("other"), noScreen);
    await until("the held push", () => hook.bodies.length >= 3);
    expect(hook.bodies.map((b) => [b.task.id, b.state, b.message])).toEqual([
      [1, "input", "first"],
      [2, "input", "other"],
      [1, "permission", "third"],
    ]);
    await until("the daemon's side to count the three", () => p.status()[0]!.sent === 3);
    expect(p.status()).toEqual([{ destination: hook.url, sent: 3, failed: 0, queued: 0, lastSent: expect.any(String), lastError: null }]);
  });

  test("a held transition no longer true when its turn comes is not sent", async () => {
    const hook = receiver();
    const asked: PushBody[] = [];
    const p = push(hook.url, { intervalMs: 200, stillTrue: noting(asked, false) });
    p.raised(task(1), null, waiting("first"), noScreen);
    p.raised(task(1), null, waiting("answered since"), noScreen);
    await until("the held push's turn", () => asked.length === 1 && p.status()[0]!.sent === 1);
    expect(asked[0]!.message).toBe("answered since");
    // release() decides and sends in one turn: having said no, nothing is on its way.
    expect(p.status()[0]).toMatchObject({ sent: 1, queued: 0 });
    expect(hook.bodies.map((b) => b.message)).toEqual(["first"]);
  });

  test("a task forgotten (removed) loses what was held for it", async () => {
    const hook = receiver();
    const asked: PushBody[] = [];
    const p = push(hook.url, { intervalMs: 200, stillTrue: noting(asked, true) });
    p.raised(task(1), null, waiting("first"), noScreen);
    p.raised(task(1), null, waiting("held"), noScreen);
    p.forget(1);
    // Task 2's held push comes after task 1's would have: by then task 1's would have been asked about.
    p.raised(task(2), null, waiting("a"), noScreen);
    p.raised(task(2), null, waiting("b"), noScreen);
    await until("task 2's held push", () => hook.bodies.length === 3);
    expect(asked.map((b) => b.message)).toEqual(["b"]);
  });
});

describe("transitions", () => {
  test("a bell then the agent's own input is one push (both ask for input); input then permission is two", async () => {
    const hook = receiver();
    const p = push(hook.url, { intervalMs: 0 });
    const bell = waiting("", "bell");
    p.raised(task(1), null, bell, noScreen);
    p.raised(task(1), bell, waiting("Claude is waiting"), noScreen);
    p.raised(task(2), null, waiting("ready"), noScreen);
    p.raised(task(2), waiting("ready"), waiting("Allow?", "permission"), noScreen);
    // One queue, in order: task 1's second would have come before task 2's.
    await until("task 2's two pushes", () => hook.bodies.filter((b) => b.task.id === 2).length === 2);
    expect(hook.bodies.map((b) => [b.task.id, b.state])).toEqual([
      [1, "input"],
      [2, "input"],
      [2, "permission"],
    ]);
  });
});

describe("ends", () => {
  test("exit 0 is finished, another exit or a crash failed; a task stopped on purpose (SIGTERM, SIGHUP, SIGKILL, SIGINT) is not pushed", async () => {
    const hook = receiver();
    const p = push(hook.url);
    for (const signal of ["SIGTERM", "SIGHUP", "SIGKILL", "SIGINT"]) p.ended(task(1), { exitCode: null, signal }, 0, noScreen);
    p.ended(task(2), { exitCode: 0, signal: null }, 0, () => ["all done"]);
    p.ended(task(3), { exitCode: 2, signal: null }, 0, noScreen);
    p.ended(task(4), { exitCode: null, signal: "SIGSEGV" }, 0, noScreen);
    // One queue per destination, in order: had task 1's gone, it would be first.
    await until("the three pushes", () => hook.bodies.length >= 3);
    expect(hook.bodies.map((b) => [b.task.id, b.state, b.message, b.screen])).toEqual([
      [2, "finished", "exited with code 0", ["all done"]],
      [3, "failed", "exited with code 2", []],
      [4, "failed", "ended by SIGSEGV", []],
    ]);
  });
});

describe("a crash loop", () => {
  test("a restart policy giving up is pushed as the task's failure, its message the crash loop", async () => {
    const hook = receiver();
    const p = push(hook.url, { intervalMs: 0 });
    p.raised(task(5), null, waiting("crash loop · 5 restarts in 40s · exit 1", "crash-loop"), noScreen);
    await until("the push", () => hook.bodies.length === 1);
    expect(hook.bodies.map((b) => [b.task.id, b.state, b.message])).toEqual([[5, "failed", "crash loop · 5 restarts in 40s · exit 1"]]);
  });
});

describe("the queue", () => {
  test("a destination that does not answer holds at most QUEUE_BOUND pushes: the oldest is dropped, counted and logged", async () => {
    let answered = 0;
    const hook = receiver(() => new Promise(() => answered++));
    const logs: string[] = [];
    const p = push(hook.url, { logs });
    for (let id = 1; id <= QUEUE_BOUND + 3; id++) p.raised(task(id), null, waiting("w"), noScreen);
    await until("the first push to be in flight", () => hook.bodies.length === 1);
    // One in flight, QUEUE_BOUND waiting, two dropped.
    expect(p.status()[0]).toMatchObject({ sent: 0, failed: 2, queued: QUEUE_BOUND });
    expect(logs).toEqual([
      `push to ${hook.url}: ${QUEUE_BOUND} pushes waiting; the oldest dropped`,
      `push to ${hook.url}: ${QUEUE_BOUND} pushes waiting; the oldest dropped`,
    ]);
    expect(answered).toBe(1);
  });
});

describe("a reload", () => {
  test("a destination kept keeps its counts; a new one starts at nothing; one left out is gone", async () => {
    const kept = receiver();
    const p = push(kept.url, { intervalMs: 0 });
    p.raised(task(1), null, waiting("w"), noScreen);
    await until("the first push counted", () => p.status()[0]!.sent === 1);
    p.configure([kept.url, "ntfy://ntfy.example/new"]);
    expect(p.status()).toEqual([
      expect.objectContaining({ destination: kept.url, sent: 1 }),
      { destination: "ntfy://ntfy.example/new", sent: 0, failed: 0, queued: 0, lastSent: null, lastError: null },
    ]);
    p.configure(["ntfy://ntfy.example/new"]);
    expect(p.status().map((s) => s.destination)).toEqual(["ntfy://ntfy.example/new"]);
  });
});

describe("the requests", () => {
  const body: PushBody = {
    host: "box",
    task: { id: 7, name: "api", group: "web" },
    state: "permission",
    message: "Allow Bash(rm -rf build)?",
    screen: ["secret", "lines"],
    time: "2026-12-01T10:00:00.000Z",
  };
  const destination = (written: string) => {
    const parsed = notifyDestination(written);
    if (!("ok" in parsed) || parsed.ok.kind === "command") throw new Error(`not a URL destination: ${written}`);
    return parsed.ok;
  };

  test("a webhook gets the body as JSON", () => {
    const { url, init } = pushRequest(destination("https://hooks.example/x"), body);
    expect(url).toBe("https://hooks.example/x");
    expect(init.headers["Content-Type"]).toBe("application/json");
    expect(JSON.parse(init.body)).toEqual(body);
  });

  test("ntfy gets a title, priority, tags, the click URL and credentials as headers, the message as its body, never the screen", () => {
    const { url, init } = pushRequest(destination("ntfy://me:pw@ntfy.example:8443/alerts?click=https://x.test/7"), body);
    expect(url).toBe("https://ntfy.example:8443/alerts");
    expect(init.headers).toMatchObject({
      Title: "api asks for permission (box)",
      Priority: "high",
      Tags: "warning",
      Click: "https://x.test/7",
      Authorization: `Basic ${btoa("me:pw")}`,
    });
    expect(init.body).toBe("Allow Bash(rm -rf build)?");
    expect(JSON.stringify(init)).not.toContain("secret");
  });

  test("a title that is not ASCII goes as an RFC 2047 encoded word; control characters become spaces", () => {
    expect(headerText("api waits")).toBe("api waits");
    expect(headerText("wärter ✻")).toBe(`=?UTF-8?B?${Buffer.from("wärter ✻").toString("base64")}?=`);
    expect(headerText("a\r\nInjected: 1")).toBe("a Injected: 1");
  });
});

describe("the event a destination's `events` filters a wait on", () => {
  const attention = (state: Notice["attention"]["state"]) => ({ state, message: null, since: "2026-12-04T00:00:00.000Z" }) as Notice["attention"];
  test("each attention state is its own event; a bell asks for input as a prompt does", () => {
    expect(["input", "permission", "bell", "crash-loop", "not-ready"].map((s) => attentionEvent(attention(s as Notice["attention"]["state"])))).toEqual([
      "input",
      "permission",
      "input",
      "crash-loop",
      "not-ready",
    ]);
  });
});
