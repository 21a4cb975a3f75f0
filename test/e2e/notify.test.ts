// Push (docs/notify.md, src/daemon-push.ts): notify's ntfy topics and webhooks, seen from receivers
// this test starts on 127.0.0.1. One POST per transition with the documented body, an ntfy-shaped
// request, a failing endpoint retried and shown in `status` and `config`, and `fleetcom notify test`.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";

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
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
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
  // Every transition at once: the rate window is the unit tests' (daemon-push.test.ts).
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
  expect(failed!.json).toMatchObject({ task: { id, name: "waiter" }, state: "failed", message: "exited with code 3" });
  expect(failed!.json.screen).toContain("got yes");

  expect(ntfy.posts[0]).toMatchObject({
    path: "/fleet_topic",
    headers: { title: `waiter waits for input (${hostname()})`, priority: "default", tags: "bell", click: "https://example.test/fleet" },
    body: "waits for input",
  });
  expect(ntfy.posts[1]).toMatchObject({ headers: { title: `waiter failed (${hostname()})`, priority: "high", tags: "x" }, body: "exited with code 3" });
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
