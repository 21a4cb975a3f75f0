// The line picker through the real program in a real PTY: `fleetcom load` and `fleetcom recover`
// without an argument (the session picker), `fleetcom attach` without TASK (the task picker).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { snapshotFileName, snapshotLabel } from "../../src/recipe-snapshot-rules.ts";
import { eachTestGetsAFleet, type Fleet, type PtyClient, until } from "../harness/fleet.ts";
import { recoveryDirOf, snapshotNames } from "../harness/recovery-helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const ESC = "\x1b";
const DOWN = "\x1b[B";
const SHIFT_TAB = "\x1b[Z";
const HOME = "\x1b[H";
const END = "\x1b[F";
const PAGE_UP = "\x1b[5~";
const PAGE_DOWN = "\x1b[6~";
const DEAD_PID = 2 ** 22 + 1; // above Linux's largest pid_max: its snapshots are never a live supervisor's

const sessionsDir = () => join(fleet.sandbox.config, "sessions");

/** A saved session file as `fleetcom save` writes it, one `sleep` per task. */
function saveSession(name: string, file: string, commands = ["sleep 3600"]): string {
  mkdirSync(sessionsDir(), { recursive: true });
  const path = join(sessionsDir(), file);
  writeFileSync(path, `${JSON.stringify({ version: 1, name, dirs: { "/tmp": commands } }, null, 2)}\n`);
  return path;
}

/** A recovery snapshot written `minutesAgo` minutes ago: commands, or entries as the daemon writes them. */
function snapshot(minutesAgo: number, commands: (string | { cmd: string; id: number })[]): string {
  const dir = recoveryDirOf(fleet);
  mkdirSync(dir, { recursive: true });
  const written = new Date(Date.now() - minutesAgo * 60_000);
  const file = join(dir, snapshotFileName(written, DEAD_PID));
  writeFileSync(file, JSON.stringify({ version: 1, name: snapshotLabel(written), dirs: { "/tmp": commands } }));
  utimesSync(file, written, written);
  return file;
}

const rows = (screen: string) => screen.split("\n");
const highlighted = (screen: string) => rows(screen).find((r) => r.startsWith("›")) ?? "";
const itemRows = (screen: string) => rows(screen).filter((r) => /^[› ] \S/.test(r));

async function picker(args: string[], title: string, size = { cols: 200, rows: 30 }): Promise<PtyClient> {
  const client = fleet.spawnClient(args, size);
  await client.waitForScreen(title, (s) => s.includes(title) && s.includes("esc cancel"));
  await client.waitForRawMode();
  return client;
}

