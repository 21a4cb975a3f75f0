// The dashboard and attach as a week of tmux, pm2 and process-compose habits meets them (issue 40,
// items 7, 8, 9 and 14), each in a real PTY: a command line typed or pasted into the dashboard by
// mistake is no action; `r` on a one-off asks; rows that stay put (a grouping by id, a Running/Idle
// flip held a second, the cursor kept off section titles); words that mean what they say; two
// terminals of different sizes on one task.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDashboard, rows, selectedRow } from "../harness/dashboard.ts";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

test("a command line typed into the dashboard at once is no action: one line says what this is and that q leaves", async () => {
  const running = await fleet.run("sleep 3600", ["--name", "dev"]);
  const once = await fleet.run("echo deployed", ["--name", "deploy"]);
  const before = await fleet.waitForExit(once);
  const client = await openDashboard(fleet, [], { cols: 120, rows: 30 });
  await client.waitForScreen("both tasks", (s) => s.includes("dev") && s.includes("deploy"));
  // Every letter is a key here: r reruns, s regroups, v selects, / filters, o opens the picker, X kills.
  client.write("clear; export FLEETCOM_SSH='ssh -F x'; rvX /o fleetcom\r");
  const screen = await client.waitForScreen("the notice", (s) => s.includes("this is the fleetcom dashboard: q leaves"));
  expect(screen).toContain("by state");
  expect(screen).not.toContain("selected");
  expect(screen).not.toContain("y/N");
  expect(screen).not.toMatch(/^filter:|^\/|Saved sessions/m);
  expect(selectedRow(screen)).toContain("dev");
  const after = await fleet.ls();
  expect(after.find((t) => t.id === once)?.run).toBe(before.run);
  expect(after.find((t) => t.id === running)?.state).toBe("running");
  // One key at a time, as a person presses them, acts again.
  client.write("q");
  expect(await client.proc.exited).toBe(0);
  expect(client.output).toContain("[detached: 1 task(s) still running]");
});

test("a paste the terminal brackets is no action, even a single letter; the filter takes a paste as text", async () => {
  await fleet.run("sleep 3600", ["--name", "editor"]);
  const client = await openDashboard(fleet, [], { cols: 120, rows: 30 });
  await client.waitForOutput("\x1b[?2004h"); // the dashboard asks the terminal to mark pastes
  client.write("\x1b[200~X\x1b[201~"); // what a terminal sends for a paste once the dashboard asked
  await client.waitForScreen("the notice", (s) => s.includes("this is the fleetcom dashboard: q leaves"));
  expect(client.screen()).not.toContain("kill editor? y/N");
  expect((await fleet.ls())[0]!.state).toBe("running");
  client.write("/");
  await client.waitForScreen("the filter line", (s) => s.includes("(1 of 1 tasks)"));
  client.write("\x1b[200~edit\r\x1b[201~");
  await client.waitForScreen("the pasted filter, still typed", (s) => s.includes("/edit  (1 of 1 tasks)"));
});

test("r on a finished one-off asks y/N as X does; on a task a load started it reruns at once", async () => {
  const once = await fleet.run("echo deployed", ["--name", "deploy"]);
  const first = await fleet.waitForExit(once);
  const recipe = join(fleet.sandbox.root, "watch.json");
  writeFileSync(recipe, JSON.stringify({ version: 1, dirs: { [fleet.sandbox.home]: ["echo tests passed"] } }));
  await fleet.ok(["load", recipe]);
  const loaded = (await fleet.ls()).find((t) => t.command === "echo tests passed")!;
  const loadedFirst = await fleet.waitForExit(loaded.id);
  const client = await openDashboard(fleet, [], { cols: 120, rows: 30 });
  await client.waitForScreen("the one-off under the cursor", (s) => selectedRow(s).includes("deploy"));
  client.write("r");
  await client.waitForScreen("the question", (s) => s.includes("rerun deploy? y/N"));
  client.write("n");
  await client.waitForScreen("nothing rerun", (s) => s.includes("nothing rerun"));
  expect((await fleet.task(once)).run).toBe(first.run);
  client.write("j");
  await client.waitForScreen("the loaded task", (s) => selectedRow(s).includes("echo tests passed"));
  client.write("r");
  await client.waitForScreen("rerun at once", (s) => s.includes(`reran task ${loaded.id}`));
  await fleet.waitForTask(loaded.id, "its second run", (t) => t.run === loadedFirst.run + 1);
});

