// The dashboard's keys through the real program in a real PTY: keys typed, the screen read back
// through a headless terminal, the fleet checked from other clients.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { snapshotFileName, snapshotLabel } from "../../src/recipe-snapshot-rules.ts";
import { DETACH, DOWN, END, ESC, HOME, isDashboard, openDashboard, rows, selectedRow, UP } from "../harness/dashboard.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { recoveryDirOf } from "../harness/recovery-helpers.ts";
import { mkdirSync, writeFileSync } from "node:fs";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const dashboard = (args: string[] = [], size?: { cols: number; rows: number }) => openDashboard(fleet, args, size);

describe("keys", () => {
  test("↑/↓ and k/j move the selection", async () => {
    for (const n of [1, 2, 3]) await fleet.run(`sleep 360${n}`);
    const client = await dashboard();
    await client.waitForScreen("first selected", (s) => selectedRow(s).includes("sleep 3601"));
    client.write(DOWN);
    await client.waitForScreen("down", (s) => selectedRow(s).includes("sleep 3602"));
    client.write("j");
    await client.waitForScreen("j", (s) => selectedRow(s).includes("sleep 3603"));
    client.write("j");
    await client.waitForScreen("j stops at the end", (s) => selectedRow(s).includes("sleep 3603"));
    client.write("k");
    await client.waitForScreen("k", (s) => selectedRow(s).includes("sleep 3602"));
    client.write(UP);
    await client.waitForScreen("up", (s) => selectedRow(s).includes("sleep 3601"));
  });

  test("Enter attaches to the selected task and Ctrl-\\ comes back to the dashboard", async () => {
    const id = await fleet.run("echo attached-here; exec cat");
    await until("output", async () => (await fleet.peek(id)).includes("attached-here"));
    const client = await dashboard();
    client.write("\r");
    await client.waitForScreen("the task's screen", (s) => s.includes("attached-here") && !isDashboard(s));
    client.write("typed\r");
    await client.waitForScreen("cat echoing", (s) => s.split("typed").length === 3);
    client.write(`${DETACH}d`);
    const back = await client.waitForScreen("the dashboard again", (s) => s.startsWith("fleetcom ·") && isDashboard(s));
    // The attached screen is gone: no line of it is left (the task's row may preview its last line).
    expect(back.split("\n").filter((line) => ["typed", "attached-here"].includes(line.trim()))).toEqual([]);
    expect((await fleet.task(id)).state).toBe("running");
    client.write("q");
    expect(await client.proc.exited).toBe(0);
  });

  test("a task that exits while attached returns to the dashboard with its exit status", async () => {
    await fleet.run("read line; exit 4");
    const client = await dashboard();
    client.write("\r");
    await client.waitForScreen("attached", (s) => !isDashboard(s) && client.term.buffer.active.type === "alternate");
    client.write("go\r");
    await client.waitForScreen("back with the status", (s) => s.includes("task 1 exited 4") && isDashboard(s));
  });

  test("Space prints the task's screen under the list until a key", async () => {
    await fleet.run("printf 'line one\\nline two\\n'; sleep 3600");
    await until("output", async () => (await fleet.peek(1)).includes("line two"));
    const client = await dashboard();
    client.write(" ");
    const peeked = await client.waitForScreen("the peek", (s) => s.includes("── peek 1 printf"));
    expect(peeked).toContain("line one\nline two");
    expect(peeked).toContain("any key returns to the list");
    client.write("j");
    const back = await client.waitForScreen("the list again", (s) => !s.includes("── peek"));
    expect(back).not.toContain("line one\nline two");
    expect(back).toContain("?:help");
  });

  test("n starts a command in the dashboard's directory; Esc cancels without starting one", async () => {
    const client = await dashboard();
    client.write("n");
    await client.waitForScreen("the prompt", (s) => s.includes("Run in ~"));
    client.write("echo from-n; sleep 3600\r");
    await client.waitForScreen("the new task", (s) => s.includes("echo from-n") && s.includes("started task 1") && !s.includes("Run in"));
    const [task] = await fleet.ls();
    expect(task!.cwd).toBe(fleet.sandbox.home);
    client.write("n");
    await client.waitForScreen("the prompt again", (s) => s.includes("Run in ~"));
    client.write("echo never");
    await client.waitForScreen("typed", (s) => s.includes("echo never"));
    client.write(ESC);
    const after = await client.waitForScreen("the prompt gone", (s) => !s.includes("Run in"));
    expect(after).not.toContain("echo never");
    expect(await fleet.ls()).toHaveLength(1);
  });

  test("r reruns a finished task in place, and asks before it restarts a running one", async () => {
    const running = await fleet.run("sleep 3600");
    const id = await fleet.run("echo once");
    const first = await fleet.waitForExit(id);
    const client = await dashboard();
    await client.waitForScreen("the running task selected", (s) => selectedRow(s).includes("sleep 3600"));
    client.write("r");
    await client.waitForScreen("the question", (s) => s.includes("restart sleep 3600? y/N"));
    client.write("n");
    await client.waitForScreen("nothing restarted", (s) => s.includes("nothing restarted"));
    expect((await fleet.task(running)).run).toBe(1);
    client.write("r");
    await client.waitForScreen("the question again", (s) => s.includes("restart sleep 3600? y/N"));
    client.write("y");
    await client.waitForScreen("restarted", (s) => s.includes(`restarted task ${running}`));
    await fleet.waitForTask(running, "to run again", (t) => t.run === 2 && t.state === "running");
    client.write("jj"); // past the Completed title
    await client.waitForScreen("the finished task selected", (s) => selectedRow(s).includes("echo once"));
    client.write("r");
    await client.waitForScreen("the question", (s) => s.includes("rerun echo once? y/N"));
    client.write("y");
    await client.waitForScreen("rerun", (s) => s.includes(`reran task ${id}`));
    await fleet.waitForTask(id, "rerun", (t) => t.run === first.run + 1);
  });

  test("r on a section's title asks before it reruns every finished task in it (n reruns none, y all)", async () => {
    const log = join(fleet.sandbox.root, "migrations.log");
    const ids = [];
    for (const n of [1, 2]) ids.push(await fleet.run(`echo applying migration ${n} >> '${log}'`, ["--name", `migrate-${n}`]));
    for (const id of ids) await fleet.waitForExit(id);
    const client = await dashboard();
    client.write(HOME);
    await client.waitForScreen("the section's title", (s) => selectedRow(s) === "› Completed (2)");
    client.write("r");
    await client.waitForScreen("the question", (s) => s.includes("rerun 2 finished tasks? y/N"));
    client.write("n");
    await client.waitForScreen("nothing rerun", (s) => s.includes("nothing rerun"));
    expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(2);
    client.write("r");
    await client.waitForScreen("the question again", (s) => s.includes("rerun 2 finished tasks? y/N"));
    client.write("y");
    await client.waitForScreen("both rerun", (s) => s.includes("reran 2 tasks"));
    await until("each migration run twice", () => readFileSync(log, "utf8").trim().split("\n").length === 4);
  });

  test("End keeps the cursor on the last row while tasks move into the last section, until the next key", async () => {
    // Idle after a second of quiet: the quiet tasks (1-3) go idle at once, the printers (4-6) when told to stop.
    fleet.env.FLEETCOM_IDLE_SECONDS = "1";
    const stop = join(fleet.sandbox.root, "stop");
    for (const n of [1, 2, 3]) await fleet.run("exec sleep 3600", ["--name", `quiet-${n}`]);
    for (const n of [4, 5, 6]) await fleet.run(`while [ ! -e '${stop}' ]; do echo tick; sleep 0.1; done; exec sleep 3600`, ["--name", `busy-${n}`]);
    const client = await dashboard();
    await client.waitForScreen("three idle, three running", (s) => s.includes("Running (3)") && s.includes("Idle (3)"));
    client.write(END);
    await client.waitForScreen("the last row", (s) => / 3 (↓ )?quiet-3 /.test(selectedRow(s)));
    writeFileSync(stop, "");
    const after = await client.waitForScreen("all six idle", (s) => s.includes("Idle (6)"));
    expect(rows(after).at(-2)).toBe(selectedRow(after));
    expect(selectedRow(after)).toMatch(/ 6 (↓ )?busy-6 /);
    client.write("k"); // another key: the cursor is where it was seen, and stays on its task from now on
    await client.waitForScreen("one up", (s) => / 5 (↓ )?busy-5 /.test(selectedRow(s)));
  });

  test("? at 80x24 scrolls to every key, the last ones included; another key returns", async () => {
    await fleet.run("sleep 3600");
    const client = await dashboard([], { cols: 80, rows: 24 });
    client.write("?");
    const top = await client.waitForScreen("the keys", (s) => s.includes("Keys ("));
    expect(rows(top)[1]).toBe("Keys (↑↓ PgUp PgDn Home End scroll · any other key returns)");
    expect(rows(top).at(-1)).toMatch(/^ {2}⋮ \d+ more$/);
    client.write(END);
    // The attached chords come last, and the last of them is the detach key pressed twice.
    const bottom = await client.waitForScreen("the last keys", (s) => /^ {2}Ctrl-\\ Ctrl-\\ /m.test(s));
    expect(rows(bottom)[2]).toMatch(/^ {2}⋮ \d+ more$/);
    for (const key of ["Q ", "* ", "Ctrl-\\ d ", "Ctrl-\\ ? "]) expect(rows(bottom).some((r) => r.startsWith(`  ${key}`))).toBe(true);
    client.write(HOME);
    await client.waitForScreen("the first keys", (s) => /^ {2}↑ ↓ {2}k j /m.test(s));
    client.write("x");
    await client.waitForScreen("the list again", (s) => isDashboard(s) && !s.includes("Keys ("));
  });

  test("R renames the task (empty clears the name), Esc keeps it", async () => {
    const id = await fleet.run("sleep 3600");
    const client = await dashboard();
    client.write("R");
    await client.waitForScreen("the prompt", (s) => s.includes(`Name for task ${id}`));
    client.write("web\r");
    await client.waitForScreen("the new name", (s) => selectedRow(s).includes(" web · "));
    expect((await fleet.task(id)).name).toBe("web");
    client.write("R");
    await client.waitForScreen("the prompt", (s) => s.includes(`Name for task ${id}`) && s.includes("web"));
    client.write("\x7f\x7f\x7fother");
    client.write(ESC);
    await client.waitForScreen("cancelled", (s) => !s.includes("Name for task"));
    expect((await fleet.task(id)).name).toBe("web");
    client.write("R");
    await client.waitForScreen("the prompt", (s) => s.includes(`Name for task ${id}`));
    client.write("\x7f\x7f\x7f\r");
    await client.waitForScreen("name cleared", (s) => s.includes(`task ${id} has no name`));
    expect((await fleet.task(id)).name).toBeNull();
  });

  test("g sets the group, m tags the task in use, s cycles state → directory → group with Unassigned last", async () => {
    // The rows below say ✻ for a quiet running task: keep it from turning idle (∙) on a machine slow enough to take idle_seconds.
    fleet.env.FLEETCOM_IDLE_SECONDS = "3600";
    await fleet.run("sleep 3600");
    await fleet.run("sleep 3601", ["--group", "zeta"]);
    const client = await dashboard();
    client.write("g");
    await client.waitForScreen("the prompt", (s) => s.includes("Group for task 1"));
    client.write("Alpha\r");
    await client.waitForScreen("grouped", (s) => s.includes("task 1 is in group 'Alpha'"));
    expect((await fleet.task(1)).group).toBe("Alpha");
    client.write("m");
    const tagged = await client.waitForScreen("tagged", (s) => s.includes("In use (1)"));
    expect(selectedRow(tagged)).toMatch(/^› ✻ ◆ 1 (↑ )?sleep 3600/);
    expect((await fleet.task(1)).tagged).toBe(true);
    client.write("s");
    const byDir = await client.waitForScreen("by directory", (s) => s.includes("by directory"));
    expect(rows(byDir).slice(1, 4)).toEqual(["~ (2)", expect.stringContaining("1 sleep 3600"), expect.stringContaining("2 sleep 3601")]);
    client.write("s");
    const byGroup = await client.waitForScreen("by group", (s) => s.includes("by group"));
    expect(byGroup).not.toContain("Unassigned");
    expect(
      rows(byGroup)
        .filter((r) => !r.startsWith(" ") && !r.startsWith("›"))
        .slice(1, 3),
    ).toEqual(["Alpha (1)", "zeta (1)"]);
    await fleet.run("sleep 3602");
    const withUnassigned = await client.waitForScreen("Unassigned", (s) => s.includes("Unassigned (1)"));
    const headings = rows(withUnassigned).filter((r) => /^\S.* \(\d+\)$/.test(r));
    expect(headings).toEqual(["Alpha (1)", "zeta (1)", "Unassigned (1)"]);
    client.write("s");
    const byId = await client.waitForScreen("by id", (s) => s.includes("by id"));
    expect(rows(byId).filter((r) => /^\S.* \(\d+\)$/.test(r))).toEqual([]); // no section titles
    expect(
      rows(byId)
        .slice(1, 4)
        .map((r) => r.replace(/ · .*/, "")),
    ).toEqual([
      expect.stringMatching(/^› ✻ ◆ 1 active +sleep 3600$/),
      expect.stringMatching(/^ {2}✻ {3}2 active +sleep 3601$/),
      expect.stringMatching(/^ {2}✻ {3}3 active +sleep 3602$/),
    ]);
    client.write("s");
    await client.waitForScreen("back to state", (s) => s.includes("by state") && s.includes("In use (1)"));
    client.write("m");
    await client.waitForScreen("untagged", (s) => !s.includes("In use"));
  });

  test("n grouped by group starts the new task in the group under the cursor; under Unassigned, in none", async () => {
    await fleet.run("sleep 3600", ["--group", "api"]);
    await fleet.run("sleep 3601");
    const client = await dashboard();
    client.write("s");
    await client.waitForScreen("by directory", (s) => s.includes("by directory"));
    client.write("s");
    await client.waitForScreen("by group", (s) => s.includes("by group") && selectedRow(s).includes("sleep 3600"));
    client.write("n");
    await client.waitForScreen("the prompt names the group", (s) => s.includes("Run in ~ (group 'api')"));
    client.write("sleep 3602\r");
    await client.waitForScreen("started", (s) => s.includes("started task 3") && selectedRow(s).includes("sleep 3602"));
    expect((await fleet.task(3)).group).toBe("api");
    client.write("\x1b[F"); // End: task 2, in Unassigned
    await client.waitForScreen("task 2", (s) => selectedRow(s).includes("sleep 3601"));
    client.write("n");
    await client.waitForScreen("the prompt", (s) => /Run in ~$/m.test(s));
    client.write("sleep 3603\r");
    await client.waitForScreen("started", (s) => s.includes("started task 4"));
    expect((await fleet.task(4)).group).toBeNull();
  });

  test("a filter, V to select every task shown, then g groups exactly those", async () => {
    await fleet.run("sleep 3600 # web");
    await fleet.run("sleep 3601 # db");
    await fleet.run("sleep 3602 # web");
    const client = await dashboard();
    // "# web", not "web": the filter also matches the sandbox's random directory name, which cannot hold "# ".
    // A key at a time, as a person types: keys that come together are a paste (dashboard-burst.test.ts).
    client.write("/");
    await client.waitForScreen("the filter line", (s) => s.includes("(3 of 3 tasks)"));
    client.write("# web");
    await client.waitForScreen("the filter typed", (s) => s.includes("/# web  (2 of 3 tasks)"));
    client.write("\r");
    await client.waitForScreen("the filter kept", (s) => s.includes("filter: # web"));
    client.write("V");
    await client.waitForScreen("two selected", (s) => s.includes("* 2 selected") && s.includes("(2 of 3 tasks)"));
    client.write("g");
    await client.waitForScreen("the prompt", (s) => s.includes("Group for 2 tasks"));
    client.write("front\r");
    await client.waitForScreen("grouped", (s) => s.includes("2 tasks are in group 'front'") && !s.includes("selected"));
    expect((await fleet.ls()).map((t) => t.group)).toEqual(["front", null, "front"]);
    client.write("\x1b"); // Esc: the selection is gone already, so the filter goes
    await client.waitForScreen("every task", (s) => s.includes("sleep 3601") && !s.includes("filter:"));
  });

  test("X on a running task asks (n keeps it), then kills; on a finished one removes at once; lowercase x does nothing", async () => {
    const id = await fleet.run("sleep 3600", ["--name", "editor"]);
    const client = await dashboard();
    client.write("x");
    await client.waitForScreen("the hint", (s) => s.includes("press X (uppercase)"));
    expect((await fleet.task(id)).state).toBe("running");
    client.write("X");
    await client.waitForScreen("the question", (s) => s.includes("kill editor? y/N"));
    client.write("n");
    await client.waitForScreen("kept", (s) => s.includes(`task ${id} left running`));
    expect((await fleet.task(id)).state).toBe("running");
    client.write("X");
    await client.waitForScreen("the question again", (s) => s.includes("kill editor? y/N"));
    client.write("y");
    await client.waitForScreen("killed", (s) => s.includes(`killed task ${id}`) && s.includes("✗   1"));
    expect((await fleet.task(id)).state).toBe("exited");
    client.write("x");
    await client.waitForScreen("the hint", (s) => s.includes("press X (uppercase)"));
    expect(await fleet.ls()).toHaveLength(1);
    client.write("X");
    await client.waitForScreen("removed", (s) => s.includes(`removed task ${id}`) && s.includes("no tasks"));
    expect(await fleet.ls()).toHaveLength(0);
  });

  test("w saves the fleet under the typed name; a taken name shows the collision and saves nothing", async () => {
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "a/b"]);
    const file = join(fleet.sandbox.config, "sessions", "a_b.json");
    const before = readFileSync(file, "utf8");
    await fleet.run("sleep 3601");
    const client = await dashboard();
    client.write("w");
    await client.waitForScreen("the prompt", (s) => s.includes("Save the fleet as session"));
    client.write("a.b\r");
    const refused = await client.waitForScreen("the collision", (s) => s.includes("cannot save 'a.b'"));
    expect(refused).toContain("'a.b' and 'a/b' share the file");
    expect(readFileSync(file, "utf8")).toBe(before);
    client.write("w");
    await client.waitForScreen("the prompt", (s) => s.includes("Save the fleet as session"));
    client.write("work\r");
    await client.waitForScreen("saved", (s) => s.includes("saved 'work': 2 task(s)"));
    expect(JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", "work.json"), "utf8")).name).toBe("work");
    client.write("w");
    await client.waitForScreen("the prompt", (s) => s.includes("Save the fleet as session"));
    client.write("never");
    client.write(ESC);
    await client.waitForScreen("cancelled", (s) => !s.includes("Save the fleet"));
    expect(existsSync(join(fleet.sandbox.config, "sessions", "never.json"))).toBe(false);
  });

  test("o opens the session picker; Tab goes to the recovery list; loading a snapshot suggests saving it", async () => {
    // The daemon's own snapshot would make the count depend on when its first pass runs.
    fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = fleet.env.FLEETCOM_SNAPSHOT_CHECK_MS = "3600000";
    await fleet.run("sleep 3600");
    await fleet.ok(["save", "work"]);
    const dir = recoveryDirOf(fleet);
    mkdirSync(dir, { recursive: true });
    const name = snapshotFileName(new Date(Date.now() - 60_000), 2 ** 22 + 1);
    writeFileSync(join(dir, name), JSON.stringify({ version: 1, name: snapshotLabel(new Date()), dirs: { "/tmp": ["sleep 3700"] } }));
    const client = await dashboard();
    client.write("o");
    await client.waitForScreen("the picker", (s) => s.includes("Saved sessions (1)") && s.includes("tab recovery (1)"));
    client.write("\t");
    await client.waitForScreen("the recovery list", (s) => s.includes("Recovery snapshots (1)") && s.includes("1 task · sleep 3700"));
    client.write("\r");
    const loaded = await client.waitForScreen("loaded", (s) => s.includes("sleep 3700") && s.includes("loaded '"));
    expect(loaded).toContain("\npress w (or run fleetcom save NAME) to keep this fleet under a permanent name\n");
    expect(loaded).not.toContain("Recovery snapshots");
    client.write("o");
    await client.waitForScreen("the picker", (s) => s.includes("Saved sessions (1)"));
    client.write(ESC);
    await client.waitForScreen("back", (s) => !s.includes("Saved sessions") && isDashboard(s));
    expect(await fleet.ls()).toHaveLength(2);
  });
});