describe("the session picker", () => {
  test("the saved list is sorted by name ignoring case and shows the stored name (a/b, not a_b)", async () => {
    saveSession("zeta", "zeta.json");
    saveSession("a/b", "a_b.json");
    saveSession("Beta", "Beta.json", ["sleep 3600", "sleep 3601"]);
    saveSession("alpha", "alpha.json");
    const client = await picker(["load"], "Saved sessions (4)");
    const screen = client.screen();
    expect(itemRows(screen).map((r) => r.slice(2).split(" · ")[0])).toEqual(["a/b", "alpha", "Beta", "zeta"]);
    expect(screen).not.toContain("a_b");
    expect(itemRows(screen)[2]).toMatch(/^ {2}Beta · 2 task\(s\) · \/tmp · \d+s ago$/);
    expect(highlighted(screen)).toStartWith("› a/b");
  });

  test("a directory on an added host reads as fleetcom sessions shows it (gpu1:~/train), not as a path here", async () => {
    mkdirSync(fleet.sandbox.config, { recursive: true });
    writeFileSync(join(fleet.sandbox.config, "config.toml"), '[hosts.gpu1]\nssh = "me@gpu1"\nhome = "/home/me"\n');
    mkdirSync(sessionsDir(), { recursive: true });
    writeFileSync(
      join(sessionsDir(), "train.json"),
      JSON.stringify({ version: 1, name: "train", dirs: { "gpu1:~/train": ["python train.py"], "/tmp": ["sleep 3600"] } }),
    );
    const listed = await fleet.ok(["sessions"]);
    expect(listed).toMatch(/^train\s+2\s+\d+s ago\s+gpu1:~\/train, \/tmp$/m);
    const client = await picker(["load"], "Saved sessions (1)");
    expect(itemRows(client.screen())[0]).toMatch(/^› train · 2 task\(s\) · gpu1:~\/train, \/tmp · \d+s ago$/);
    client.write(ESC);
    expect(await client.proc.exited).toBe(0);
  });

  test("typing filters case-insensitively, Enter loads the highlighted session", async () => {
    saveSession("work/api", "work_api.json", ["sleep 3600"]);
    saveSession("home", "home.json", ["sleep 3601"]);
    saveSession("Network", "Network.json", ["sleep 3602"]);
    const client = await picker(["load"], "Saved sessions (3)");
    client.write("WOR");
    // "WO" already leaves these two: wait for the whole filter to be typed.
    const filtered = await client.waitForScreen("filtered", (s) => s.includes("filter: WOR"));
    expect(filtered).toContain("Saved sessions (2 of 3)");
    expect(itemRows(filtered).map((r) => r.slice(2).split(" · ")[0])).toEqual(["Network", "work/api"]);
    client.write(DOWN);
    await client.waitForScreen("second", (s) => highlighted(s).startsWith("› work/api"));
    client.write("\x7f\x7f\x7fzzz");
    await client.waitForScreen("nothing matches", (s) => s.includes("nothing matches the filter"));
    client.write("\x7f\x7f\x7fwor\r");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("loaded 'work/api': 1 task(s), 0 skipped (missing directory), 0 dropped");
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 3600"]);
  });

  test("Esc cancels: nothing loaded, no daemon started, nothing left on screen, exit 0", async () => {
    saveSession("work", "work.json");
    const client = await picker(["load"], "Saved sessions (1)");
    client.write(ESC);
    expect(await client.proc.exited).toBe(0);
    await client.settled();
    expect(client.screen()).toBe("");
    expect(fleet.daemonPid()).toBeNull();
  });

  test("without snapshots the hint has no Tab and Tab does nothing", async () => {
    saveSession("work", "work.json");
    const client = await picker(["load"], "Saved sessions (1)");
    expect(client.screen()).not.toContain("tab recovery");
    client.write("\tx");
    const after = await client.waitForScreen("the filter typed after Tab", (s) => s.includes("filter: x"));
    expect(after).toContain("Saved sessions");
    expect(after).not.toContain("Recovery");
  });

  test("with snapshots the hint shows tab recovery (N); Tab and Shift-Tab flip both ways and each list keeps its highlight", async () => {
    saveSession("one", "one.json");
    saveSession("two", "two.json");
    saveSession("three", "three.json");
    snapshot(30, ["sleep 3700"]);
    snapshot(5, ["sleep 3701", "sleep 3702"]);
    const client = await picker(["load"], "Saved sessions (3)");
    expect(client.screen()).toContain("tab recovery (2)");
    client.write(DOWN);
    await client.waitForScreen("three", (s) => highlighted(s).startsWith("› three"));
    client.write("\t");
    const recovery = await client.waitForScreen("the recovery list", (s) => s.includes("Recovery snapshots (2)"));
    expect(itemRows(recovery).map((r) => r.slice(2))).toEqual([
      expect.stringMatching(/^5m ago · 2 tasks · sleep 3701, sleep 3702 · autosaved /),
      expect.stringMatching(/^30m ago · 1 task · sleep 3700 · autosaved /),
    ]);
    expect(recovery).toContain("tab saved (3)");
    expect(highlighted(recovery)).toStartWith("› 5m ago");
    client.write(DOWN);
    await client.waitForScreen("older snapshot", (s) => highlighted(s).startsWith("› 30m ago"));
    client.write("\t");
    await client.waitForScreen("saved keeps three", (s) => s.includes("Saved sessions") && highlighted(s).startsWith("› three"));
    client.write("\t");
    await client.waitForScreen("recovery keeps 30m", (s) => s.includes("Recovery snapshots") && highlighted(s).startsWith("› 30m ago"));
    client.write(SHIFT_TAB);
    await client.waitForScreen("Shift-Tab flips back", (s) => s.includes("Saved sessions") && highlighted(s).startsWith("› three"));
    client.write(SHIFT_TAB);
    await client.waitForScreen("and forth", (s) => s.includes("Recovery snapshots") && highlighted(s).startsWith("› 30m ago"));
    client.write("\r");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("1 task(s), 0 skipped");
    expect(client.output).toContain("to keep this fleet under a permanent name: fleetcom save NAME");
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 3700"]);
  });

  test("fleetcom recover opens on the recovery list and loading prints the save hint; the task keeps its recorded id", async () => {
    saveSession("work", "work.json");
    snapshot(2, [{ cmd: "sleep 3800", id: 7 }]);
    const client = await picker(["recover"], "Recovery snapshots (1)");
    expect(client.screen()).toContain("tab saved (1)");
    client.write("\r");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("loaded 'autosaved ");
    expect(client.output).toContain("to keep this fleet under a permanent name: fleetcom save NAME");
    expect((await fleet.ls()).map((t) => [t.id, t.command])).toEqual([[7, "sleep 3800"]]);
  });

  test("the running fleet's own snapshot is marked this fleet, running; picking it starts nothing", async () => {
    fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = "100";
    await fleet.run("sleep 3900", ["--name", "api"]);
    // Snapshots only: the history writer keeps its directory beside them.
    await until("the running daemon's snapshot", () => snapshotNames(fleet).length === 1);
    snapshot(30, ["sleep 3901"]);
    const client = await picker(["recover"], "Recovery snapshots (2)");
    expect(itemRows(client.screen()).map((r) => r.slice(2))).toEqual([
      expect.stringMatching(/^\d+s ago · this fleet, running · 1 task · api · autosaved /),
      expect.stringMatching(/^30m ago · 1 task · sleep 3901 · autosaved /),
    ]);
    client.write("\r");
    expect(await client.proc.exited).toBe(1);
    expect(client.output).toContain("is this fleet's own snapshot (this fleet, running): its tasks are the ones running now, so nothing was started");
    expect((await fleet.ls()).map((t) => t.command)).toEqual(["sleep 3900"]);
  });

  test("fleetcom recover without snapshots says so", async () => {
    const client = fleet.spawnClient(["recover"]);
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain("no recovery snapshots (in ");
  });

  test("Ctrl-R renames the highlighted session with the sessions mv rule, without leaving the picker", async () => {
    saveSession("a/b", "a_b.json");
    const taken = saveSession("other", "other.json");
    const client = await picker(["load"], "Saved sessions (2)");
    client.write("\x12");
    await client.waitForScreen("the prompt", (s) => s.includes("Rename session 'a/b' to"));
    client.write("\x7f\x7f\x7fother\r");
    await client.waitForScreen("refused", (s) => s.includes("cannot rename 'a/b' to 'other'") && s.includes("already holds session 'other'"));
    expect(existsSync(join(sessionsDir(), "a_b.json"))).toBe(true);
    expect(JSON.parse(readFileSync(taken, "utf8")).name).toBe("other");
    client.write("\x12");
    await client.waitForScreen("the prompt", (s) => s.includes("Rename session 'a/b' to"));
    client.write("\x7f\x7f\x7fx/y\r");
    const renamed = await client.waitForScreen("renamed", (s) => s.includes("renamed 'a/b' to 'x/y'"));
    expect(itemRows(renamed).map((r) => r.slice(2).split(" · ")[0])).toEqual(["other", "x/y"]);
    expect(highlighted(renamed)).toStartWith("› x/y");
    expect(renamed).not.toContain("Rename session");
    expect(JSON.parse(readFileSync(join(sessionsDir(), "x_y.json"), "utf8")).name).toBe("x/y");
    expect(existsSync(join(sessionsDir(), "a_b.json"))).toBe(false);
    client.write("\x12");
    await client.waitForScreen("the prompt", (s) => s.includes("Rename session 'x/y' to"));
    client.write(ESC);
    await client.waitForScreen("cancelled", (s) => !s.includes("Rename session"));
    expect(existsSync(join(sessionsDir(), "x_y.json"))).toBe(true);
  });

  test("Ctrl-D deletes the highlighted session after y; anything else keeps it", async () => {
    const keep = saveSession("keep", "keep.json");
    saveSession("drop", "drop.json");
    const client = await picker(["load"], "Saved sessions (2)");
    client.write("\x04");
    await client.waitForScreen("the question", (s) => s.includes("Delete session 'drop'? y/N"));
    client.write("n");
    await client.waitForScreen("kept", (s) => s.includes("nothing deleted"));
    expect(existsSync(join(sessionsDir(), "drop.json"))).toBe(true);
    client.write("\x04");
    await client.waitForScreen("the question", (s) => s.includes("Delete session 'drop'? y/N"));
    client.write("y");
    const after = await client.waitForScreen("deleted", (s) => s.includes("deleted 'drop'") && s.includes("Saved sessions (1)"));
    expect(itemRows(after).map((r) => r.slice(2).split(" · ")[0])).toEqual(["keep"]);
    expect(existsSync(join(sessionsDir(), "drop.json"))).toBe(false);
    expect(existsSync(keep)).toBe(true);
  });

  test("load without an argument and without a terminal says the picker needs one", async () => {
    const r = await fleet.cli(["load"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: load without an argument (the picker) needs a terminal");
  });
});

describe("the task picker", () => {
  test("attach without TASK lists the tasks, filters, and attaches to the one picked", async () => {
    // The rows below say ✻ for a quiet running task: keep it from turning idle (∙) on a machine slow enough to take idle_seconds.
    fleet.env.FLEETCOM_IDLE_SECONDS = "3600";
    await fleet.run("sleep 3600", ["--name", "db"]);
    const id = await fleet.run("echo picked-me; exec cat", ["--name", "web-ui"]);
    await until("output", async () => (await fleet.peek(id)).includes("picked-me"));
    const client = await picker(["attach"], "Tasks (2)");
    expect(client.screen()).toContain("enter attach");
    // The filter is matched against each task's directory too, the sandbox's random temp name: "we"
    // was in it about one run in 200, and both rows stayed. "web-" can never be (a-z, A-Z, 0-9, then /).
    client.write("web-");
    await client.waitForScreen("filtered", (s) => s.includes("Tasks (1 of 2)") && highlighted(s).startsWith(`› ✻ ${id} web-ui`));
    client.write("\r");
    await client.waitForScreen("attached", (s) => s.includes("picked-me") && !s.includes("Tasks"));
    client.write("\x1cd");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain(`[detached from task ${id}]`);
  });

  test("waiting tasks come first; Home, End, PgUp and PgDn move as in the dashboard, with ⋮ N more for the rows cut off", async () => {
    const entries = Array.from({ length: 12 }, (_, i) =>
      i === 11 ? { cmd: "read line; printf 'asks\\a\\n'; exec sleep 3600", name: "asker" } : { cmd: `exec sleep ${3600 + i}`, name: `w-${i + 1}` },
    );
    const file = join(fleet.sandbox.root, "twelve.json");
    writeFileSync(file, JSON.stringify({ version: 1, name: "twelve", dirs: { [fleet.sandbox.home]: entries } }));
    await fleet.ok(["load", file]);
    await fleet.ok(["send", "12", "go"]);
    await fleet.waitForTask(12, "waiting", (t) => t.attention !== null);
    // 12 rows: the title, the filter, the hint and the row kept free leave 8 for the list, a page is 6.
    const client = await picker(["attach"], "Tasks (12)", { cols: 80, rows: 12 });
    const first = client.screen();
    expect(highlighted(first)).toStartWith("› ! 12 asker");
    expect(rows(first)).toContain("  ⋮ 5 more");
    client.write(END);
    const last = await client.waitForScreen("the last task", (s) => /^› \S+ 11 w-11 /.test(highlighted(s)));
    expect(rows(last)[2]).toBe("  ⋮ 5 more");
    client.write(HOME);
    await client.waitForScreen("the first task", (s) => highlighted(s).startsWith("› ! 12 asker"));
    client.write(PAGE_DOWN);
    await client.waitForScreen("a page down", (s) => /^› \S+ 6 w-6 /.test(highlighted(s)));
    client.write(PAGE_UP);
    await client.waitForScreen("a page up", (s) => highlighted(s).startsWith("› ! 12 asker"));
  });

  test("attach without TASK and without a terminal says so", async () => {
    const r = await fleet.cli(["attach"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: attach needs a terminal");
  });
});
