// The dashboard and attached mode with a fleet of 100 tasks (issue 17): finding a row (filter, End,
// digits), rows that move while the cursor stays on its task, acting on a selection, the hint line at
// 60 and 200 columns, and moving between tasks without leaving attached mode. Each fleet is started
// with one `load` of a generated recipe; keys go through the real program in a real PTY.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { textWidth } from "../../src/text-width.ts";
import { eachTestGetsAFleet, type Fleet, type PtyClient, until } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const DETACH = "\x1c";
const ESC = "\x1b";
const END = "\x1b[F";
const HOME = "\x1b[H";
const PAGE_DOWN = "\x1b[6~";

const rows = (screen: string) => screen.split("\n");
const selectedRow = (screen: string) => rows(screen).find((r) => r.startsWith("›")) ?? "";
const taskRows = (screen: string) => rows(screen).filter((r) => /^[› ][ *]\S [ ◆] +\d+ /.test(r));
const idOf = (row: string) => Number(/ (\d+) (↑ |↓ )?svc-/.exec(row)![1]);
/** The dashboard is on screen: its header, and its hint line in one of its forms. */
const isDashboard = (s: string) => s.startsWith("fleetcom") && /^(↑↓|q:detach)/m.test(s);

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

async function dashboard(args: string[] = [], size = { cols: 120, rows: 40 }, env: Record<string, string> = {}): Promise<PtyClient> {
  Object.assign(fleet.env, env);
  const client = fleet.spawnClient(args, size);
  await client.waitForScreen("the dashboard", (s) => isDashboard(s) && s.includes("100 tasks"));
  await client.waitForRawMode();
  return client;
}

