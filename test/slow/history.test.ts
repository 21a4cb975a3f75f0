// History through the real program (issue 18): peek --history, grep across the fleet, logs --follow
// into a file, the history kept on disk and restored after a SIGKILL, the setting that turns it off,
// and the pager from attached mode and the dashboard's peek.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { killProcessGroups, processesWithMarker, recoveryDirOf, snapshotFleet, snapshotNames } from "../harness/recovery-helpers.ts";
import { decodeHistory, restoredMarker } from "../../src/recipe-history.ts";

let fleet: Fleet;
let marker: string | null = null;
afterEach(async () => {
  if (marker) killProcessGroups(processesWithMarker(`FLEETCOM_HISTORY_MARK=${marker}`));
  marker = null;
  await fleet.stop();
});

/** A fleet whose daemon writes snapshots and history quickly, its tasks findable by a marker in their environment. */
function historyFleet(env: Record<string, string> = {}): Fleet {
  fleet = snapshotFleet();
  fleet.env.FLEETCOM_HISTORY_INTERVAL_MS = "100";
  marker = `${process.pid}-${Date.now()}`;
  fleet.env.FLEETCOM_HISTORY_MARK = marker;
  Object.assign(fleet.env, env);
  return fleet;
}

function historyDirs(f: Fleet): string[] {
  try {
    return readdirSync(recoveryDirOf(f)).filter((n) => n.endsWith(".history"));
  } catch {
    return [];
  }
}

/** The lines of a task's history file as the running daemon wrote it. */
function historyOnDisk(f: Fleet, id: number): string[] | null {
  const dir = historyDirs(f).find((d) => d.endsWith(`-${f.daemonPid()}.history`));
  const file = dir && join(recoveryDirOf(f), dir, `${id}.txt.gz`);
  if (!file || !existsSync(file)) return null;
  return decodeHistory(gunzipSync(readFileSync(file)).toString("utf8"))?.lines ?? null;
}

const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

