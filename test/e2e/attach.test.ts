// Attached mode through real PTYs: the fleetcom client runs in a PTY whose output feeds a headless
// terminal (which also answers terminal queries like a real one), and keys are typed into it.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, type PtyClient, until } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const DETACH = "\x1c";

/** A full-screen program: alternate screen, hidden cursor, colours, a scroll region, a cursor left mid-screen; redraws on each key. */
function fullScreenApp(dir: string): string {
  const script = join(dir, "app.sh");
  writeFileSync(
    script,
    `#!/bin/bash
seq 1 300
stty raw -echo
printf '\\033[?1049h\\033[?25l\\033[2J\\033[H'
n=0
draw() {
  printf '\\033[1;1H\\033[1;33;44m FULLSCREEN APP keys=%d \\033[0m' "$n"
  for r in 3 4 5 6 7 8; do printf '\\033[%d;4H\\033[38;5;%dm row %d ─ é中 \\033[0m' $r $((r*20)) $r; done
  printf '\\033[10;20r\\033[20;1Hbottom of region %d' "$n"
  printf '\\033[12;30H'
}
draw
while IFS= read -r -n1 key; do
  [ "$key" = q ] && break
  n=$((n+1)); draw
done
printf '\\033[r\\033[?25h\\033[?1049l'
`,
  );
  return `bash ${script}`;
}

/** peek trims trailing spaces; a client's screen keeps the coloured ones the app drew. */
function trimRows(screen: string): string {
  return screen
    .split("\n")
    .map((r) => r.trimEnd())
    .join("\n")
    .trimEnd();
}

async function attach(id: number, size?: { cols: number; rows: number }): Promise<PtyClient> {
  return fleet.spawnClient(["attach", String(id)], size);
}

