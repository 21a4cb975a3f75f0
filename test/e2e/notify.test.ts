// Push (docs/notify.md, src/daemon-notify.ts): notify's ntfy topics and webhooks, seen from receivers
// this test starts on 127.0.0.1. One POST per transition with the documented body, an ntfy-shaped
// request, a failing endpoint retried and shown in `status` and `config`, and `fleetcom notify test`.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** An HTTP receiver on 127.0.0.1 that keeps every POST and answers each with `status`. */
function receiver(status = 200): { url: string; posts: Received[] } {
  const posts: Received[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      posts.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body: await request.text() });
      return new Response(status === 200 ? "ok" : "broken", { status });
    },
  });
  servers.push(server);
  return { url: `127.0.0.1:${server.port}`, posts };
}
const servers: ReturnType<typeof Bun.serve>[] = [];
let tmux: Tmux | null = null;
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
  tmux?.kill();
  tmux = null;
});

function writeConfig(text: string): void {
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), text);
}

const daemonStatus = async () => JSON.parse(await fleet.ok(["status", "--json"]));

test("a task that starts waiting, then fails: one POST per transition to the webhook, and an ntfy-shaped one to the topic", async () => {
  const hook = receiver();
  const ntfy = receiver();
  writeConfig(`notify = ["http://${hook.url}/hook", "ntfy+http://${ntfy.url}/fleet_topic?click=https://example.test/fleet"]\n`);
  // Every transition at once: the rate window is the unit tests' (daemon-notify.test.ts).
  fleet.env.FLEETCOM_PUSH_INTERVAL_MS = "0";
  // A second bell while it already waits is no new transition; then it reads a line and fails.
  const id = await fleet.run("echo before; printf '\\a'; sleep 0.2; printf '\\a'; echo rang twice; read answer; echo \"got $answer\"; exit 3", [
    "--name",
    "waiter",
  ]);
  await until("the waiting push", () => hook.posts.length >= 1 && ntfy.posts.length >= 1);
  await fleet.waitForTask(id, "to wait", (t) => t.attention?.state === "bell");
  // The answer goes once both bells have rung: typed between them, it would end the wait, and the
  // second bell would be a new one (a fast machine got there in the 0.2 s).
  await until("the second bell", async () => (await fleet.ok(["peek", String(id)])).includes("rang twice"));
  await fleet.ok(["send", String(id), "yes"]);
  await fleet.waitForExit(id);
  await until("the failed push", () => hook.posts.length >= 2 && ntfy.posts.length >= 2);
  // The daemon's own count agrees: nothing more is on its way.
  await until("both destinations' counts", async () =>
    (await daemonStatus()).push.every((p: { sent: number; queued: number }) => p.sent === 2 && p.queued === 0),
  );
  expect(hook.posts.length).toBe(2);
  expect(ntfy.posts.length).toBe(2);

  const [waiting, failed] = hook.posts.map((p) => ({ ...p, json: JSON.parse(p.body) }));
  expect(waiting!.path).toBe("/hook");
  expect(waiting!.headers["content-type"]).toBe("application/json");
  expect(waiting!.json).toEqual({
    host: hostname(),
    task: { id, name: "waiter", group: null },
    state: "input",
    message: null,
    screen: expect.arrayContaining(["before"]),
    time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  });
  expect(failed!.json).toMatchObject({ task: { id, name: "waiter" }, state: "failed", message: "exited with code 3\nrang twice\nyes\ngot yes" });
  expect(failed!.json.screen).toContain("got yes");

  expect(ntfy.posts[0]).toMatchObject({
    path: "/fleet_topic",
    headers: { title: `waiter waits for input (${hostname()})`, priority: "default", tags: "bell", click: "https://example.test/fleet" },
    body: "waits for input",
  });
  expect(ntfy.posts[1]).toMatchObject({
    headers: { title: `waiter failed (${hostname()})`, priority: "high", tags: "x" },
    body: "exited with code 3\nrang twice\nyes\ngot yes",
  });
});