describe("peek --history", () => {
  test("a task that printed 3,000 numbered lines gives the 2,000 rows above its screen and the screen, exactly, wrapped lines joined", async () => {
    historyFleet();
    // Every 500th line is wider than the terminal (120 columns): the emulator holds it as two rows.
    const id = await fleet.run(
      `i=1; while [ $i -le 3000 ]; do if [ $((i % 500)) = 0 ]; then echo "line $i $(printf '%0150d' 0)"; else echo "line $i"; fi; i=$((i+1)); done`,
    );
    await fleet.waitForExit(id);
    // 2,000 rows of scrollback and 40 of screen, the last one the cursor's: 2,039 rows of output, in
    // which five of the lines kept (1000, 1500, …, 3000) take two rows each, so 2,034 lines: 967 to 3000.
    const expected = numbered(967, 3000).map((l, i) => ((967 + i) % 500 === 0 ? `${l} ${"0".repeat(150)}` : l));
    const r = await fleet.cli(["peek", String(id), "--history"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${expected.join("\n")}\n`);
    expect((await fleet.cli(["peek", String(id), "-H", "-n", "3"])).stdout).toBe(`${expected.slice(-3).join("\n")}\n`);
    // The screen alone is what it was: peek without --history.
    expect((await fleet.peek(id)).split("\n").length).toBeLessThanOrEqual(40);
  });

  test("--ansi keeps the colours; --ansi alone and --history with --follow are usage errors", async () => {
    historyFleet();
    const id = await fleet.run("printf 'plain \\033[31mred\\033[0m\\n'");
    await fleet.waitForExit(id);
    expect((await fleet.cli(["peek", String(id), "-H", "--ansi"])).stdout).toBe("plain \x1b[0;31mred\x1b[0m\n");
    expect((await fleet.cli(["peek", String(id), "-H"])).stdout).toBe("plain red\n");
    expect(await fleet.cli(["peek", String(id), "--ansi"])).toEqual({ code: 2, stdout: "", stderr: "fleetcom: peek: --ansi goes with --history\n" });
    expect((await fleet.cli(["peek", String(id), "-H", "-f"])).code).toBe(2);
  });
});

describe("a watcher that clears the screen before each run", () => {
  test("keeps every run, as tmux's scroll-on-clear does, in peek --history, grep, logs and the history on disk", async () => {
    historyFleet();
    // Run 1 after clear(1) (ESC[H ESC[2J ESC[3J, as cargo watch -c), run 2 after jest --watch's clear, run 3 after vitest's (RIS, ED 3).
    const id = await fleet.run(
      "clear; echo RUN 1; echo '✗ rejects expired token'; printf '\\033[2J\\033[3J\\033[H'; echo RUN 2; echo '✓ passed'; printf '\\033c\\033[3J'; echo RUN 3; echo '✓ passed'; exec sleep 3600",
      ["--name", "tests"],
    );
    await until("the third run", async () => (await fleet.peek(id)).includes("RUN 3"));
    expect(await fleet.peek(id)).not.toContain("RUN 2");
    const runs = ["RUN 1", "✗ rejects expired token", "RUN 2", "✓ passed", "RUN 3", "✓ passed"];
    expect(await fleet.cli(["peek", String(id), "-H"])).toEqual({ code: 0, stdout: `${runs.join("\n")}\n`, stderr: "" });
    expect((await fleet.cli(["grep", "rejects expired", "tests"])).stdout).toBe(`${id}:tests:2: ✗ rejects expired token\n`);
    expect((await fleet.cli(["logs", "tests"])).stdout).toBe(`${runs.join("\n")}\n`);
    await until("the history on disk", () => historyOnDisk(fleet, id)?.join("\n") === runs.join("\n"));
  });
});

describe("grep", () => {
  test("searches three tasks' histories: id:name:line: text, context, -i, TASK and --group, exit codes, --json", async () => {
    historyFleet();
    const a = await fleet.run("printf 'alpha\\nbeta ERROR one\\ngamma\\ndelta\\nepsilon\\n'; exec sleep 3600", ["--name", "api", "--group", "back"]);
    const b = await fleet.run("printf 'nothing to see\\nhere\\n'; exec sleep 3600", ["--name", "web", "--group", "front"]);
    const c = await fleet.run("printf 'one\\ntwo\\nthree error two\\n\\342\\200\\256evil ERROR\\n'", ["--name", "job", "--group", "back"]);
    await fleet.waitForExit(c);
    await until("the tasks' output", async () => (await fleet.peek(a)).includes("epsilon") && (await fleet.peek(b)).includes("here"));

    const plain = await fleet.cli(["grep", "ERROR"]);
    expect(plain).toEqual({ code: 0, stderr: "", stdout: `${a}:api:2: beta ERROR one\n${c}:job:4: \\u202eevil ERROR\n` });

    const context = await fleet.cli(["grep", "-i", "-C", "1", "error"]);
    expect(context.stdout).toBe(
      `${[
        `${a}-api-1- alpha`,
        `${a}:api:2: beta ERROR one`,
        `${a}-api-3- gamma`,
        "--",
        `${c}-job-2- two`,
        `${c}:job:3: three error two`,
        `${c}:job:4: \\u202eevil ERROR`,
      ].join("\n")}\n`,
    );
    expect((await fleet.cli(["grep", "ERROR", String(c)])).stdout).toBe(`${c}:job:4: \\u202eevil ERROR\n`);
    expect((await fleet.cli(["grep", "ERROR", "--group", "back"])).stdout.split("\n").length).toBe(3);
    expect(await fleet.cli(["grep", "ERROR", "--group", "front"])).toEqual({ code: 1, stdout: "", stderr: "" });
    expect(await fleet.cli(["grep", "no such text"])).toEqual({ code: 1, stdout: "", stderr: "" });
    expect((await fleet.cli(["grep", "("])).code).toBe(2);
    expect((await fleet.cli(["grep", "x", "nosuchtask"])).code).toBe(2);
    expect((await fleet.cli(["grep", "-C", "x", "y"])).code).toBe(2);

    const json = JSON.parse((await fleet.cli(["grep", "--json", "-C", "1", "beta"])).stdout);
    expect(json).toEqual({
      matches: [{ task: a, name: "api", command: expect.any(String), line: 2, text: "beta ERROR one", before: ["alpha"], after: ["gamma"] }],
    });
  });

  test("with no daemon running there is nothing to search: exit 2, and no daemon is started", async () => {
    historyFleet();
    const r = await fleet.cli(["grep", "x"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: "fleetcom: the daemon is not running\n" });
    expect(fleet.daemonPid()).toBeNull();
  });
});

describe("logs", () => {
  test("logs --follow piped into a file gets every line exactly once: the history, then each line, then the end", async () => {
    historyFleet();
    const go = join(fleet.sandbox.root, "go");
    // 1,000 lines, then (once the follower is there) 4,000 more in bursts, a progress bar redrawn
    // with CR, and a last line without a newline.
    const id = await fleet.run(
      `i=1; while [ $i -le 1000 ]; do echo "line $i"; i=$((i+1)); done; while [ ! -e ${go} ]; do sleep 0.05; done; ` +
        `while [ $i -le 5000 ]; do echo "line $i"; [ $((i % 1000)) = 0 ] && printf 'progress 10%%\\rprogress 50%%\\rprogress 100%%\\n' && sleep 0.2; i=$((i+1)); done; printf 'the end'`,
    );
    await until("the first thousand lines", async () => (await fleet.peek(id)).includes("line 1000"));
    const out = join(fleet.sandbox.root, "logs.txt");
    const logs = Bun.spawn(["/bin/sh", "-c", `exec "$@" > ${out}`, "sh", ...fleetcomArgv(["logs", String(id), "--follow"])], {
      env: fleet.env,
      stderr: "pipe",
    });
    await until("the follower's history", () => existsSync(out) && readFileSync(out, "utf8").includes("line 1000\n"));
    writeFileSync(go, "");
    expect(await logs.exited).toBe(0);
    expect(await new Response(logs.stderr).text()).toBe("");
    const expected: string[] = [];
    for (let i = 1; i <= 5000; i++) {
      expected.push(`line ${i}`);
      if (i % 1000 === 0 && i > 1000) expected.push("progress 100%");
    }
    expected.push("the end");
    expect(readFileSync(out, "utf8")).toBe(`${expected.join("\n")}\n`);
  });

  test("logs without --follow prints the history; of a finished task, --follow too, and ends", async () => {
    historyFleet();
    const id = await fleet.run("seq 1 5; printf 'x\\ny'");
    await fleet.waitForExit(id);
    expect((await fleet.cli(["logs", String(id)])).stdout).toBe("1\n2\n3\n4\n5\nx\ny\n");
    expect(await fleet.cli(["logs", String(id), "--follow", "-n", "2"])).toEqual({ code: 0, stdout: "x\ny\n", stderr: "" });
  });

  test("a follower that joins while the task floods still gets every line once, from where it joined", async () => {
    historyFleet();
    const id = await fleet.run("seq 1 200000");
    await until("the flood under way", async () => /^\d+$/m.test(await fleet.peek(id)));
    const r = await fleet.cli(["logs", String(id), "--follow"]);
    expect(r.code).toBe(0);
    const got = r.stdout.trimEnd().split("\n").map(Number);
    expect(got.at(-1)).toBe(200000);
    expect(got.length).toBeGreaterThan(1);
    const first = got[0]!;
    expect(got).toEqual(Array.from({ length: 200000 - first + 1 }, (_, i) => first + i));
  });
});

describe("history kept on disk", () => {
  test("after a SIGKILL of the daemon and recover --latest, the task shows its old lines above the marker and its new output below", async () => {
    historyFleet();
    const count = join(fleet.sandbox.root, "runs");
    const id = await fleet.run(
      `n=$(cat ${count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${count}; for i in 1 2 3; do echo "run $n line $i"; done; exec sleep 3600`,
    );
    await until("the snapshot", () => snapshotNames(fleet).length === 1);
    await until("the history on disk", () => historyOnDisk(fleet, id)?.includes("run 1 line 3"));
    const dir = recoveryDirOf(fleet);
    const [historyDir] = historyDirs(fleet);
    expect(statSync(join(dir, historyDir!)).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, historyDir!, `${id}.txt.gz`)).mode & 0o777).toBe(0o600);
    const written = statSync(join(dir, historyDir!, `${id}.txt.gz`)).mtime;

    const pid = fleet.daemonPid()!;
    process.kill(pid, "SIGKILL");
    await until("the old daemon's tasks to die with their PTYs", () => processesWithMarker(`FLEETCOM_HISTORY_MARK=${marker}`).length === 0);
    const r = await fleet.cli(["recover", "--latest"]);
    expect(r.code).toBe(0);
    const [task] = await fleet.ls();
    await until("the new run's output", async () => (await fleet.cli(["peek", String(task!.id), "-H"])).stdout.includes("run 2 line 3"));
    const history = (await fleet.cli(["peek", String(task!.id), "--history"])).stdout;
    // The marker says the minute the history was written; the file's mtime is within a second of it.
    const stamp = history.split("\n")[3]!;
    expect([restoredMarker(written), restoredMarker(new Date(written.getTime() - 1000))]).toContain(stamp);
    expect(history).toBe(["run 1 line 1", "run 1 line 2", "run 1 line 3", stamp, "run 2 line 1", "run 2 line 2", "run 2 line 3", ""].join("\n"));
    // grep and logs see the same lines.
    expect((await fleet.cli(["grep", "run 1 line 2"])).stdout).toBe(`${task!.id}:${task!.command}:2: run 1 line 2\n`);
    expect((await fleet.cli(["logs", String(task!.id)])).stdout).toBe(history);
    // The new daemon keeps it in its own directory, so a second crash loses none of it.
    await until("the new daemon's history", () => historyDirs(fleet).length === 2 && historyOnDisk(fleet, task!.id)?.includes("run 2 line 3"));
  });

  test("a task that has printed nothing keeps no file, and comes back from a crash with no marker over nothing", async () => {
    historyFleet();
    await fleet.run("exec sleep 3600", ["--name", "quiet"]);
    const loud = await fleet.run("echo loud; exec sleep 3600", ["--name", "loud"]);
    await until("the snapshot", () => snapshotNames(fleet).length === 1);
    // A pass walks every task changed since the last: the one that wrote the later task saw the quiet one too.
    await until("the printing task's history on disk", () => historyOnDisk(fleet, loud)?.includes("loud"));
    await until(
      "a snapshot with both",
      () => snapshotNames(fleet).length === 1 && readFileSync(join(recoveryDirOf(fleet), snapshotNames(fleet)[0]!), "utf8").includes("quiet"),
    );
    const [historyDir] = historyDirs(fleet);
    expect(readdirSync(join(recoveryDirOf(fleet), historyDir!)).filter((n) => n.endsWith(".txt.gz"))).toEqual([`${loud}.txt.gz`]);

    process.kill(fleet.daemonPid()!, "SIGKILL");
    await until("the old daemon's tasks to die with their PTYs", () => processesWithMarker(`FLEETCOM_HISTORY_MARK=${marker}`).length === 0);
    // Its stderr in the comparison: once in CI this recover exited 3 and said nothing more.
    const recovered = await fleet.cli(["recover", "--latest"]);
    expect({ code: recovered.code, stderr: recovered.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const tasks = await fleet.ls();
    const back = (name: string) => tasks.find((t) => t.name === name)!.id;
    expect((await fleet.cli(["peek", String(back("quiet")), "--history"])).stdout).toBe("");
    const loudHistory = (await fleet.cli(["peek", String(back("loud")), "--history"])).stdout.split("\n");
    expect(loudHistory[0]).toBe("loud");
  });

  test("a saved session loads without history, even where its entries name some", async () => {
    historyFleet();
    const id = await fleet.run("echo before; exec sleep 3600", ["--name", "s"]);
    await until("the history on disk", () => historyOnDisk(fleet, id)?.includes("before"));
    await fleet.ok(["save", "plain"]);
    const saved = readFileSync(join(fleet.sandbox.config, "sessions", "plain.json"), "utf8");
    expect(saved).not.toContain("history");
    // Written on its own debounce, which the history's interval can beat.
    const [snapshot] = await until("the snapshot", () => snapshotNames(fleet).length === 1 && snapshotNames(fleet));
    // The task still runs (a finished one is recorded apart and not loaded): --again starts a second.
    await fleet.ok(["load", "--again", join(recoveryDirOf(fleet), snapshot!)]);
    const task = (await fleet.ls()).find((t) => t.id !== id);
    await until("the loaded task's output", async () => (await fleet.peek(task!.id)).includes("before"));
    expect((await fleet.cli(["peek", String(task!.id), "-H"])).stdout).toBe("before\n");
  });

  test("a removed task's history file goes with it", async () => {
    historyFleet();
    const id = await fleet.run("echo secret");
    await fleet.waitForExit(id);
    await until("the history on disk", () => historyOnDisk(fleet, id)?.includes("secret"));
    await fleet.ok(["rm", String(id)]);
    expect(historyOnDisk(fleet, id)).toBeNull();
  });

  test("FLEETCOM_HISTORY=off: nothing on disk, no key in the snapshot, and what dead daemons kept is pruned", async () => {
    historyFleet({ FLEETCOM_HISTORY: "off" });
    const dir = recoveryDirOf(fleet);
    const old = join(dir, "20200101T000000Z-999999.history");
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, "1.txt.gz"), "old secrets");
    const id = await fleet.run("echo secret; exec sleep 3600");
    await until("the snapshot", () => snapshotNames(fleet).length === 1);
    await until("the output", async () => (await fleet.peek(id)).includes("secret"));
    // Ten history intervals and a snapshot pass later, still nothing.
    await fleet.ok(["rename", String(id), "renamed"]);
    await until("the renamed snapshot", () => readFileSync(join(dir, snapshotNames(fleet)[0]!), "utf8").includes("renamed"));
    await Bun.sleep(1000);
    expect(historyDirs(fleet)).toEqual([]);
    expect(readFileSync(join(dir, snapshotNames(fleet)[0]!), "utf8")).not.toContain("history");
    const status = JSON.parse(await fleet.ok(["status", "--json"]));
    expect(status.history).toEqual({ enabled: false, writes: 0, bytes: 0, error: null });
    // In memory the history is there all the same.
    expect((await fleet.cli(["peek", String(id), "-H"])).stdout).toBe("secret\n");
  });
});

describe("the pager", () => {
  /** A fake `less` first on PATH: it records its arguments and what it was given, shows a line, and quits on Enter. */
  function fakeLess(f: Fleet): { got: string; args: string } {
    const bin = join(f.sandbox.root, "bin");
    mkdirSync(bin, { recursive: true });
    const got = join(f.sandbox.root, "paged");
    const args = join(f.sandbox.root, "pager-args");
    writeFileSync(join(bin, "less"), `#!/bin/sh\necho "$@" > ${args}\ncat > ${got}\nprintf 'FAKE PAGER\\n'\nread answer < /dev/tty\n`);
    chmodSync(join(bin, "less"), 0o755);
    f.env.PATH = `${bin}:${f.env.PATH}`;
    delete f.env.PAGER;
    return { got, args };
  }

  test("Ctrl-\\ h while attached pages the history with its colours, then the task is redrawn exactly and takes keys again", async () => {
    historyFleet();
    const { got, args } = fakeLess(fleet);
    const id = await fleet.run("for i in $(seq 1 100); do echo \"history line $i\"; done; printf '\\033[1;31mRED\\033[0m\\n'; exec cat");
    await until("the output", async () => (await fleet.peek(id)).includes("RED"));
    const client = fleet.spawnClient(["attach", String(id)]);
    await client.waitForRawMode();
    await client.waitForScreen("attached", (s) => s.includes("RED"));
    client.write("\x1ch");
    await client.waitForScreen("the pager", (s) => s.includes("FAKE PAGER"));
    expect(readFileSync(args, "utf8")).toBe("-R +G\n");
    const paged = readFileSync(got, "utf8");
    expect(paged).toStartWith("history line 1\nhistory line 2\n");
    // The last line says where the rest is: the history is the scrollback, the log all of it.
    expect(paged).toEndWith("history line 100\n\x1b[0;1;31mRED\x1b[0m\n\x1b[2m── the scrollback only: fleetcom logs 1 prints all the task printed ──\x1b[0m\n");
    // The task goes on meanwhile; the redraw after the pager shows what it printed.
    await fleet.ok(["send", String(id), "typed while paging"]);
    await until("the echo", async () => (await fleet.peek(id)).includes("typed while paging"));
    client.write("\r");
    const trim = (s: string) =>
      s
        .split("\n")
        .map((r) => r.trimEnd())
        .join("\n")
        .trimEnd();
    await until("the redraw", async () => {
      await client.settled();
      return trim(client.screen()) === trim(await fleet.peek(id));
    });
    client.write("keys again\r");
    await client.waitForScreen("keys reach the task", (s) => s.includes("keys again"));
    client.write("\x1cd");
    expect(await client.proc.exited).toBe(0);
    expect(client.output).toContain(`[detached from task ${id}]`);
  });

  test("h in the dashboard's peek pages the same history and comes back to the peek", async () => {
    historyFleet();
    const { got } = fakeLess(fleet);
    const id = await fleet.run("printf 'first\\nsecond\\n'; exec sleep 3600");
    await until("the output", async () => (await fleet.peek(id)).includes("second"));
    const client = fleet.spawnClient([]);
    await client.waitForScreen("the dashboard", (s) => s.includes("second"));
    client.write(" ");
    await client.waitForScreen("the peek", (s) => s.includes("── peek"));
    client.write("h");
    await client.waitForScreen("the pager", (s) => s.includes("FAKE PAGER"));
    expect(readFileSync(got, "utf8")).toBe("first\nsecond\n\x1b[2m── the scrollback only: fleetcom logs 1 prints all the task printed ──\x1b[0m\n");
    client.write("\r");
    await client.waitForScreen("the peek again", (s) => s.includes("── peek") && !s.includes("FAKE PAGER"));
    client.write("x");
    await client.waitForScreen("the list", (s) => !s.includes("── peek"));
    client.write("q");
    expect(await client.proc.exited).toBe(0);
  });
});
