// Attaching from a shell in a real terminal (a tmux pane): what the user's terminal holds before,
// during and after, the task's own screen switches, and the exit codes the shell sees.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { fleetcomScript, Tmux } from "../harness/tmux.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));
let tmux: Tmux;
let fc: string;
afterEach(() => tmux?.kill());

const PROMPT = "$";
const lastRow = (text: string) => text.split("\n").at(-1) ?? "";

/** A tmux pane with a plain shell whose prompt is `$ `, and `fc` to run fleetcom. */
async function shell(): Promise<void> {
  tmux = new Tmux(fleet.env, fleet.sandbox.root);
  fc = fleetcomScript(fleet.sandbox.root, fleetcomArgv);
  tmux.window("shell", "env PS1='$ ' /bin/sh");
  await tmux.waitFor("shell", "the prompt", (t) => lastRow(t) === PROMPT);
}

/** Types a command line and presses Enter. */
function enter(line: string): void {
  tmux.type("shell", line);
  tmux.press("shell", "Enter");
}

/** Everything the pane holds, scrollback included, as lines. */
function history(): string[] {
  return tmux.capture("shell", true).split("\n");
}

function numbered(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`);
}

describe.skipIf(!Tmux.available())("attaching from a shell", () => {
  test("attach and detach leave the terminal's scrollback as it was, and the prompt comes back below it", async () => {
    await shell();
    enter("seq -f 'line %g' 1 60");
    await tmux.waitFor("shell", "60 lines", (t) => t.includes("line 60") && lastRow(t) === PROMPT);
    const id = await fleet.run("seq -f 'task line %g' 1 100; exec sleep 600");
    await until("the task's output", async () => (await fleet.peek(id)).includes("task line 100"));

    enter(`${fc} attach ${id}; echo rc=$?`);
    await tmux.waitFor("shell", "the task's screen", (t) => t.includes("task line 100"));
    await tmux.waitForRawMode("shell");
    const alternateWhileAttached = tmux.format("shell", "alternate_on");
    tmux.press("shell", "C-\\", "d");
    await tmux.waitFor("shell", "the prompt after detaching", (t) => t.includes("rc=0") && lastRow(t) === PROMPT);

    expect(history()).toEqual([
      "$ seq -f 'line %g' 1 60",
      ...numbered("line", 60),
      `$ ${fc} attach ${id}; echo rc=$?`,
      `[detached from task ${id}]`,
      "rc=0",
      PROMPT,
    ]);
    expect(alternateWhileAttached).toBe("1");
  });

  test("a task run from a terminal takes that terminal's size, and ls fits the terminal's width", async () => {
    await shell(); // 80x30, not the 120x40 a client without a terminal gives
    enter(`${fc} run --name sized -- 'stty size; exec sleep 600'; echo rc=$?`);
    await tmux.waitFor("shell", "the task's id", (t) => t.includes("rc=0") && lastRow(t) === PROMPT);
    const [task] = await fleet.ls();
    await until("the task's size", async () => (await fleet.peek(task!.id)).includes("30 80"));
    enter(`${fc} ls`);
    await tmux.waitFor("shell", "the listing", (t) => t.includes("PREVIEW") && lastRow(t) === PROMPT);
    // The table is cut to the terminal (one column short of it): its rows do not wrap.
    const table = history().filter((l) => l.startsWith("ID ") || l.startsWith(`${task!.id} `));
    expect(table).toHaveLength(2);
    for (const row of table) expect(row.length).toBeLessThan(80);
  });

  test("a task that enters and leaves its alternate screen while attached keeps the terminal on its own alternate screen", async () => {
    await shell();
    enter("seq -f 'mine %g' 1 40");
    await tmux.waitFor("shell", "40 lines", (t) => t.includes("mine 40") && lastRow(t) === PROMPT);
    const script = join(fleet.sandbox.root, "app.sh");
    writeFileSync(
      script,
      [
        "stty -echo",
        "printf 'shell line 1\\nshell line 2\\n'",
        "read x",
        "printf '\\033[?1049h\\033[H\\033[2JFULL SCREEN APP'",
        "read x",
        "printf '\\033[?1049lback in the shell\\n'",
        "exec sleep 600",
      ].join("\n"),
    );
    const id = await fleet.run(`sh ${script}`);
    enter(`${fc} attach ${id}`);
    await tmux.waitFor("shell", "the task's screen", (t) => t.includes("shell line 2"));
    await tmux.waitForRawMode("shell");

    tmux.press("shell", "Enter");
    await tmux.waitFor("shell", "the full-screen app", (t) => t.includes("FULL SCREEN APP") && !t.includes("shell line"));
    expect(tmux.format("shell", "alternate_on")).toBe("1");
    tmux.press("shell", "Enter");
    const back = await tmux.waitFor("shell", "the task's shell screen again", (t) => t.includes("back in the shell"));
    expect(back.split("\n").slice(0, 3)).toEqual(["shell line 1", "shell line 2", "back in the shell"]);
    expect(tmux.format("shell", "alternate_on")).toBe("1");

    tmux.press("shell", "C-\\", "d");
    await tmux.waitFor("shell", "the prompt after detaching", (t) => t.includes(`[detached from task ${id}]`) && lastRow(t) === PROMPT);
    expect(tmux.format("shell", "alternate_on")).toBe("0");
    expect(history()).toEqual(["$ seq -f 'mine %g' 1 40", ...numbered("mine", 40), `$ ${fc} attach ${id}`, `[detached from task ${id}]`, PROMPT]);
  });

  test("run --attach exits with the task's exit code and leaves its last screen in view", async () => {
    await shell();
    enter(`${fc} run --attach -- 'echo working; read x; echo bye; exit 3'; echo rc=$?`);
    await tmux.waitFor("shell", "the task", (t) => t.includes("working"));
    await tmux.waitForRawMode("shell");
    tmux.press("shell", "Enter");
    const after = await tmux.waitFor("shell", "the exit code", (t) => t.includes("rc=") && lastRow(t) === PROMPT);
    const lines = after.split("\n");
    expect(lines.slice(-6)).toEqual(["working", "", "bye", expect.stringMatching(/^\[task \d+ exited 3\]$/), "rc=3", PROMPT]);
  });

  test("run --attach of a command that ends before the attach still exits with its code", async () => {
    await shell();
    enter(`${fc} run --attach -- 'exit 7'; echo rc=$?`);
    const after = await tmux.waitFor("shell", "the exit code", (t) => t.includes("rc=") && lastRow(t) === PROMPT);
    expect(after.split("\n").slice(-3)).toEqual([expect.stringMatching(/^\[task \d+ exited 7\]$/), "rc=7", PROMPT]);
  });

  test("a task killed by a signal while attached gives 128 + the signal's number", async () => {
    await shell();
    enter(`${fc} run --attach -- 'echo waiting; read x; kill -TERM $$'; echo rc=$?`);
    await tmux.waitFor("shell", "the task", (t) => t.includes("waiting"));
    await tmux.waitForRawMode("shell");
    tmux.press("shell", "Enter");
    const after = await tmux.waitFor("shell", "the exit code", (t) => t.includes("rc=") && lastRow(t) === PROMPT);
    expect(after).toMatch(/\[task \d+ killed \(SIGTERM\)\]\nrc=143\n\$$/);
  });

  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    test(`an attach client ended by ${signal} leaves the terminal's settings as they were, and dies of the signal`, async () => {
      await shell();
      const tty = tmux.format("shell", "pane_tty");
      const settings = () => new TextDecoder().decode(Bun.spawnSync(["stty", "-g", "-F", tty]).stdout).trim();
      const before = settings();
      const id = await fleet.run("echo attached-here; exec sleep 600");
      enter(`${fc} attach ${id}; echo rc=$?`);
      await tmux.waitFor("shell", "the task's screen", (t) => t.includes("attached-here"));
      await tmux.waitForRawMode("shell");
      // The terminal's foreground process group is the attach client (the shell runs it as a job).
      const client = Number(new TextDecoder().decode(Bun.spawnSync(["ps", "-o", "tpgid=", "-p", tmux.format("shell", "pane_pid")]).stdout).trim());
      expect(client).toBeGreaterThan(0);
      process.kill(client, signal);
      const code = signal === "SIGTERM" ? 143 : 129;
      await tmux.waitFor("shell", "the exit code", (t) => t.includes(`rc=${code}`) && lastRow(t) === PROMPT);
      expect(settings()).toBe(before);
    });
  }
});

