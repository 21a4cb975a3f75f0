// Attached mode with a fleet of 100 tasks (issue 17): moving between tasks without leaving attached
// mode, the detach key, the status line. Each fleet is started with one `load` of a generated
// recipe; keys go through the real program in a real PTY.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, Fleet, type PtyClient, until } from "./fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const DETACH = "\x1c";

/**
 * 100 tasks, ids 1 to 100, named svc-N: 1-10 in group alpha, the rest in beta. Each prints here-N,
 * then waits for a line; given one, it rings the bell (so it waits for its user) and sleeps.
 */
async function hundredTasks(): Promise<void> {
  const entries = Array.from({ length: 100 }, (_, i) => {
    const n = i + 1;
    return { cmd: `echo here-${n}; read line; printf 'rang-${n}\\a\\n'; exec sleep ${3600 + n}`, name: `svc-${n}`, group: n <= 10 ? "alpha" : "beta" };
  });
  const file = join(fleet.sandbox.root, "hundred.json");
  writeFileSync(file, JSON.stringify({ version: 1, name: "hundred", dirs: { [fleet.sandbox.home]: entries } }));
  await fleet.ok(["load", file]);
  await until("100 tasks", async () => (await fleet.ls()).length === 100);
}

/** Task `id` starts waiting for its user (it rings the bell), as the daemon sees it. */
async function ring(id: number): Promise<void> {
  await fleet.ok(["send", String(id), "go"]);
  await fleet.waitForTask(id, "waiting", (t) => t.attention !== null);
}

/** A task that shows each byte it reads as [hex]. Its terminal is raw (no signal keys): bash's own read would make it cbreak again. */
function byteTask(): Promise<number> {
  return fleet.run(`stty raw -echo; echo ready; while :; do printf '[%s]' "$(head -c1 | od -An -tx1 | tr -d ' ')"; done`);
}

/** A client attached to task `id`, once the task's screen shows `shows`. */
async function attached(id: number, shows: string, args: string[] = [], size = { cols: 100, rows: 30 }): Promise<PtyClient> {
  const client = fleet.spawnClient(["attach", ...args, String(id)], size);
  await client.waitForScreen(`task ${id}'s screen`, (s) => s.includes(shows));
  await client.waitForRawMode();
  return client;
}

describe("attached, with 100 tasks", () => {
  test("the detach key then w goes to the next waiting task, n and p to the next and previous; one detach key still detaches", async () => {
    await hundredTasks();
    await ring(63);
    const client = await attached(1, "here-1");
    client.write(`${DETACH}w`);
    await client.waitForScreen("task 63", (s) => s.includes("here-63") && s.includes("rang-63") && !s.includes("here-1\n"));
    await fleet.waitForTask(63, "attended", (t) => t.attention === null);
    client.write(`${DETACH}n`);
    await client.waitForScreen("task 64", (s) => s.includes("here-64") && !s.includes("rang-63"));
    client.write(`${DETACH}\x10`); // Ctrl may stay held: Ctrl-P is p
    await client.waitForScreen("task 63 again", (s) => s.includes("here-63"));
    const before = client.output.length;
    client.write(`${DETACH}w`); // nothing else waits: it stays, and rings the terminal's bell
    await until("the bell", () => client.output.slice(before) === "\x07");
    expect(client.screen()).toContain("here-63");
    client.write(DETACH);
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("[detached from task 63]");
    expect((await fleet.task(1)).state).toBe("running");
  });

  test("the detach key set by FLEETCOM_DETACH_KEY detaches; pressed twice it reaches the task, as does Ctrl-\\ then", async () => {
    const id = await byteTask();
    await until("ready", async () => (await fleet.peek(id)).includes("ready"));
    fleet.env.FLEETCOM_DETACH_KEY = "ctrl-a";
    const client = await attached(id, "ready");
    client.write("\x01\x01");
    await client.waitForScreen("one Ctrl-A delivered", (s) => s.includes("[01]"));
    client.write(DETACH);
    await client.waitForScreen("Ctrl-\\ delivered as any key", (s) => s.includes("[01][1c]"));
    client.write("\x01");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain(`[detached from task ${id}]`);
    expect(await fleet.peek(id)).toContain("[01][1c]");
  });

  test("the default detach key pressed twice reaches the task; --detach-key sets another", async () => {
    const id = await byteTask();
    await until("ready", async () => (await fleet.peek(id)).includes("ready"));
    const client = await attached(id, "ready");
    client.write(`${DETACH}${DETACH}x`);
    await client.waitForScreen("one Ctrl-\\ delivered, then x", (s) => s.includes("[1c][78]"));
    client.write(DETACH);
    expect(await client.proc.exited).toBe(0);
    const flagged = await attached(id, "[1c][78]", ["--detach-key", "^]"]);
    flagged.write(`${DETACH}\x1d\x1d`);
    await flagged.waitForScreen("Ctrl-\\ and one Ctrl-] delivered", (s) => s.includes("[1c][78][1c][1d]"));
    flagged.write("\x1d");
    expect(await flagged.proc.exited).toBe(0);
    expect(flagged.output).toContain(`[detached from task ${id}]`);
  });

  test("a bad detach key is a usage error before anything starts", async () => {
    const bad = await fleet.cli(["attach", "--detach-key", "x", "1"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--detach-key: expected a control key");
    const esc = await fleet.cli(["run", "--attach", "--detach-key", "ctrl-[", "--", "sleep 1"]);
    expect(esc.code).toBe(2);
    expect(esc.stderr).toContain("Ctrl-[ is the Esc key");
    expect(await fleet.ls()).toEqual([]);
  });
});

describe("the status line", () => {
  const SIZE = { cols: 100, rows: 30 };
  /** A task that prints its terminal size for each line it reads. */
  const sizeTask = () => fleet.run(`echo sized; while read -r line; do stty size; done`, ["--name", "sizer"]);

  test("off by default: the task has every row and nothing is drawn on it", async () => {
    const id = await sizeTask();
    const client = await attached(id, "sized");
    client.write("\r");
    await client.waitForScreen("the size", (s) => s.includes("30 100"));
    expect(client.output).not.toContain("detach ·");
    client.write(DETACH);
    expect(await client.proc.exited).toBe(0);
  });

  test("FLEETCOM_ATTACH_STATUS=1 shows it on the last row: task, state, waiting count, detach key; the task gets one row less; the chord hides it", async () => {
    await hundredTasks();
    await ring(40);
    const id = await sizeTask();
    fleet.env.FLEETCOM_ATTACH_STATUS = "1";
    const client = await attached(id, "sized", [], SIZE);
    const last = (s: string) => (s.split("\n")[SIZE.rows - 1] ?? "").trim();
    await client.waitForScreen("the status line", (s) => last(s).startsWith(`task ${id} sizer · active`));
    expect(last(client.screen())).toMatch(/ · active · ! 1 waiting · Ctrl-\\ detach · /);
    client.write("\r");
    await client.waitForScreen("one row less", (s) => s.includes("29 100"));
    await ring(41);
    await client.waitForScreen("two waiting", (s) => last(s).includes("! 2 waiting"));
    client.write(`${DETACH}s`);
    await client.waitForScreen("the status line gone", (s) => !s.includes("waiting ·"));
    client.write("\r");
    await client.waitForScreen("every row again", (s) => s.includes("30 100"));
    client.write(`${DETACH}s`);
    await client.waitForScreen("shown again", (s) => last(s).startsWith(`task ${id} `));
    client.write(DETACH);
    expect(await client.proc.exited).toBe(0);
  });
});
