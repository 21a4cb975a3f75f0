// The client's one live fleet model, driven without a daemon: a subscription's answer and then a
// run of events recorded from a real daemon (a task started, printing, exiting; another killed and
// removed) are applied in one place; and its link, lost and made again by the one reconnect policy.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientHandlers, DaemonClient } from "../../src/client.ts";
import { type FleetLink, FleetModel, LinkedFleet, retryDelay } from "../../src/client-fleet.ts";
import type { TaskEvent, TaskInfo } from "../../src/wire-protocol.ts";
import { taskInfo } from "../harness/task-info.ts";

/** A connection as the model meets it: the subscription's answer, then events pushed by the test. */
class FakeClient {
  handlers: ClientHandlers = {};
  lostLink: string | null = null;
  closed = false;
  constructor(private readonly fleet: TaskInfo[]) {}
  async subscribe(apply: (tasks: TaskInfo[]) => void): Promise<TaskInfo[]> {
    apply(this.fleet);
    return this.fleet;
  }
  push(event: TaskEvent): void {
    this.handlers.event?.(event);
  }
  /** The link drops under the holder, as ssh's end does. */
  drop(why: string): void {
    this.lostLink = why;
    this.handlers.closed?.(new Error(why));
  }
  close(): void {
    this.closed = true;
  }
  destroy(): void {
    this.closed = true;
  }
}

const asClient = (fake: FakeClient) => fake as unknown as DaemonClient;

/**
 * A session as a real daemon told it (test/harness/record-fleet-events.ts): task 1 (`api`) ran
 * before the subscription; task 2 (`tests`) started, printed, exited 0; `api` was killed and removed.
 */
const RECORDED: { subscribe: TaskInfo[]; events: TaskEvent[] } = JSON.parse(
  readFileSync(join(import.meta.dir, "../harness/fixtures/fleet-events.json"), "utf8"),
);

/** Polls `ok` until it holds, a bound on the wait (no fixed sleep). */
async function until(ok: () => boolean, what: string, boundMs = 20_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await Bun.sleep(20);
  }
}

describe("the fleet model", () => {
  test("takes the fleet from the subscription, then applies each recorded event, telling what the task was before", async () => {
    const heard: [string, number, string | undefined][] = [];
    const model = new FleetModel((e, before) => heard.push([e.event, e.task.id, before?.state]));
    const client = new FakeClient(RECORDED.subscribe);
    let first: number[] = [];
    await model.follow(asClient(client), (tasks) => (first = tasks.map((t) => t.id)));
    expect(first).toEqual([1]);
    expect([...model.tasks.keys()]).toEqual([1]);

    for (const e of RECORDED.events) client.push(e);
    expect([...model.tasks.keys()]).toEqual([2]);
    const kept = model.tasks.get(2)!;
    expect([kept.name, kept.state, kept.exitCode, kept.preview]).toEqual(["tests", "exited", 0, "PASS 12 tests"]);
    expect(model.owns(kept)).toBe(true);
    expect(model.owns({ ...kept })).toBe(false);
    expect(heard).toEqual([
      ["created", 2, undefined],
      ["changed", 2, "running"],
      ["exited", 2, "running"],
      ["exited", 1, "running"],
      ["removed", 1, "exited"],
    ]);
  });

  test("a second subscription replaces the fleet held, not adds to it", async () => {
    const model = new FleetModel();
    await model.follow(asClient(new FakeClient([taskInfo(1), taskInfo(2)])));
    await model.follow(asClient(new FakeClient([taskInfo(3)])));
    expect([...model.tasks.keys()]).toEqual([3]);
  });
});

describe("the one reconnect policy", () => {
  test("waits 1, 2, 4, then every 8 s", () => {
    expect([0, 1, 2, 3, 4, 9].map(retryDelay)).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  test("a link that fails is lost (why, and when it is tried again), made again, and lost and made again when it drops", async () => {
    const outcomes: (FakeClient | Error)[] = [new Error("Connection refused"), new FakeClient([taskInfo(7)]), new FakeClient([taskInfo(8)])];
    const opened: FakeClient[] = [];
    class TestFleet extends LinkedFleet {
      protected async open(): Promise<DaemonClient> {
        const next = outcomes.shift()!;
        if (next instanceof Error) throw next;
        opened.push(next);
        return asClient(next);
      }
      protected lostWords(why: string) {
        return { reason: why, said: `test is unreachable: ${why}` };
      }
    }
    const links: FleetLink["kind"][] = [];
    const fleet = new TestFleet({ event: () => {}, linkChanged: () => links.push(fleet.link.kind) }, null);
    try {
      const before = Date.now();
      await fleet.connect();
      const lost = fleet.link;
      expect(lost).toMatchObject({ kind: "lost", reason: "Connection refused", said: "test is unreachable: Connection refused" });
      // The first retry is a second away (at least), never at once.
      expect(lost.kind === "lost" && lost.retryAt - before).toBeGreaterThanOrEqual(retryDelay(0));

      await until(() => fleet.link.kind === "up", "the link made again");
      expect([...fleet.tasks.keys()]).toEqual([7]);
      expect(fleet.client).toBe(asClient(opened[0]!));

      opened[0]!.drop("ssh: connect to host x port 22: Connection reset");
      expect(fleet.link).toMatchObject({ kind: "lost", reason: "ssh: connect to host x port 22: Connection reset" });
      expect(fleet.tasks.size).toBe(0);
      expect(fleet.client).toBeNull();

      await until(() => fleet.link.kind === "up", "the dropped link made again");
      expect([...fleet.tasks.keys()]).toEqual([8]);
      expect(links).toEqual(["connecting", "lost", "up", "lost", "up"]);
    } finally {
      fleet.close();
    }
    expect(opened[1]!.closed).toBe(true);
  });
});