describe.skipIf(!Tmux.available())("attaching to a finished task", () => {
  async function finishedTask(): Promise<number> {
    const id = await fleet.run("echo started; read x; exit 3");
    await until("the task's output", async () => (await fleet.peek(id)).includes("started"));
    await fleet.ok(["send", String(id), "\n"]);
    await fleet.waitForExit(id);
    return id;
  }

  test("shows how it ended on the last row over its screen; Ctrl-\\ goes back and exits 0", async () => {
    await shell();
    const id = await finishedTask();
    enter(`${fc} attach ${id}; echo rc=$?`);
    // The notice is drawn at the attach reply and again after the screen, which may come later.
    const shown = await tmux.waitFor("shell", "the screen and its notice", (t) => t.startsWith("started") && t.includes("rerun"));
    await tmux.waitForRawMode("shell"); // before it, Ctrl-\ would be SIGQUIT
    expect(shown.split("\n")[0]).toBe("started");
    expect(lastRow(shown)).toBe(`[task ${id} exited 3 · r rerun · Ctrl-\\ back]`);
    expect(tmux.format("shell", "cursor_y")).not.toBe("29");
    expect(await fleet.peek(id)).not.toContain("rerun");

    tmux.press("shell", "C-\\", "d");
    await tmux.waitFor("shell", "the prompt", (t) => t.includes("rc=0") && lastRow(t) === PROMPT);
    expect(history().slice(-3)).toEqual([`[detached from task ${id}]`, "rc=0", PROMPT]);
  });

  test("r, then y for a one-off, reruns it and stays attached to the new run, whose exit code the client then exits with", async () => {
    await shell();
    const id = await finishedTask();
    enter(`${fc} attach ${id}; echo rc=$?`);
    await tmux.waitFor("shell", "the notice", (t) => t.includes("rerun"));
    await tmux.waitForRawMode("shell");
    tmux.press("shell", "r");
    // A one-off (started by run, not by a load) asks first, as the dashboard's r does.
    await tmux.waitFor("shell", "the question", (t) => /^\[task \d+ exited 3 · rerun .*\? y\/N\]$/.test(lastRow(t)));
    tmux.press("shell", "y");
    await fleet.waitForTask(id, "to run again", (t) => t.run === 2 && t.state === "running");
    const rerun = await tmux.waitFor("shell", "the new run", (t) => t.startsWith("started") && !t.includes("rerun"));
    expect(rerun.split("\n")).toEqual(["started"]);
    tmux.press("shell", "Enter");
    const after = await tmux.waitFor("shell", "the exit code", (t) => t.includes("rc=") && lastRow(t) === PROMPT);
    expect(after.split("\n").slice(-3)).toEqual([`[task ${id} exited 3]`, "rc=3", PROMPT]);
  });
});

