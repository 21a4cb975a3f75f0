// What the daemon announces and the settings that shape it: events to subscribed clients, idle and
// active, scrollback, through the real program.
import { describe, expect, test } from "bun:test";
import { encodeControl } from "../../src/wire-framing.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { RawClient } from "../harness/raw-client.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

/** A raw client that has shaken hands and subscribed to task events. */
async function subscribedClient(): Promise<RawClient> {
  const raw = new RawClient(await fleet.socketPath());
  raw.hello();
  raw.socket.write(encodeControl({ type: "request", id: 1, op: "subscribe" }));
  await until("subscribed", () => raw.messages.some((m) => m.type === "reply" && m.id === 1));
  return raw;
}

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

  test("attach without a size looks at the task at its own size; a terminal's resize is told to subscribers (the web view)", async () => {
    const raw = await subscribedClient();
    const id = await fleet.run("echo sized; sleep 600");
    const before = await fleet.task(id);
    const looker = await fleet.rawClient();
    const looked = await looker.request("attach", { task: { id } });
    expect(looked.ok).toBe(true);
    await until("the screen", () => looker.data.includes("sized"));
    expect(await fleet.task(id)).toMatchObject({ cols: before.cols, rows: before.rows });
    const terminal = await fleet.rawClient();
    await terminal.request("attach", { task: { id }, cols: 71, rows: 19 });
    await until("a change with the new size", () =>
      raw.messages.some((m) => m.event === "changed" && m.task.id === id && m.task.cols === 71 && m.task.rows === 19),
    );
    await terminal.request("resize", { cols: 72, rows: 20 });
    await until("a change with the resized size", () =>
      raw.messages.some((m) => m.event === "changed" && m.task.id === id && m.task.cols === 72 && m.task.rows === 20),
    );
    for (const c of [raw, looker, terminal]) c.close();
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

  test("the history keeps the scrollback setting's lines above the screen as well as the screen, as tmux and xterm count them", async () => {
    await fleet.cli(["ls"], { env: { FLEETCOM_SCROLLBACK: "50" } });
    const id = await fleet.run("seq 1 200");
    await fleet.waitForExit(id);
    const history = (await fleet.ok(["peek", String(id), "--history"])).split("\n").filter(Boolean);
    // 50 lines above a 40-row screen whose last row is the cursor's: 112 to 200.
    expect(history[0]).toBe(String(200 - 90 + 2));
    expect(history.at(-1)).toBe("200");
    expect(history).toEqual((await fleet.ok(["peek", String(id), "--lines", "1000"])).split("\n").filter(Boolean));
  });
});