describe("attach", () => {
  test("attach draws a full-screen program exactly, and detach and reattach restore it exactly", async () => {
    const id = await fleet.run(fullScreenApp(fleet.sandbox.root));
    await until("app drawn", async () => (await fleet.peek(id)).includes("keys=0"));
    const first = await attach(id);
    const drawn = await first.waitForScreen("app on the client", (s) => s.includes("keys=0") && s.includes("bottom of region 0"));
    expect(trimRows(drawn)).toBe(trimRows(await fleet.peek(id)));
    first.write("x");
    // The app redraws in several writes and parks the cursor last: wait for the whole redraw.
    const cursorOf = (c: PtyClient) => ({ x: c.term.buffer.active.cursorX, y: c.term.buffer.active.cursorY });
    const afterKey = await first.waitForScreen(
      "redraw after a key",
      (s) => s.includes("keys=1") && s.includes("bottom of region 1") && cursorOf(first).x === 29 && cursorOf(first).y === 11,
    );
    const cursor = cursorOf(first);
    expect(first.term.buffer.active.type).toBe("alternate");
    first.write(`${DETACH}d`);
    expect(await first.proc.exited).toBe(0);
    expect(first.output).toContain(`[detached from task ${id}]`);
    expect((await fleet.task(id)).state).toBe("running");

    const second = await attach(id);
    const restored = await second.waitForScreen("app on reattach", (s) => s.includes("keys=1"));
    expect(restored).toBe(afterKey);
    expect(cursorOf(second)).toEqual(cursor);
    expect(second.term.buffer.active.type).toBe("alternate");
    second.write("q");
    expect(await second.proc.exited).toBe(0);
    expect(second.output).toContain(`[task ${id} exited 0]`);
  });

  test("a finished task's notice follows a resize to the new last row, over the task's redrawn screen", async () => {
    const id = await fleet.run("printf 'done here\\n'; exit 4");
    await fleet.waitForExit(id);
    const client = await attach(id, { cols: 100, rows: 30 });
    const notice = `[task ${id} exited 4 · r rerun · Ctrl-\\ back]`;
    // The client draws the notice at once and again after each screen the daemon sends, which may come later.
    const drawn = (rows: string[], last: number) => rows[0] === "done here" && rows[last] === notice;
    await client.waitForScreen("the screen and the notice", (s) => drawn(s.split("\n"), 29));
    client.resize(70, 20);
    const resized = await client.waitForScreen("the redrawn screen, the notice on the new last row", (s) => drawn(s.split("\n"), 19));
    expect(resized.split("\n")[0]).toBe("done here");
    expect(resized).not.toMatch(/\d+,\d+,\d+/);
    client.write(`${DETACH}d`);
    expect(await client.proc.exited).toBe(0);
  });

  test("a flood through an attached client is drawn as screens, and the client still ends on the exact last screen", async () => {
    // About 340 KB through the PTY (each line ends in CR LF), five times what the daemon lets through
    // raw to a client that is behind (64 KiB at 100x30). Every byte is parsed by the daemon's emulator,
    // which on a loaded CI machine takes seconds: the exit gets most of the test's time.
    const lines = 50_000;
    const floodBytes = Array.from({ length: lines }, (_, i) => String(i + 1).length + 2).reduce((a, b) => a + b);
    const id = await fleet.run(`echo READY; read go; seq 1 ${lines}; echo THE-END`);
    const client = await attach(id);
    await client.waitForScreen("ready", (s) => s.includes("READY"));
    // The client stops reading for the whole flood, so it is behind whatever the machine's load: a
    // loaded daemon that reads the task slower than the rate bound would otherwise pass it all raw.
    process.kill(client.proc.pid, "SIGSTOP");
    await fleet.ok(["send", String(id), "go"]);
    await fleet.waitForExit(id, 45_000);
    process.kill(client.proc.pid, "SIGCONT");
    expect(await client.proc.exited).toBe(0);
    // The PTY may hand over the client's last bytes after its exit is seen.
    await client.waitForOutput(`[task ${id} exited 0]`);
    await client.settled();
    const received = client.output.length;
    expect(received).toBeLessThan(floodBytes);
    const lastScreen = (await fleet.peek(id)).trim().split("\n").slice(-20);
    expect(lastScreen.slice(-2)).toEqual([String(lines), "THE-END"]);
    const clientRows = client
      .screen()
      .split("\n")
      .map((r) => r.trimEnd());
    const end = clientRows.indexOf("THE-END");
    expect(clientRows.slice(end - lastScreen.length + 1, end + 1)).toEqual(lastScreen);
    expect(client.output).toContain(`[task ${id} exited 0]`);
  });

  test("a task that asks for its cursor position while nobody is attached gets one answer and completes", async () => {
    const id = await fleet.run(
      `bash -c 'stty raw -echo; printf "\\033[5;9H\\033[6n"; IFS= read -r -d R reply; if IFS= read -r -t 1 -n1 extra; then echo EXTRA; fi; stty sane; echo "CPR:\${reply#*[}"'`,
    );
    const done = await fleet.waitForExit(id);
    expect(done.exitCode).toBe(0);
    const text = await fleet.peek(id);
    expect(text).toContain("CPR:5;9");
    expect(text).not.toContain("EXTRA");
  });

  test("while a client is attached, its terminal answers a query and the daemon does not answer again", async () => {
    const id = await fleet.run(
      `bash -c 'read -r go; stty raw -echo; printf "\\033[6n"; IFS= read -r -d R reply; if IFS= read -r -t 1 -n1 extra; then echo EXTRA; fi; stty sane; echo "CPR:\${reply#*[}"; sleep 30'`,
    );
    const client = await attach(id);
    await client.waitForRawMode();
    client.write("go\r");
    await client.waitForScreen("reply read", (s) => s.includes("CPR:"));
    const text = await fleet.peek(id);
    expect(text).toMatch(/CPR:\d+;\d+/);
    expect(text).not.toContain("EXTRA");
  });

  test("two clients attached to one task both see its output, and input from either reaches it", async () => {
    const id = await fleet.run('while IFS= read -r line; do echo "echo:$line"; done');
    const a = await attach(id);
    const b = await attach(id);
    await a.waitForRawMode();
    await b.waitForRawMode();
    a.write("from-a\r");
    await a.waitForScreen("a sees a", (s) => s.includes("echo:from-a"));
    await b.waitForScreen("b sees a", (s) => s.includes("echo:from-a"));
    b.write("from-b\r");
    await a.waitForScreen("a sees b", (s) => s.includes("echo:from-b"));
    await b.waitForScreen("b sees b", (s) => s.includes("echo:from-b"));
  });

  test("ls keeps answering in a loop while another client is attached and streaming", async () => {
    const id = await fleet.run("while :; do echo tick $RANDOM; sleep 0.01; done");
    const client = await attach(id);
    await client.waitForScreen("streaming", (s) => s.includes("tick"));
    for (let i = 0; i < 10; i++) {
      const tasks = await fleet.ls();
      expect(tasks.map((t) => t.id)).toEqual([id]);
    }
    expect(client.proc.exitCode).toBeNull();
  });

  test("Ctrl-C, Ctrl-Z and Ctrl-D go to the task, not to the client", async () => {
    // The task says when its terminal is raw: a ^C that arrived before would be the line discipline's SIGINT.
    const id = await fleet.run("stty raw -echo; echo raw-now; head -c 3 | od -An -tx1; stty sane; sleep 30");
    const client = await attach(id);
    await client.waitForRawMode();
    await client.waitForScreen("the task's terminal raw", (s) => s.includes("raw-now"));
    client.write("\x03\x1a\x04");
    await until("bytes arrive", async () => (await fleet.peek(id)).includes(" 03 1a 04"));
    expect(client.proc.exitCode).toBeNull();
  });

  test("the attached terminal's size becomes the PTY's and follows a resize", async () => {
    const id = await fleet.run(`bash -c 'trap "echo SIZE \\$(stty size)" WINCH; echo SIZE $(stty size); while :; do sleep 0.05; done'`);
    const client = await attach(id, { cols: 90, rows: 25 });
    await client.waitForScreen("initial size", (s) => s.includes("SIZE 25 90"));
    client.resize(110, 33);
    await client.waitForScreen("resized", (s) => s.includes("SIZE 33 110"));
    client.write(`${DETACH}d`);
    await client.proc.exited;
    expect(await fleet.peek(id)).toContain("SIZE 33 110");
  });

  test("attach without a terminal says so and exits 2", async () => {
    const id = await fleet.run("sleep 30");
    const r = await fleet.cli(["attach", String(id)]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("fleetcom: attach needs a terminal");
  });

  test("attaching to an unknown task is an error naming it", async () => {
    await fleet.run("sleep 30", ["--name", "only"]);
    const client = fleet.spawnClient(["attach", "ghost"]);
    expect(await client.proc.exited).toBe(1);
    expect(client.output).toContain("no task matches 'ghost'");
  });
});
