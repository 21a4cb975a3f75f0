// Restart policies and `restart` (docs/services.md), through the binary: a crashing command started
// again with the backoff and every run's output kept in `logs`, a crash loop given up on with one
// push, `kill` never restarted, `restart` keeping the id and the history, `rerun` keeping the run it
// replaces, and a SIGKILLed daemon mid-backoff recovered with its policies and counts.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installFakeAgents } from "../harness/agent-fakes.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { crashDaemon, recoveryDirOf, snapshotNames } from "../harness/recovery-helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => {
  fleet = f;
  fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = "100";
});

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

const SEPARATOR = /^── run (\d+) · \d\d:\d\d:\d\d · after (.+) ──$/;

const logs = async (id: number) => (await fleet.ok(["logs", String(id)])).split("\n");

test("rerun keeps the run it replaces: logs, peek --history and grep show both, under a separator", async () => {
  const id = await fleet.run('echo "first run $$"; exit 1', ["--name", "once"]);
  await fleet.waitForExit(id);
  const first = (await logs(id)).find((l) => l.startsWith("first run"))!;
  await fleet.ok(["rerun", String(id)]);
  await fleet.waitForTask(id, "to end its second run", (t) => t.run === 2 && t.state === "exited");
  const lines = await logs(id);
  const separator = lines.findIndex((l) => SEPARATOR.test(l));
  expect(lines.indexOf(first)).toBeGreaterThanOrEqual(0);
  expect(lines.indexOf(first)).toBeLessThan(separator);
  expect(lines[separator]).toMatch(/^── run 2 · .* · after exit 1 ──$/);
  expect(lines.slice(separator + 1).filter((l) => l.startsWith("first run")).length).toBe(1);
  expect(await fleet.ok(["peek", "--history", String(id)])).toContain(first);
  // With its colours, as attached history (Ctrl-\ h) and the web's History read it.
  expect(await fleet.ok(["peek", "--history", "--ansi", String(id)])).toMatch(/first run \d+[\s\S]*── run 2 · /);
  expect(await fleet.ok(["grep", first])).toContain(first);
});

test("--restart on-failure: a crashing command is started again with the backoff, every run's output kept in logs", async () => {
  // Each run prints when it started (ms), so the waits between runs can be read back from the log.
  const id = await fleet.run('echo "started $(date +%s%3N)"; exit 3', ["--restart", "on-failure", "--max-restarts", "3", "--name", "crasher"]);
  const ended = await fleet.waitForTask(id, "to give up", (t) => t.attention?.state === "crash-loop");
  expect(ended).toMatchObject({ restart: "on-failure", maxRestarts: 3, restarts: 3, run: 4, state: "exited", nextRestartAt: null });
  expect(ended.attention!.message).toMatch(/^crash loop · 3 restarts in \d+s · exit 3$/);
  const lines = await logs(id);
  const starts = lines.filter((l) => l.startsWith("started ")).map((l) => Number(l.slice(8)));
  expect(starts.length).toBe(4);
  expect(lines.filter((l) => SEPARATOR.test(l)).map((l) => SEPARATOR.exec(l)!.slice(1))).toEqual([
    ["2", "exit 3"],
    ["3", "exit 3"],
    ["4", "exit 3"],
  ]);
  // The backoff doubles from 0.1 s: each wait at least as long as its step (never shorter; a slow machine may take longer).
  const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
  expect(gaps.map((gap, i) => gap >= 100 * 2 ** i)).toEqual([true, true, true]);
  const table = await fleet.ok(["ls"]);
  expect(table).toMatch(/↯ +crasher .*crash loop · 3 restarts in \d+s · exit 3 ↻3/);
});

test("a crash loop stops at --max-restarts, raises attention, and pushes one failure", async () => {
  const posts: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      posts.push(await request.text());
      return new Response("ok");
    },
  });
  servers.push(server);
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), `notify = ["http://127.0.0.1:${server.port}/hook"]\n`);
  fleet.env.FLEETCOM_PUSH_INTERVAL_MS = "0";
  const id = await fleet.run("exit 1", ["--restart", "always", "--max-restarts", "2", "--name", "looper"]);
  await fleet.waitForTask(id, "to give up", (t) => t.attention?.state === "crash-loop");
  await until("the push sent and nothing more queued", async () => {
    const { push } = JSON.parse(await fleet.ok(["status", "--json"]));
    return push[0].sent >= 1 && push[0].queued === 0;
  });
  expect(posts.length).toBe(1);
  expect(JSON.parse(posts[0]!)).toMatchObject({
    task: { id, name: "looper" },
    state: "failed",
    message: expect.stringMatching(/^crash loop · 2 restarts in \d+s · exit 1$/),
  });
  expect((await fleet.task(id)).restarts).toBe(2);
});