test("a webhook answering 500 is retried, then given up; status, config and notify test show it failing", async () => {
  const broken = receiver(500);
  const fine = receiver();
  writeConfig(`notify = ["http://${broken.url}/broken", "http://${fine.url}/fine", "true"]\n`);
  fleet.env.FLEETCOM_PUSH_BACKOFF_MS = "1";
  const id = await fleet.run("printf '\\a'; sleep 3600");
  await until("the push to be given up, and the command's run told", async () => {
    const { push } = await daemonStatus();
    return push[0].failed === 1 && push[2].sent === 1;
  });
  // Four attempts (PUSH_TIMING.attempts), each one POST; the other destination got its one.
  expect(broken.posts.length).toBe(4);
  expect(fine.posts.length).toBe(1);
  expect(JSON.parse(broken.posts[3]!.body)).toMatchObject({ task: { id }, state: "input" });

  const status = await fleet.ok(["status"]);
  const iso = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";
  const failing = `http://${broken.url}/broken  FAILING: HTTP 500 Internal Server Error \\(attempt 4 of 4\\) at ${iso}; 0 sent, 1 given up`;
  expect(status).toMatch(new RegExp(`^notify    ${failing}$`, "m"));
  expect(status).toMatch(new RegExp(`^notify    http://${fine.url}/fine  ok: 1 sent, the last at ${iso}$`, "m"));
  expect(status).toMatch(/^notify {4}true {2}ok: 1 sent, the last at /m);
  const config = await fleet.cli(["config"]);
  expect(config.stdout).toMatch(new RegExp(`^ +→ ${failing}$`, "m"));
  const json = JSON.parse((await fleet.cli(["config", "--json"])).stdout);
  expect(json.push[0]).toMatchObject({
    destination: `http://${broken.url}/broken`,
    sent: 0,
    failed: 1,
    lastError: { message: "HTTP 500 Internal Server Error (attempt 4 of 4)" },
  });

  const tried = await fleet.cli(["notify", "test"]);
  expect(tried.code).toBe(1);
  expect(tried.stdout.split("\n")).toEqual([
    `FAILED  http://${broken.url}/broken  HTTP 500 Internal Server Error`,
    `ok      http://${fine.url}/fine  HTTP 200 OK`,
    "ok      true  exit 0",
    "",
  ]);
  expect(tried.stderr).toBe("fleetcom: 1 of 3 destination(s) failed\n");
  // The sample went once to each: no retries for a test.
  expect(broken.posts.length).toBe(5);
  expect(JSON.parse(fine.posts[1]!.body)).toMatchObject({ task: { id: 0, name: "fleetcom notify test" }, state: "input" });
});

test("notify test with every destination answering exits 0; with none it says so", async () => {
  expect(await fleet.cli(["notify", "test"])).toMatchObject({
    code: 1,
    stdout: "",
    stderr: "fleetcom: notify has no destinations: nothing sent (fleetcom config shows where notify comes from)\n",
  });
  await fleet.ok(["--kill", "--yes"]);
  const ntfy = receiver();
  writeConfig(`notify = "ntfy+http://${ntfy.url}/t1"\n`);
  const tried = await fleet.cli(["notify", "test"]);
  expect(tried).toMatchObject({ code: 0, stdout: `ok      ntfy+http://${ntfy.url}/t1  HTTP 200 OK\n` });
  expect(ntfy.posts).toEqual([expect.objectContaining({ path: "/t1", body: "a test from fleetcom notify test" })]);
});