describe.skipIf(!Tmux.available())("attention while attached", () => {
  /** A task that asks, rings the bell and waits for the answer, as a prompt does. */
  const asker = (name: string) => `printf '${name}: Proceed? (y/n) \\a'; read x; echo "got $x"; exec sleep 600`;
  const ringing = (id: number) => fleet.waitForTask(id, "to ring", (t) => t.attention?.state === "bell");

  async function detachToShell(id: number): Promise<void> {
    tmux.press("shell", "C-\\", "d");
    await tmux.waitFor("shell", "the prompt after detaching", (t) => t.includes(`[detached from task ${id}]`) && lastRow(t) === PROMPT);
  }

  test("attaching and detaching without typing leaves the task waiting; a key typed into it clears it", async () => {
    await shell();
    const id = await fleet.run(asker("asker"));
    await ringing(id);
    enter(`${fc} attach ${id}`);
    await tmux.waitFor("shell", "the question", (t) => t.includes("asker: Proceed?"));
    await tmux.waitForRawMode("shell");
    await detachToShell(id);
    expect((await fleet.task(id)).attention?.state).toBe("bell");

    enter(`${fc} attach ${id}`);
    await tmux.waitFor("shell", "the question again", (t) => t.includes("asker: Proceed?"));
    await tmux.waitForRawMode("shell");
    tmux.type("shell", "y");
    await fleet.waitForTask(id, "to be cleared by the key typed", (t) => t.attention === null);
  });

  test("passing through waiting tasks with the prefix then w leaves each one waiting", async () => {
    await shell();
    const home = await fleet.run("echo at home; exec sleep 600");
    const first = await fleet.run(asker("first"));
    const second = await fleet.run(asker("second"));
    await ringing(first);
    await ringing(second);
    enter(`${fc} attach ${home}`);
    await tmux.waitFor("shell", "the first task", (t) => t.startsWith("at home"));
    await tmux.waitForRawMode("shell");
    tmux.press("shell", "C-\\", "w");
    await tmux.waitFor("shell", "the first waiting task", (t) => t.includes("first: Proceed?"));
    tmux.press("shell", "C-\\", "w");
    await tmux.waitFor("shell", "the second waiting task", (t) => t.includes("second: Proceed?"));
    await detachToShell(second);
    expect((await fleet.task(first)).attention?.state).toBe("bell");
    expect((await fleet.task(second)).attention?.state).toBe("bell");
  });
});