test("the hint names s for what it does: grouping, not sort", async () => {
  await fleet.run("sleep 3600");
  const client = await openDashboard(fleet, [], { cols: 140, rows: 30 });
  const screen = await client.waitForScreen("the compact hint", (s) => s.includes("q:detach"));
  expect(rows(screen).at(-1)).toContain("s:grouping");
  expect(screen).not.toContain("s:sort");
});

test("v on the last task of a section moves the cursor to the next task, never onto a section's title", async () => {
  await fleet.run("sleep 3600", ["--name", "dev"]);
  const done = await fleet.run("true", ["--name", "build"]);
  await fleet.waitForExit(done);
  const client = await openDashboard(fleet, [], { cols: 120, rows: 30 });
  await client.waitForScreen("dev under the cursor", (s) => selectedRow(s).includes("dev"));
  client.write("v");
  const screen = await client.waitForScreen("dev selected", (s) => s.includes("* 1 selected"));
  expect(selectedRow(screen)).toMatch(/^› +✓ +\d+ build /);
  expect(rows(screen)).toContain("Completed (1)");
});

test("a task that turns Running again just after it turned Idle keeps its row for a second", async () => {
  fleet.env.FLEETCOM_IDLE_SECONDS = "1";
  const stop = join(fleet.sandbox.root, "stop");
  const script = `while [ ! -e '${stop}' ]; do echo tick; sleep 0.2; done; read line; echo "got $line"; exec sleep 3600`;
  const id = await fleet.run(script, ["--name", "echoer"]);
  const client = await openDashboard(fleet, [], { cols: 120, rows: 30 });
  await client.waitForScreen("running", (s) => s.includes("Running (1)"));
  writeFileSync(stop, "");
  await client.waitForScreen("moved to Idle", (s) => s.includes("Idle (1)") && !s.includes("Running ("));
  await fleet.ok(["send", String(id), "again"]);
  // Its new output shows at once; the row stays under Idle until a second has passed since it moved there.
  const held = await client.waitForScreen("the new output", (s) => s.includes("got again") || s.includes("Running (1)"));
  expect(held).toContain("Idle (1)");
  expect(held).toContain("got again");
  await client.waitForScreen("then Running", (s) => s.includes("Running (1)") && s.includes("got again"));
});

test("the attach status line: a task that rang says it asked for attention, and no 'none waiting' beside it", async () => {
  fleet.env.FLEETCOM_ATTACH_STATUS = "1";
  const id = await fleet.run("printf 'ready> \\a'; exec cat", ["--name", "agent"]);
  await fleet.waitForTask(id, "the bell", (t) => t.attention?.state === "bell");
  expect(await fleet.ok(["ls"])).toMatch(/agent .* asked for attention/);
  const client = fleet.spawnClient(["attach", String(id)], { cols: 140, rows: 20 });
  const screen = await client.waitForScreen("the status line", (s) => /task \d+ agent · /.test(rows(s).at(-1) ?? ""));
  const status = rows(screen).at(-1)!;
  expect(status).toContain(`task ${id} agent · asked for attention · Ctrl-\\ then d detach`);
  expect(status).not.toMatch(/none waiting|waiting: bell/);
  client.write("\x1cd");
  expect(await client.proc.exited).toBe(0);
});