// SECURITY (docs/security.md): daemon.log persists and gets attached to bug reports; the
// destinations' credentials stay out of it, while `config` still shows them to their user.
test("daemon.log holds no destination's credentials after failed pushes and a reload; config still shows them", async () => {
  const broken = receiver(500);
  const secrets = ["DEADUSER", "DEADPASS", "DEADKEY", "NTFYPASS", "CMDSECRET", "NEWPASS", "NEWTOKEN"];
  const first = [
    `http://deaduser:DEADPASS@${broken.url}/dead?key=DEADKEY`,
    `ntfy+http://bob:NTFYPASS@${broken.url}/topic`,
    `curl -s -H 'Authorization: Bearer CMDSECRET' http://${broken.url}/cmd; exit 1`,
  ];
  writeConfig(`notify = ${JSON.stringify(first)}\n`);
  fleet.env.FLEETCOM_PUSH_BACKOFF_MS = "1";
  await fleet.run("printf '\\a'; sleep 3600");
  await until("every push to be given up", async () => (await daemonStatus()).push.every((p: { failed: number }) => p.failed === 1));
  writeConfig(`notify = ["https://newuser:NEWPASS@${broken.url}/new?access_token=NEWTOKEN"]\n`);
  await fleet.ok(["config", "--reload"]);

  const log = readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8");
  // The lines are there, with the credentials hidden.
  expect(log).toContain(`push to http://***@${broken.url}/dead?key=*** about task`);
  expect(log).toContain(`push to ntfy+http://***@${broken.url}/topic about task`);
  expect(log).toMatch(/again: notify .*Authorization: Bearer \*\*\*.*→ .*https:\/\/\*\*\*@.*access_token=\*\*\*/);
  for (const secret of secrets) expect(log.toUpperCase()).not.toContain(secret);
  // Its own user still reads them whole.
  expect((await fleet.ok(["config"])).includes("NEWPASS")).toBe(true);
});