test("kill never triggers a restart, not even under --restart always", async () => {
  const id = await fleet.run("echo up; sleep 3600", ["--restart", "always"]);
  await until("the task to print", async () => (await fleet.peek(id)).includes("up"));
  await fleet.ok(["kill", String(id)]);
  // A yardstick: another task under the same policy restarts twice, which takes longer than the first backoff.
  const other = await fleet.run("exit 0", ["--restart", "always", "--max-restarts", "0"]);
  await fleet.waitForTask(other, "to be restarted twice", (t) => t.restarts >= 2);
  expect(await fleet.task(id)).toMatchObject({ state: "exited", run: 1, restarts: 0, nextRestartAt: null, signal: "SIGTERM" });
});

test("kill on a task waiting out its backoff calls the restart off", async () => {
  // Failing at once, its sixth restart waits 3.2 s: long enough to be seen waiting.
  const id = await fleet.run("exit 1", ["--restart", "on-failure", "--max-restarts", "0"]);
  const waiting = await fleet.waitForTask(id, "to wait out a long backoff", (t) => t.restarts >= 5 && t.nextRestartAt !== null);
  await fleet.ok(["kill", String(id)]);
  expect(await fleet.task(id)).toMatchObject({ nextRestartAt: null, restarts: waiting.restarts, run: waiting.run });
  // Past the time it would have restarted, by the daemon's own reckoning: a yardstick task's restarts.
  const yardstick = await fleet.run("exit 0", ["--restart", "always", "--max-restarts", "0"]);
  const due = Date.parse(waiting.nextRestartAt!);
  await fleet.waitForTask(yardstick, "to restart after the killed task was due", (t) => t.restarts >= 1 && Date.parse(t.startedAt) > due);
  expect(await fleet.task(id)).toMatchObject({ state: "exited", nextRestartAt: null, restarts: waiting.restarts, run: waiting.run });
});

test("restart keeps the id, name and group and the history, running or finished", async () => {
  const id = await fleet.run('echo "pid $$"; sleep 3600', ["--name", "api", "--group", "web"]);
  await until("the first run to print", async () => (await fleet.peek(id)).includes("pid "));
  const first = (await logs(id)).find((l) => l.startsWith("pid "))!;
  expect(await fleet.ok(["restart", "api"])).toBe("");
  const second = await fleet.waitForTask(id, "to run again", (t) => t.run === 2 && t.state === "running");
  expect(second).toMatchObject({ id, name: "api", group: "web", restarts: 0 });
  await until("the second run to print", async () => (await logs(id)).filter((l) => l.startsWith("pid ")).length === 2);
  const lines = await logs(id);
  expect(lines.indexOf(first)).toBeLessThan(lines.findIndex((l) => /^── run 2 · .* · after SIGTERM ──$/.test(l)));

  const done = await fleet.run("echo finished-once", ["--name", "job"]);
  await fleet.waitForExit(done);
  await fleet.ok(["restart", "-y", "job", "api"]);
  await fleet.waitForTask(done, "to run again", (t) => t.run === 2 && t.state === "exited");
  await fleet.waitForTask(id, "to run a third time", (t) => t.run === 3);
  expect((await logs(done)).filter((l) => l === "finished-once").length).toBe(2);
});

test("restart of a running agent brings it back in its resume form: the same conversation", async () => {
  const fakes = installFakeAgents(fleet);
  const claudeStarts = () => fakes.invocations().filter((i) => i.agent === "claude");
  const id = await fleet.run("claude");
  await until("the agent to be ready", async () => (await fleet.peek(id)).includes(" ready "));
  await fleet.ok(["send", String(id), "hello"]);
  await until("a turn", async () => (await fleet.peek(id)).includes("turn done"));
  const { conversation } = await fleet.waitForTask(id, "to know its conversation", (t) => t.conversation !== null);
  await fleet.ok(["restart", String(id)]);
  await until("the agent to start again", () => claudeStarts().length === 2);
  expect(claudeStarts()[1]!.args.slice(-2)).toEqual(["--resume", conversation!]);
  expect(await fleet.task(id)).toMatchObject({ id, run: 2, command: `claude --resume '${conversation}'`, conversation, state: "running" });
});