describe("the dashboard with 100 tasks", () => {
  test("/ narrows the rows to the matches as you type (name, command, dir, group); Esc clears it", async () => {
    await hundredTasks();
    const client = await dashboard();
    // `/` on its own: keys that come in one read while the list has them are a paste, no action.
    client.write("/");
    await client.waitForScreen("the filter line", (s) => s.includes("(100 of 100 tasks)"));
    client.write("alph");
    const narrowed = await client.waitForScreen("the alpha group only", (s) => s.includes("(10 of 100 tasks)"));
    expect(taskRows(narrowed).map(idOf)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    client.write("\x7f\x7f\x7f\x7f\x7fsvc-42");
    const one = await client.waitForScreen("svc-42 alone", (s) => s.includes("(1 of 100 tasks)"));
    expect(taskRows(one)).toEqual([expect.stringMatching(/^› ?\S +42 svc-42 /)]);
    client.write("\x15sleep 3657"); // Ctrl-U clears what was typed; the command matches too
    const byCommand = await client.waitForScreen("by command", (s) => s.includes("(1 of 100 tasks)") && s.includes("svc-57"));
    expect(taskRows(byCommand)).toHaveLength(1);
    client.write("\r"); // kept: the keys act on the rows again
    await client.waitForScreen("the filter kept", (s) => s.includes("filter: sleep 3657 (1 of 100 tasks)"));
    client.write(ESC);
    const all = await client.waitForScreen("every task again", (s) => !s.includes("filter:") && !s.includes("/sleep") && taskRows(s).length > 20);
    expect(all).not.toContain("of 100 tasks");
  });

  test("End reaches the last task in one key, Home the top, PgDn a page, digits and Enter a task id", async () => {
    await hundredTasks();
    const client = await dashboard();
    client.write("s"); // by directory: one section, so the order never changes while tasks turn idle
    await client.waitForScreen("by directory", (s) => s.includes("by directory"));
    client.write(END);
    await client.waitForScreen("the last task", (s) => /^› ?\S +100 svc-100 /.test(selectedRow(s)));
    client.write(HOME);
    await client.waitForScreen("the section's title", (s) => selectedRow(s) === "› ~ (100)");
    client.write(PAGE_DOWN);
    const paged = await client.waitForScreen("a page down", (s) => /^› ?\S +\d+ svc-/.test(selectedRow(s)));
    expect(Number(/(\d+) svc-/.exec(selectedRow(paged))![1])).toBeGreaterThan(20);
    client.write("57");
    await client.waitForScreen("the digits shown", (s) => s.includes("go to task 57"));
    client.write("\r");
    await client.waitForScreen("task 57", (s) => /^› ?\S +57 svc-57 /.test(selectedRow(s)) && !s.includes("go to task"));
    client.write("999\r");
    await client.waitForScreen("no such task", (s) => s.includes("no task 999") && /57 svc-57/.test(selectedRow(s)));
  });

  test("a task turning waiting under the cursor keeps the cursor on it, marked as moved; another one moving leaves it alone", async () => {
    await hundredTasks();
    const client = await dashboard();
    client.write("j".repeat(49));
    await client.waitForScreen("task 50 selected", (s) => / 50 svc-50 /.test(selectedRow(s)));
    await ring(10);
    const other = await client.waitForScreen("task 10 waiting", (s) => s.includes("! 1 waiting"));
    expect(selectedRow(other)).toMatch(/ 50 svc-50 /);
    await ring(50);
    const moved = await client.waitForScreen("task 50 waiting", (s) => s.includes("! 2 waiting") && selectedRow(s).includes("rang-50"));
    // Still task 50, now in the Waiting section at the top, with the mark that says it moved up.
    expect(selectedRow(moved)).toMatch(/^› ?! +50 ↑ svc-50 · rang-50/);
    expect(rows(moved).slice(1, 4)).toEqual(["Waiting (2)", expect.stringMatching(/^ {2}! +10 (↑ )?svc-10 /), expect.stringMatching(/^› ! +50 ↑ svc-50 /)]);
    client.write("R");
    await client.waitForScreen("the rename prompt is for task 50", (s) => s.includes("Name for task 50"));
  });

  test("v selects several tasks; X kills exactly those", async () => {
    await hundredTasks();
    const client = await dashboard();
    client.write("s"); // one section: rows keep their order
    await client.waitForScreen("by directory", (s) => s.includes("by directory"));
    client.write("jj");
    await client.waitForScreen("task 3", (s) => / 3 svc-3 /.test(selectedRow(s)));
    // Each v selects and moves down; a key at a time, as a person presses them ("vvv" in one read is a paste).
    for (const n of [1, 2, 3]) {
      client.write("v");
      await client.waitForScreen(`${n} selected`, (s) => s.includes(`* ${n} selected`));
    }
    client.write("77\r");
    await client.waitForScreen("task 77", (s) => / 77 svc-77 /.test(selectedRow(s)));
    client.write("v");
    const picked = await client.waitForScreen("four selected", (s) => s.includes("* 4 selected"));
    expect(
      taskRows(picked)
        .filter((r) => r[1] === "*")
        .map(idOf),
    ).toContain(77);
    client.write("X");
    await client.waitForScreen("the question", (s) => s.includes("kill 4 running task(s)? y/N"));
    client.write("y");
    await client.waitForScreen("killed", (s) => s.includes("killed 4 tasks") && !s.includes("selected"));
    const tasks = await until("the four exited", async () => {
      const all = await fleet.ls();
      return all.filter((t) => t.state === "exited").length === 4 ? all : undefined;
    });
    expect(tasks.filter((t) => t.state === "exited").map((t) => t.id)).toEqual([3, 4, 5, 77]);
    expect(tasks.filter((t) => t.state === "running")).toHaveLength(96);
  });

  test("X on a section's title acts on every task in it", async () => {
    await hundredTasks();
    const client = await dashboard();
    client.write("s"); // by directory, then by group: alpha (1-10), then beta
    await client.waitForScreen("by directory", (s) => s.includes("by directory"));
    client.write("s");
    await client.waitForScreen("by group", (s) => s.includes("by group"));
    client.write(HOME);
    await client.waitForScreen("the alpha title", (s) => selectedRow(s) === "› alpha (10)");
    client.write("X");
    await client.waitForScreen("the question", (s) => s.includes("kill 10 running task(s)? y/N"));
    client.write("y");
    await client.waitForScreen("killed", (s) => s.includes("killed 10 tasks"));
    const tasks = await until("ten exited", async () => {
      const all = await fleet.ls();
      return all.filter((t) => t.state === "exited").length === 10 ? all : undefined;
    });
    expect(tasks.filter((t) => t.state === "exited").map((t) => t.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  test("the hint line fits 200 columns with every key and 60 with the most-used ones, ending with ?:help", async () => {
    await hundredTasks();
    const client = await dashboard([], { cols: 200, rows: 40 });
    const wide = rows(client.screen()).at(-1)!;
    expect(wide).toBe(
      "↑↓ move · enter attach · space peek · / filter · v select · n new · r rerun · R rename · g group · m tag · X kill/rm · s grouping · w save · o sessions · d diff · q detach · Q stop all · ? help",
    );
    client.resize(60, 40);
    const narrow = await client.waitForScreen("the narrow hint", (s) => rows(s).at(-1)!.startsWith("q:detach"));
    const hint = rows(narrow).at(-1)!;
    expect(textWidth(hint)).toBeLessThan(60);
    expect(hint).toEndWith(" ?:help");
    for (const key of ["q:detach", "↑↓", "⏎:attach", "/:filter", "X:kill/rm"]) expect(hint).toContain(key);
    for (const line of rows(narrow)) expect(textWidth(line)).toBeLessThan(60);
    client.write("?");
    const help = await client.waitForScreen("every key", (s) => s.includes("Keys (any key returns)"));
    for (const key of ["Home End", "PgUp PgDn", "12 ⏎", "/", "v", "V", "X", "Q", "Ctrl-\\ n", "Ctrl-\\ h/["])
      expect(help).toMatch(new RegExp(`^  ${key.replace(/[?/\\[]/g, "\\$&")} `, "m"));
    client.write(" ");
    await client.waitForScreen("the list again", (s) => !s.includes("Keys (any key") && isDashboard(s));
  });
});

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
  test("the detach key then w goes to the next waiting task, n and p to the next and previous; the detach key then d detaches", async () => {
    await hundredTasks();
    await ring(63);
    const client = await attached(1, "here-1");
    client.write(`${DETACH}w`);
    await client.waitForScreen("task 63", (s) => s.includes("here-63") && s.includes("rang-63") && !s.includes("here-1\n"));
    // Passing through is looking, not answering: 63 still waits.
    expect((await fleet.task(63)).attention).not.toBeNull();
    client.write(`${DETACH}n`);
    await client.waitForScreen("task 64", (s) => s.includes("here-64") && !s.includes("rang-63"));
    client.write(`${DETACH}\x10`); // Ctrl may stay held: Ctrl-P is p
    await client.waitForScreen("task 63 again", (s) => s.includes("here-63"));
    const before = client.output.length;
    client.write(`${DETACH}w`); // nothing else waits: it stays, and rings the terminal's bell
    await until("the bell", () => client.output.slice(before) === "\x07");
    expect(client.screen()).toContain("here-63");
    client.write(`${DETACH}d`);
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
    client.write(`${DETACH}d`);
    await client.waitForScreen("Ctrl-\\ delivered as any key", (s) => s.includes("[01][1c]"));
    client.write("\x01d");
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
    client.write(`${DETACH}d`);
    expect(await client.proc.exited).toBe(0);
    const flagged = await attached(id, "[1c][78]", ["--detach-key", "^]"]);
    flagged.write(`${DETACH}\x1d\x1d`);
    await flagged.waitForScreen("Ctrl-\\ and one Ctrl-] delivered", (s) => s.includes("[1c][78][1c][1d]"));
    flagged.write("\x1dd");
    expect(await flagged.proc.exited).toBe(0);
    expect(flagged.output).toContain(`[detached from task ${id}]`);
  });

  test("the dashboard's --detach-key comes back to the dashboard and is named in ?", async () => {
    await hundredTasks();
    const client = await dashboard(["--detach-key", "ctrl-b"]);
    client.write("?");
    await client.waitForScreen("the help names the key", (s) => s.includes("attach; Ctrl-B d comes back"));
    client.write(" ");
    await client.waitForScreen("the list", (s) => !s.includes("Keys (any key"));
    client.write("\r");
    await client.waitForScreen("attached to task 1", (s) => s.includes("here-1") && !isDashboard(s));
    client.write("\x02n"); // a chord with the dashboard's key: task 2
    await client.waitForScreen("task 2", (s) => s.includes("here-2") && !isDashboard(s));
    client.write("\x02d");
    const back = await client.waitForScreen("the dashboard again", (s) => isDashboard(s));
    expect(selectedRow(back)).toMatch(/ 2 svc-2 /); // where attached mode was last
  });

  test("a bad detach key is a usage error before anything starts", async () => {
    const bad = await fleet.cli(["attach", "--detach-key", "x", "1"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--detach-key: 'x' is not a control key");
    const esc = await fleet.cli(["run", "--attach", "--detach-key", "ctrl-[", "--", "sleep 1"]);
    expect(esc.code).toBe(2);
    expect(esc.stderr).toContain("Ctrl-[ is Escape");
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
    client.write(`${DETACH}d`);
    expect(await client.proc.exited).toBe(0);
  });

  test("a task that clears the screen, scrolls past its end and resets its scroll region leaves the line in place and its own rows exact", async () => {
    const id = await fleet.run(`echo top; while read -r l; do printf '\\033[2J\\033[Hcleared %s\\n' "$l"; seq 1 40; printf '\\033[r'; echo after-reset; done`, [
      "--name",
      "clr",
    ]);
    await until("top", async () => (await fleet.peek(id)).includes("top"));
    fleet.env.FLEETCOM_ATTACH_STATUS = "1";
    const client = await attached(id, "top", [], { cols: 80, rows: 20 });
    const lines = (s: string) => s.split("\n");
    // The state word may have turned to idle by now on a loaded machine; the line's place and shape are the point.
    const statusLine = / task 1 clr · (active|idle) · Ctrl-\\ then d detach/;
    await client.waitForScreen("the status line", (s) => statusLine.test(lines(s)[19] ?? ""));
    client.write("x\r");
    const screen = await client.waitForScreen(
      "the task's rows under the status line",
      (s) => lines(s)[0] === "after-reset" && lines(s)[17] === "40" && statusLine.test(lines(s)[19] ?? ""),
    );
    expect(lines(screen)[19]).toMatch(statusLine);
    expect(
      lines(screen)
        .slice(0, 19)
        .map((r) => r.trimEnd())
        .join("\n")
        .trimEnd(),
    ).toBe((await fleet.peek(id)).trimEnd());
    client.write(`${DETACH}d`);
    expect(await client.proc.exited).toBe(0);
  });

  test("FLEETCOM_ATTACH_STATUS=1 shows it on the last row: task, state, waiting count, detach key; the task gets one row less; the chord hides it", async () => {
    await hundredTasks();
    await ring(40);
    const id = await sizeTask();
    fleet.env.FLEETCOM_ATTACH_STATUS = "1";
    const client = await attached(id, "sized", [], SIZE);
    const last = (s: string) => (s.split("\n")[SIZE.rows - 1] ?? "").trim();
    // active, or idle on a machine so loaded that the hundred tasks took longer than idle_seconds.
    await client.waitForScreen("the status line", (s) => /^task \d+ sizer · (active|idle) · /.test(last(s)));
    expect(last(client.screen())).toMatch(/ · (active|idle) · ! 1 other waiting · Ctrl-\\ then d detach · /);
    client.write("\r");
    await client.waitForScreen("one row less", (s) => s.includes("29 100"));
    await ring(41);
    await client.waitForScreen("two waiting", (s) => last(s).includes("! 2 others waiting"));
    client.write(`${DETACH}s`);
    await client.waitForScreen("the status line gone", (s) => !s.includes("waiting ·"));
    client.write("\r");
    await client.waitForScreen("every row again", (s) => s.includes("30 100"));
    client.write(`${DETACH}s`);
    await client.waitForScreen("shown again", (s) => last(s).startsWith(`task ${id} `));
    client.write(`${DETACH}d`);
    expect(await client.proc.exited).toBe(0);
  });
});