describe("pushes worth reading", () => {
  const taskIds = (posts: Received[]) => posts.map((p) => JSON.parse(p.body).task.id);

  test('a destination with events = ["failed"] gets nothing for a clean exit and one POST, with the error lines, for a failure', async () => {
    const picky = receiver();
    const ntfy = receiver();
    const every = receiver();
    writeConfig(
      [
        "notify_min_runtime = 0",
        "notify = [",
        `  { to = "http://${picky.url}/picky", events = ["failed"] },`,
        `  { to = "ntfy+http://${ntfy.url}/t", events = ["failed"] },`,
        `  "http://${every.url}/every",`,
        "]",
        "",
      ].join("\n"),
    );
    fleet.env.FLEETCOM_PUSH_INTERVAL_MS = "0";
    const clean = await fleet.run("echo fine", ["--name", "clean"]);
    await fleet.waitForExit(clean);
    const failing = await fleet.run("echo compiling; echo 'error: disk full at /var/x'; echo; exit 3", ["--name", "broken"]);
    await fleet.waitForExit(failing);
    // The destination that wants every event got both ends: the clean one would have gone first to the others too.
    await until("both ends at the plain destination", () => every.posts.length >= 2);
    await until("the failure at the picky ones", () => picky.posts.length >= 1 && ntfy.posts.length >= 1);
    expect(taskIds(every.posts)).toEqual([clean, failing]);
    expect(taskIds(picky.posts)).toEqual([failing]);
    const failed = JSON.parse(picky.posts[0]!.body);
    expect(failed).toMatchObject({ state: "failed", message: "exited with code 3\ncompiling\nerror: disk full at /var/x" });
    expect(ntfy.posts.length).toBe(1);
    expect(ntfy.posts[0]!.body).toBe("exited with code 3\ncompiling\nerror: disk full at /var/x");
    const status = await fleet.ok(["status"]);
    expect(status).toContain(`notify    http://${picky.url}/picky [failed]  ok: 1 sent`);
  });

  test("a misspelt event is one line naming the file, the line and the nearest event; the rest of the list stays", async () => {
    const hook = receiver();
    writeConfig(`idle_seconds = 10\nnotify = [{ to = "http://${hook.url}/a", events = ["input", "faild"] }, "http://${hook.url}/b"]\n`);
    const config = await fleet.cli(["config"]);
    const file = join(fleet.sandbox.config, "config.toml");
    expect(config.stderr + config.stdout).toContain(
      `${file}:2: notify: 'http://${hook.url}/a': unknown event 'faild' (did you mean failed?); the events are input, permission, finished, failed, crash-loop, not-ready; ignored`,
    );
    expect(config.stdout).toMatch(new RegExp(`^notify +http://${hook.url}/b +config\\.toml:2$`, "m"));
  });

  test("a one-second task's finished is not sent; one past notify_min_runtime is; a failure always is", async () => {
    const hook = receiver();
    writeConfig(`notify_min_runtime = 3\nnotify = "http://${hook.url}/hook"\n`);
    fleet.env.FLEETCOM_PUSH_INTERVAL_MS = "0";
    const quick = await fleet.run("sleep 1", ["--name", "quick"]);
    const quickFail = await fleet.run("exit 4", ["--name", "quickfail"]);
    const long = await fleet.run("sleep 4", ["--name", "long"]);
    await fleet.waitForExit(quick);
    await fleet.waitForExit(long);
    await until("the long task's push", () => hook.posts.some((p) => JSON.parse(p.body).task.id === long));
    expect(hook.posts.map((p) => [JSON.parse(p.body).task.id, JSON.parse(p.body).state])).toEqual([
      [quickFail, "failed"],
      [long, "finished"],
    ]);
  });

  test("no push while a client attached to the task has typed into it; a task nobody attends is pushed", async () => {
    if (!Tmux.available()) return;
    const hook = receiver();
    writeConfig(`notify = "http://${hook.url}/hook"\n`);
    fleet.env.FLEETCOM_PUSH_INTERVAL_MS = "0";
    const attended = await fleet.run("read answer; echo \"got $answer\"; printf '\\a'; sleep 3600", ["--name", "attended"]);
    tmux = new Tmux(fleet.env, fleet.sandbox.root);
    tmux.window("attach", shellWords(fleetcomArgv(["attach", String(attended)])));
    await tmux.waitForRawMode("attach");
    tmux.type("attach", "yes");
    tmux.press("attach", "Enter");
    await tmux.waitFor("attach", "the answer", (t) => t.includes("got yes"));
    // It rang while its person was there, typing: that wait is theirs already.
    await fleet.waitForTask(attended, "to wait", (t) => t.attention?.state === "bell");
    // A task nobody attends rings after it: its push is the mark that the first had its turn.
    const alone = await fleet.run("printf '\\a'; sleep 3600", ["--name", "alone"]);
    await until("the unattended task's push", () => hook.posts.length >= 1);
    expect(taskIds(hook.posts)).toEqual([alone]);
  });

  test("run --no-notify and notify off -g push nothing about their tasks; a save keeps notify: false and only there", async () => {
    const hook = receiver();
    writeConfig(`notify = "http://${hook.url}/hook"\n`);
    fleet.env.FLEETCOM_PUSH_INTERVAL_MS = "0";
    const muted = await fleet.run("printf '\\a'; sleep 3600", ["--no-notify", "--name", "muted"]);
    await fleet.waitForTask(muted, "to wait", (t) => t.attention?.state === "bell");
    const grouped = await fleet.run("read go; printf '\\a'; sleep 3600", ["--group", "tests", "--name", "grouped"]);
    expect(await fleet.ok(["notify", "off", "-g", "tests"])).toBe(`notify off: ${grouped}\n`);
    await fleet.ok(["send", String(grouped), "go"]);
    await fleet.waitForTask(grouped, "to wait", (t) => t.attention?.state === "bell");
    const told = await fleet.run("printf '\\a'; sleep 3600", ["--name", "told"]);
    await until("the told task's push", () => hook.posts.length >= 1);
    expect(taskIds(hook.posts)).toEqual([told]);
    expect((await fleet.ls()).map((t) => [t.id, t.notify])).toEqual([
      [muted, false],
      [grouped, false],
      [told, true],
    ]);

    await fleet.ok(["save", "muted-fleet"]);
    const saved = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", "muted-fleet.json"), "utf8"));
    const entries = Object.values(saved.dirs as Record<string, unknown[]>).flat();
    expect(entries).toEqual([
      expect.objectContaining({ name: "muted", notify: false }),
      expect.objectContaining({ name: "grouped", group: "tests", notify: false }),
      { cmd: "printf '\\a'; sleep 3600", name: "told" },
    ]);
    await fleet.ok(["notify", "on", "muted"]);
    expect((await fleet.task(muted)).notify).toBe(true);
    // A load gives the saved tasks their setting back.
    await fleet.ok(["--kill", "--yes"]);
    await fleet.ok(["load", "muted-fleet"]);
    expect((await fleet.ls()).map((t) => [t.name, t.notify])).toEqual([
      ["muted", false],
      ["grouped", false],
      ["told", true],
    ]);
  });
});