test("with a host added, Q asks to stop this machine's tasks and says the host's keep running", async () => {
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), '[hosts.gpu1]\nssh = "me@gpu1.invalid"\nhome = "/home/me"\n');
  await fleet.run("sleep 3600");
  const client = await openDashboard(fleet, [], { cols: 160, rows: 30 });
  await client.waitForScreen("the host's heading", (s) => s.includes("── gpu1 · "));
  client.write("Q");
  await client.waitForScreen("the question", (s) => s.includes("stop this machine's 1 task and its daemon? (the tasks on gpu1 keep running) y/N"));
  client.write("y");
  expect(await client.proc.exited).toBe(0);
  expect(client.output).toContain("[stopped this machine's daemon and its tasks; the tasks on gpu1 keep running]");
});

test("two terminals of different sizes: the smaller one marks that it shows a part, until it attaches again", async () => {
  const id = await fleet.run("printf 'top line\\n'; exec cat", ["--name", "shared"]);
  const small = fleet.spawnClient(["attach", String(id)], { cols: 80, rows: 24 });
  await small.waitForScreen("the task", (s) => s.includes("top line"));
  await small.waitForRawMode();
  const big = fleet.spawnClient(["attach", String(id)], { cols: 120, rows: 40 });
  await big.waitForScreen("the task", (s) => s.includes("top line"));
  await fleet.waitForTask(id, "the big size", (t) => t.cols === 120 && t.rows === 40);
  const marked = await small.waitForScreen("the marker", (s) => s.includes("part shown"));
  expect(rows(marked).at(-1)).toBe("part shown: the task is 120×40, this terminal 80×24 · attach again to fit");
  await big.settled();
  expect(big.screen()).not.toContain("part shown");
  // Attaching again sizes the task to this terminal: the marker goes, and the bigger one has none.
  small.write("\x1cd");
  expect(await small.proc.exited).toBe(0);
  const again = fleet.spawnClient(["attach", String(id)], { cols: 80, rows: 24 });
  await fleet.waitForTask(id, "the small size", (t) => t.cols === 80 && t.rows === 24);
  await again.waitForScreen("the task", (s) => s.includes("top line"));
  expect(again.screen()).not.toContain("part shown");
  await big.settled();
  expect(big.screen()).not.toContain("part shown");
});

test("attached to a finished one-off, r asks y/N too: n keeps it as it was, y reruns it", async () => {
  const id = await fleet.run("echo deployed; exit 3", ["--name", "deploy"]);
  const first = await fleet.waitForExit(id);
  const client = fleet.spawnClient(["attach", String(id)], { cols: 100, rows: 20 });
  const notice = `[task ${id} exited 3 · r rerun · Ctrl-\\ back]`;
  await client.waitForScreen("the notice", (s) => rows(s).at(-1) === notice);
  await client.waitForRawMode();
  client.write("r");
  await client.waitForScreen("the question", (s) => rows(s).at(-1) === `[task ${id} exited 3 · rerun deploy? y/N]`);
  client.write("n");
  await client.waitForScreen("the notice again", (s) => rows(s).at(-1) === notice);
  expect((await fleet.task(id)).run).toBe(first.run);
  client.write("r");
  await client.waitForScreen("the question again", (s) => s.includes("rerun deploy? y/N"));
  client.write("y");
  await fleet.waitForTask(id, "its second run", (t) => t.run === first.run + 1);
  expect(await client.proc.exited).toBe(3);
});

test("a burst answers no question: kill's y/N stays open, and one key answers it", async () => {
  const id = await fleet.run("sleep 3600", ["--name", "editor"]);
  const client = await openDashboard(fleet, [], { cols: 120, rows: 30 });
  client.write("X");
  await client.waitForScreen("the question", (s) => s.includes("kill editor? y/N"));
  client.write("yes\r");
  const screen = await client.waitForScreen("the notice under the question", (s) => s.includes("this is the fleetcom dashboard: q leaves"));
  expect(screen).toContain("kill editor? y/N");
  expect((await fleet.task(id)).state).toBe("running");
  client.write("n");
  await client.waitForScreen("left running", (s) => s.includes(`task ${id} left running`));
  expect((await fleet.task(id)).state).toBe("running");
});
