import { describe, expect, test } from "bun:test";
import { OpenSlots, Overtaken } from "../../src/client-open-slots.ts";

/** An open that ends when told: resolve(), or reject(). */
function heldOpen() {
  const { promise, resolve, reject } = Promise.withResolvers<string>();
  return { open: () => promise, resolve, reject };
}

describe("open slots", () => {
  test("at most the limit of opens per host run at once; the rest start in the order asked as each ends, another host unaffected", async () => {
    const slots = new OpenSlots(2);
    const started: number[] = [];
    const held = Array.from({ length: 5 }, () => heldOpen());
    const runs = held.map((h, i) =>
      slots.run(
        "gpu1",
        () => false,
        () => {
          started.push(i);
          return h.open();
        },
      ),
    );
    const other = heldOpen();
    const elsewhere = slots.run("gpu2", () => false, other.open);
    await Bun.sleep(0);
    expect({ started, inFlight: slots.inFlight("gpu1"), gpu2: slots.inFlight("gpu2") }).toEqual({ started: [0, 1], inFlight: 2, gpu2: 1 });
    held[1]!.resolve("one");
    await runs[1];
    await Bun.sleep(0);
    expect(started).toEqual([0, 1, 2]);
    held[0]!.reject(new Error("refused"));
    await expect(runs[0]!).rejects.toThrow("refused");
    await Bun.sleep(0);
    expect(started).toEqual([0, 1, 2, 3]);
    for (const h of held) h.resolve("done");
    await Promise.all(runs.slice(2));
    other.resolve("other");
    expect(await elsewhere).toBe("other");
    expect([slots.inFlight("gpu1"), slots.inFlight("gpu2")]).toEqual([0, 0]);
  });

  test("an open no longer wanted when its slot comes is not made, and frees the slot", async () => {
    const slots = new OpenSlots(1);
    const first = heldOpen();
    const running = slots.run("gpu1", () => false, first.open);
    let wanted = true;
    let made = false;
    const waiting = slots.run(
      "gpu1",
      () => !wanted,
      async () => {
        made = true;
        return "made";
      },
    );
    wanted = false;
    first.resolve("first");
    await running;
    await expect(waiting).rejects.toBeInstanceOf(Overtaken);
    expect(made).toBe(false);
    expect(slots.inFlight("gpu1")).toBe(0);
  });
});