test("a SIGKILLed daemon mid-backoff, then recover: the policy and the count are kept", async () => {
  // Failing at once, its sixth restart waits 3.2 s: the daemon is killed in that wait.
  const id = await fleet.run("exit 1", ["--restart", "on-failure", "--max-restarts", "10", "--name", "flaky"]);
  await fleet.waitForTask(id, "to wait out a long backoff", (t) => t.restarts >= 6 && t.nextRestartAt !== null);
  const snapshot = () => {
    const name = snapshotNames(fleet)[0];
    return name ? JSON.parse(readFileSync(join(recoveryDirOf(fleet), name), "utf8")) : null;
  };
  const entry = await until("a snapshot with the count", () => {
    const found = Object.values(snapshot()?.dirs ?? {}).flat()[0] as { restarts?: number } | undefined;
    return found && (found.restarts ?? 0) >= 6 ? found : undefined;
  });
  expect(entry).toMatchObject({ cmd: "exit 1", name: "flaky", restart: "on-failure", max_restarts: 10 });
  await crashDaemon(fleet);
  await fleet.ok(["recover", "--latest"]);
  const recovered = await fleet.waitForTask(id, "to be back", (t) => t.restart === "on-failure");
  expect(recovered.maxRestarts).toBe(10);
  expect(recovered.restarts).toBeGreaterThanOrEqual(entry.restarts!);
});

test("a policy that is not one, or a limit without a policy, is refused before anything starts", async () => {
  expect(await fleet.cli(["run", "--restart", "sometimes", "--", "true"])).toMatchObject({
    code: 2,
    stderr: "fleetcom: run: --restart expects no, on-failure or always, got 'sometimes'\n",
  });
  expect(await fleet.cli(["run", "--max-restarts", "3", "--", "true"])).toMatchObject({
    code: 2,
    stderr: "fleetcom: run: --max-restarts goes with --restart on-failure|always\n",
  });
  expect(await fleet.cli(["run", "--restart", "always", "--max-restarts", "-1", "--", "true"])).toMatchObject({ code: 2 });
  expect(await fleet.ls()).toEqual([]);
});

test("restart -g from a terminal asks first: n restarts nothing and exits 1, y restarts the group's tasks, running or finished", async () => {
  const api = await fleet.run("sleep 3600", ["--name", "api", "--group", "web"]);
  const migrate = await fleet.run("echo migrated", ["--name", "migrate", "--group", "web"]);
  await fleet.waitForExit(migrate);
  const declined = fleet.spawnClient(["restart", "-g", "web"]);
  await declined.waitForScreen("the question", (s) => s.includes("fleetcom: restart 2 tasks of group 'web' (api, migrate)? y/N"));
  declined.write("n\r");
  expect(await declined.proc.exited).toBe(1);
  expect(declined.output).toContain("nothing restarted");
  expect((await fleet.ls()).map((t) => t.run)).toEqual([1, 1]);

  const accepted = fleet.spawnClient(["restart", "-g", "web"]);
  await accepted.waitForScreen("the question", (s) => s.includes("restart 2 tasks of group 'web' (api, migrate)? y/N"));
  accepted.write("y\r");
  expect(await accepted.proc.exited).toBe(0);
  expect(accepted.output).toContain("restarted 2 tasks of group 'web'");
  await fleet.waitForTask(api, "to run again", (t) => t.run === 2 && t.state === "running");
  await fleet.waitForTask(migrate, "to run again", (t) => t.run === 2 && t.state === "exited");
});

test("save writes a task's policy, and load gives it back; a task without one is saved as before", async () => {
  await fleet.run("sleep 3600", ["--name", "web", "--restart", "on-failure", "--max-restarts", "7"]);
  await fleet.run("sleep 3601", ["--name", "plain"]);
  await fleet.ok(["save", "svc"]);
  const doc = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", "svc.json"), "utf8"));
  expect(Object.values(doc.dirs).flat()).toEqual([
    { cmd: "sleep 3600", name: "web", restart: "on-failure", max_restarts: 7 },
    { cmd: "sleep 3601", name: "plain" },
  ]);
  await fleet.ok(["kill", "--all", "--yes"]);
  await fleet.ok(["rm", "--all"]);
  await fleet.ok(["load", "svc"]);
  const loaded = await until("both loaded", async () => {
    const tasks = await fleet.ls();
    return tasks.length === 2 ? tasks : undefined;
  });
  expect(loaded.map((t) => [t.name, t.restart, t.maxRestarts, t.restarts])).toEqual([
    ["web", "on-failure", 7, 0],
    ["plain", "no", 5, 0],
  ]);
});
