// Tasks through the real CLI and daemon: spawn, list, kill, remove, rerun, rename, group, tag, send, peek.
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "../../src/platform.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

/** `fleetcom ARGS | READER` through sh; fleetcom's exit status comes last on stderr, after anything it printed there. */
async function piped(args: string[], reader: string): Promise<{ stdout: string; stderr: string }> {
  const pipeline = `{ "$@"; echo "status $?" >&2; } | ${reader}`;
  const proc = Bun.spawn(["/bin/sh", "-c", pipeline, "sh", ...fleetcomArgv(args)], { env: fleet.env, stdout: "pipe", stderr: "pipe" });
  try {
    await until(`fleetcom ${args.join(" ")} | ${reader} to end`, () => proc.exitCode !== null, 20_000);
  } finally {
    proc.kill("SIGKILL");
  }
  return { stdout: await new Response(proc.stdout).text(), stderr: await new Response(proc.stderr).text() };
}

function pidsFromScreen(text: string, tag: string): number[] {
  const line = text.split("\n").find((l) => l.startsWith(`${tag}:`));
  return line
    ? line
        .slice(tag.length + 1)
        .trim()
        .split(/\s+/)
        .map(Number)
    : [];
}

describe("tasks", () => {
  test("run prints increasing ids and ls --json lists every documented field", async () => {
    const a = await fleet.run("echo one");
    const b = await fleet.run("sleep 30", ["--name", "sleeper", "--group", "g1"]);
    expect([a, b]).toEqual([1, 2]);
    const done = await fleet.waitForExit(a);
    expect(done).toMatchObject({ id: 1, command: "echo one", name: null, group: null, state: "exited", exitCode: 0, signal: null, tagged: false });
    expect(done.endedAt).not.toBeNull();
    const sleeper = await fleet.task(b);
    expect(sleeper).toMatchObject({ id: 2, name: "sleeper", group: "g1", state: "running", exitCode: null, signal: null, endedAt: null });
    expect(sleeper.cwd).toBe(fleet.sandbox.home);
    expect(typeof sleeper.pid).toBe("number");
    expect(typeof sleeper.idle).toBe("boolean");
    expect(Date.parse(sleeper.startedAt)).not.toBeNaN();
    expect(done.preview).toBe("one");
  });

  test("a task runs under $SHELL -c in the client's cwd with TERM and FLEETCOM_TASK_ID added to the client's env", async () => {
    const dir = join(fleet.sandbox.root, "work dir");
    mkdirSync(dir);
    const id = await fleet.run('echo "$TERM|$FLEETCOM_TASK_ID|$MARKER|$(pwd)|$0"', ["--cwd", dir]);
    await fleet.waitForExit(id);
    const { stdout } = await fleet.cli(["peek", String(id)], { env: { MARKER: "unused" } });
    expect(stdout.trim()).toBe(`xterm-256color|${id}||${dir}|/bin/sh`);
  });

  test("run refuses a directory that does not exist, naming it", async () => {
    const r = await fleet.cli(["run", "--cwd", "/nonexistent/dir", "--", "true"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("fleetcom: no such directory: /nonexistent/dir");
  });

  test("exit codes and signals are reported as they happened", async () => {
    const seven = await fleet.run("exit 7");
    const segv = await fleet.run("kill -SEGV $$");
    expect(await fleet.waitForExit(seven)).toMatchObject({ exitCode: 7, signal: null });
    expect(await fleet.waitForExit(segv)).toMatchObject({ exitCode: null, signal: "SIGSEGV" });
  });

  test("kill lets a TERM-trapping task clean up and exit", async () => {
    const id = await fleet.run("trap 'echo cleaned; exit 3' TERM; echo ready; while :; do sleep 0.05; done");
    await until("ready", async () => (await fleet.peek(id)).includes("ready"));
    await fleet.ok(["kill", String(id)]);
    const t = await fleet.waitForExit(id);
    expect(t.exitCode).toBe(3);
    expect(await fleet.peek(id)).toContain("cleaned");
  });

  test("kill KILLs a TERM-ignoring task after the grace period", async () => {
    const id = await fleet.run("trap '' TERM; echo ready; while :; do sleep 0.05; done");
    await until("ready", async () => (await fleet.peek(id)).includes("ready"));
    await fleet.ok(["kill", String(id)]);
    expect((await fleet.waitForExit(id)).signal).toBe("SIGKILL");
  });

  test("kill ends the whole process group, background children included", async () => {
    const id = await fleet.run('sleep 300 & a=$!; sleep 301 & echo "kids: $a $!"; wait');
    const pids = await until("children", async () => {
      const p = pidsFromScreen(await fleet.peek(id), "kids");
      return p.length === 2 ? p : undefined;
    });
    expect(pids.every(isProcessAlive)).toBe(true);
    await fleet.ok(["kill", String(id)]);
    await fleet.waitForExit(id);
    await until("children gone", () => pids.every((p) => !isProcessAlive(p)));
  });

  test("rm refuses a running task and sweeps what a finished one left in its group", async () => {
    const running = await fleet.run("sleep 300");
    const refused = await fleet.cli(["rm", String(running)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("still running");
    // HUP is ignored before the fork, so the child survives the session leader's exit.
    const leaver = await fleet.run("trap '' HUP; sleep 400 & echo \"kids: $!\"");
    await fleet.waitForExit(leaver);
    const [kid] = pidsFromScreen(await fleet.peek(leaver), "kids");
    expect(isProcessAlive(kid!)).toBe(true);
    await fleet.ok(["rm", String(leaver)]);
    await until("leftover child gone", () => !isProcessAlive(kid!));
    expect((await fleet.ls()).map((t) => t.id)).toEqual([running]);
  });

  test("kill and rm take a group or the whole fleet; rm names running tasks in one sentence, and --force kills them first", async () => {
    const [api, worker] = [await fleet.run("sleep 300", ["--group", "backend"]), await fleet.run("sleep 301", ["--group", "backend"])];
    const migrated = await fleet.run("true", ["--group", "backend"]);
    const other = await fleet.run("sleep 302");
    await fleet.waitForExit(migrated);
    expect(await fleet.cli(["rm", String(api), String(worker)])).toMatchObject({
      code: 1,
      stderr: `fleetcom: tasks ${api} and ${worker} are still running; kill them first, or rm --force kills and removes\n`,
    });
    expect(await fleet.ok(["rm", "-g", "backend"])).toBe("removed 1 task of group 'backend'; 2 running tasks left (--force kills and removes them too)\n");
    // A script is not asked (stdin is no terminal): confirm.test.ts has the question.
    expect(await fleet.ok(["kill", "-g", "backend"])).toBe("killed 2 tasks of group 'backend'\n");
    expect((await fleet.ls()).map((t) => [t.id, t.state])).toEqual([
      [api, "exited"],
      [worker, "exited"],
      [other, "running"],
    ]);
    expect(await fleet.cli(["kill", "-g", "workers"])).toMatchObject({ code: 1, stderr: "fleetcom: no task in group 'workers' (groups: backend)\n" });
    expect(await fleet.cli(["kill", "-g", "backend", String(other)])).toMatchObject({
      code: 2,
      stderr: "fleetcom: kill: name TASKs, or give -g GROUP or --all (one of the three)\n",
    });
    await fleet.ok(["rm", "--force", String(other)]);
    expect(await fleet.ok(["rm", "--all"])).toBe("removed 2 tasks\n");
    expect(await fleet.ls()).toEqual([]);
  });

  test("ids are never reused after a task is removed", async () => {
    const first = await fleet.run("true");
    await fleet.waitForExit(first);
    await fleet.ok(["rm", String(first)]);
    expect(await fleet.run("true")).toBe(first + 1);
  });

  test("rerun keeps id, tag, group and name, counts the run and resets screen and clock", async () => {
    const id = await fleet.run("echo run-$RANDOM; exit 4", ["--name", "job", "--group", "batch"]);
    const first = await fleet.waitForExit(id);
    await fleet.ok(["tag", "job"]);
    const again = await fleet.cli(["rerun", "job"]);
    expect(again.code).toBe(0);
    const second = await fleet.waitForTask(id, "second run done", (t) => t.run === 2 && t.state === "exited");
    expect(second).toMatchObject({ id, name: "job", group: "batch", tagged: true, exitCode: 4 });
    expect(Date.parse(second.startedAt)).toBeGreaterThanOrEqual(Date.parse(first.startedAt));
    expect((await fleet.peek(id)).trim().split("\n")).toHaveLength(1);
  });

  test("rerun refuses a running task", async () => {
    const id = await fleet.run("sleep 300");
    const r = await fleet.cli(["rerun", String(id)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("only a finished task can be rerun");
  });

  test("rename and group normalise like the spec: control characters, trimming, Unassigned; past 64 characters refused", async () => {
    const id = await fleet.run("sleep 300");
    await fleet.ok(["rename", String(id), `  api\x07 server  `]);
    await fleet.ok(["group", String(id), "x".repeat(64)]);
    expect(await fleet.task(id)).toMatchObject({ name: "api server", group: "x".repeat(64) });
    await fleet.ok(["group", String(id), "Unassigned"]);
    expect((await fleet.task(id)).group).toBeNull();
    await fleet.ok(["group", String(id), "unassigned"]);
    expect((await fleet.task(id)).group).toBe("unassigned");
    await fleet.ok(["rename", String(id), "Unassigned"]);
    expect((await fleet.task(id)).name).toBe("Unassigned");
    await fleet.ok(["rename", String(id), "--clear"]);
    await fleet.ok(["group", String(id), "--clear"]);
    expect(await fleet.task(id)).toMatchObject({ name: null, group: null });
  });

  test("TASK resolves by id, exact name or a unique prefix; ambiguity lists the candidates", async () => {
    await fleet.run("sleep 301", ["--name", "web"]);
    await fleet.run("sleep 302", ["--name", "worker"]);
    await fleet.ok(["tag", "web"]);
    expect((await fleet.task(1)).tagged).toBe(true);
    await fleet.ok(["tag", "WORK"]);
    expect((await fleet.task(2)).tagged).toBe(true);
    const r = await fleet.cli(["tag", "w"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("fleetcom: 'w' matches 2 tasks: 1 web, 2 worker");
    const none = await fleet.cli(["kill", "nope"]);
    expect(none.stderr).toContain("no task matches 'nope'");
  });

  test("send types into the task, with Enter unless --no-enter", async () => {
    const id = await fleet.run('read a; read b; echo "got:$a:$b"');
    // No TEXT at all is refused before anything reaches the task; '' would press Enter alone.
    const bare = "fleetcom: send: give the TEXT to type (- reads it from stdin; '' presses Enter alone)\n";
    expect(await fleet.cli(["send", String(id)])).toEqual({ code: 2, stdout: "", stderr: bare });
    expect(await fleet.cli(["send", String(id), "--no-enter"])).toEqual({ code: 2, stdout: "", stderr: bare });
    await fleet.ok(["send", String(id), "--no-enter", "hello"]);
    await fleet.ok(["send", String(id), "world"]);
    await fleet.ok(["send", String(id), "two words"]);
    await fleet.waitForExit(id);
    expect(await fleet.peek(id)).toContain("got:helloworld:two words");
  });

  test("peek --lines reaches into scrollback and --follow streams new output as plain text", async () => {
    const id = await fleet.run("seq 1 100");
    await fleet.waitForExit(id);
    expect((await fleet.ok(["peek", String(id), "--lines", "50"])).trim().split("\n")).toEqual(Array.from({ length: 50 }, (_, i) => String(i + 51)));
    const ticker = await fleet.run("echo waiting; read go; for i in 1 2 3; do printf '\\033[1mtick %s\\033[0m\\n' $i; done");
    await until("ticker waiting", async () => (await fleet.peek(ticker)).includes("waiting"));
    const follower = Bun.spawn((await import("../harness/helpers.ts")).fleetcomArgv(["peek", String(ticker), "--follow"]), {
      env: fleet.env,
      stdout: "pipe",
    });
    const reader = follower.stdout.getReader();
    let out = "";
    while (!out.includes("waiting")) out += new TextDecoder().decode((await reader.read()).value);
    await fleet.ok(["send", String(ticker), "go"]);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out += new TextDecoder().decode(chunk.value);
    expect(out).toContain("waiting\n");
    expect(out).toContain("tick 1\ntick 2\ntick 3\n");
    expect(out).not.toContain("\x1b");
  });

  test("logs of several tasks, of a group or of all puts each line after its task, as pm2 logs does; -f follows them all until they exit", async () => {
    const api = await fleet.run("echo one; echo two", ["--name", "api", "--group", "backend"]);
    const db = await fleet.run("echo three", ["--name", "db", "--group", "backend"]);
    await fleet.waitForExit(api);
    await fleet.waitForExit(db);
    expect(await fleet.ok(["logs", "api", "db"])).toBe("1 api | one\n1 api | two\n2 db  | three\n");
    expect(await fleet.ok(["logs", "-g", "backend", "-n", "1"])).toBe("1 api | two\n2 db  | three\n");
    expect(await fleet.cli(["logs"])).toMatchObject({ code: 2, stderr: "fleetcom: logs: name TASKs, or give -g GROUP or --all (one of the three)\n" });

    const x = await fleet.run("echo start-x; read go; echo alpha", ["--name", "x"]);
    const y = await fleet.run("echo start-y; read go; echo beta", ["--name", "y"]);
    await until("both started", async () => (await fleet.peek(y)).includes("start-y") && (await fleet.peek(x)).includes("start-x"));
    const gone = await piped(["logs", "-f", "x", "y"], "head -1");
    expect(gone).toEqual({ stdout: expect.stringMatching(/^\d+ [xy] \| start-[xy]\n$/), stderr: "status 0\n" });
    const following = fleet.cli(["logs", "-f", "x", "y"]);
    await fleet.ok(["send", "x", "go"]);
    await fleet.ok(["send", "y", "go"]);
    const followed = await following;
    expect(followed.code).toBe(0);
    const byTask = (id: number) => followed.stdout.split("\n").filter((l) => l.startsWith(`${id} `));
    // The terminal echoes what send typed, as it would for a person.
    expect(byTask(x)).toEqual([`${x} x | start-x`, `${x} x | go`, `${x} x | alpha`]);
    expect(byTask(y)).toEqual([`${y} y | start-y`, `${y} y | go`, `${y} y | beta`]);
    expect(await fleet.ok(["logs", "--all", "-n", "1"])).toBe(`1 api | two\n2 db  | three\n${x} x   | alpha\n${y} y   | beta\n`);
  });

  test("logs -f and peek -f in a pipe end quietly, status 0, when the reader goes, whether or not the task prints again; -n 0 prints only new lines", async () => {
    const silent = await fleet.run("printf 'one\\ntwo\\nthree\\nready\\n'; exec sleep 3600");
    const ticker = await fleet.run('i=0; while :; do echo "tick $i"; i=$((i+1)); sleep 0.1; done');
    await until("the silent task ready", async () => (await fleet.peek(silent)).includes("ready"));
    expect(await piped(["logs", "-f", String(silent)], "head -2")).toEqual({ stdout: "one\ntwo\n", stderr: "status 0\n" });
    expect(await piped(["peek", "-f", String(silent)], "grep -m1 ready")).toEqual({ stdout: "ready\n", stderr: "status 0\n" });
    expect(await piped(["logs", "-f", String(ticker)], "head -2")).toEqual({ stdout: "tick 0\ntick 1\n", stderr: "status 0\n" });
    expect((await fleet.task(ticker)).state).not.toBe("exited");

    let before = -1;
    await until("a few ticks", async () => (before = Number((await fleet.peek(ticker)).match(/tick (\d+)\s*$/)?.[1] ?? -1)) >= 3);
    const fresh = await piped(["logs", "-f", "-n", "0", String(ticker)], "head -2");
    expect(fresh.stderr).toBe("status 0\n");
    const [first, second] = fresh.stdout.split("\n").map((line) => Number(line.match(/^tick (\d+)$/)?.[1]));
    expect(first).toBeGreaterThan(before);
    expect(second).toBe(first! + 1);
    expect((await fleet.cli(["logs", "-n", "0", String(ticker)])).stderr).toBe("fleetcom: logs: --lines 0 prints only new lines, so it goes with --follow\n");
  });
});