describe.skipIf(!Tmux.available())("the detach key and its chords", () => {
  const ARMED = "Ctrl-\\ … d detach · n next";

  async function attachedTo(id: number, shows: string): Promise<void> {
    enter(`${fc} attach ${id}; echo rc=$?`);
    await tmux.waitFor("shell", "the task's screen", (t) => t.includes(shows));
    await tmux.waitForRawMode("shell");
  }

  test("a lone Ctrl-\\ shows that it waits, for as long as it takes; n then switches, and nothing reaches the shell", async () => {
    await shell();
    const first = await fleet.run("echo first-task; exec sleep 600");
    await fleet.run("echo second-task; exec sleep 600");
    await attachedTo(first, "first-task");
    tmux.press("shell", "C-\\");
    const armed = await tmux.waitFor("shell", "the armed marker on the last row", (t) => lastRow(t).includes(ARMED));
    expect(armed.split("\n")[0]).toBe("first-task");
    tmux.press("shell", "n");
    const switched = await tmux.waitFor("shell", "the second task", (t) => t.startsWith("second-task"));
    expect(switched).not.toContain(ARMED);
    tmux.press("shell", "C-\\", "d");
    const after = await tmux.waitFor("shell", "the prompt", (t) => t.includes("rc=0") && lastRow(t) === PROMPT);
    expect(after).not.toContain("$ n");
    expect(history().slice(-3)).toEqual(["[detached from task 2]", "rc=0", PROMPT]);
  });

  test("Esc after Ctrl-\\ stays attached and gives the task's screen back as it was; any other key detaches", async () => {
    await shell();
    const id = await fleet.run("printf 'row one\\nrow two\\n'; exec sleep 600");
    await attachedTo(id, "row two");
    const before = tmux.capture("shell");
    tmux.press("shell", "C-\\");
    await tmux.waitFor("shell", "the armed marker", (t) => lastRow(t).includes(ARMED));
    tmux.press("shell", "Escape");
    await tmux.waitFor("shell", "the screen as it was", (t) => t === before);
    expect(tmux.format("shell", "pane_current_command")).not.toBe("sh");
    tmux.press("shell", "C-\\");
    await tmux.waitFor("shell", "the armed marker again", (t) => lastRow(t).includes(ARMED));
    tmux.press("shell", "q");
    await tmux.waitFor("shell", "the prompt", (t) => t.includes("rc=0") && lastRow(t) === PROMPT);
    expect(history().slice(-3)).toEqual([`[detached from task ${id}]`, "rc=0", PROMPT]);
  });

  test("Ctrl-\\ ? lists every chord over the task's screen; any key takes the list away", async () => {
    await shell();
    const id = await fleet.run("printf 'row one\\nrow two\\n'; exec sleep 600");
    await attachedTo(id, "row two");
    const before = tmux.capture("shell");
    tmux.press("shell", "C-\\", "?");
    const list = await tmux.waitFor("shell", "the chord list", (t) => t.includes("Attached mode: Ctrl-\\ then a key"));
    for (const line of ["Ctrl-\\ d ", "Ctrl-\\ n ", "Ctrl-\\ p ", "Ctrl-\\ w ", "Ctrl-\\ h/[ ", "Ctrl-\\ s ", "Ctrl-\\ ? ", "Ctrl-\\ Ctrl-\\ "])
      expect(list).toContain(line);
    tmux.press("shell", "x");
    await tmux.waitFor("shell", "the screen as it was", (t) => t === before);
    tmux.press("shell", "C-\\", "d");
    await tmux.waitFor("shell", "the prompt", (t) => t.includes("rc=0") && lastRow(t) === PROMPT);
  });

  test("Ctrl-\\ [ scrolls back: the task's history opens in the pager, and the task comes back when it quits", async () => {
    await shell();
    const id = await fleet.run("seq -f 'old line %g' 1 200; exec sleep 600");
    await until("the task's output", async () => (await fleet.peek(id)).includes("old line 200"));
    await attachedTo(id, "old line 200");
    tmux.press("shell", "C-\\", "[");
    await tmux.waitFor("shell", "the pager at the end of the history", (t) => t.includes("old line 200") && lastRow(t) === "(END)");
    tmux.type("shell", "g");
    await tmux.waitFor("shell", "the top of the history in the pager", (t) => t.startsWith("old line 1\n"));
    tmux.type("shell", "q");
    await tmux.waitFor("shell", "the task's screen again", (t) => lastRow(t) === "old line 200" && !t.startsWith("old line 1\n"));
    tmux.press("shell", "C-\\", "d");
    await tmux.waitFor("shell", "the prompt", (t) => t.includes("rc=0") && lastRow(t) === PROMPT);
  });
});
