// Services (docs/services.md) against the real binary: readiness probes of each kind (an HTTP server
// and a TCP listener this test starts), `after` with ready and done, a failing dependency, a cycle
// refused before anything starts, stopping dependents first with each task's own signal, a Procfile
// with its .env, and a process-compose file with probes and depends_on.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv, processesWhere } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A port nothing listens on yet: the kernel's choice, given back. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function listen(port: number): Promise<Server> {
  const server = createServer((socket) => socket.end());
  closers.push(() => server.close());
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

const stateOf = async (id: number) => (await fleet.task(id)).readiness?.state;
const lsRow = async (id: number) => (await fleet.ok(["ls"])).split("\n").find((l) => l.trimStart().startsWith(`${id} `)) ?? "";

function writeRecipe(name: string, dirs: Record<string, unknown[]>): string {
  const file = join(fleet.sandbox.root, `${name}.json`);
  writeFileSync(file, JSON.stringify({ version: 1, name, dirs }));
  return file;
}

describe("readiness", () => {
  test("--ready-log: starting (◌) until a line of output matches, then ready; wait --for ready returns then", async () => {
    const gate = join(fleet.sandbox.root, "gate");
    const id = await fleet.run(`while [ ! -f ${gate} ]; do sleep 0.05; done; printf '\\033[32mlistening on :3000\\033[0m\\n'; sleep 600`, [
      "--ready-log",
      "listening on :\\d+",
    ]);
    expect(await stateOf(id)).toBe("starting");
    const row = await lsRow(id);
    expect(row).toContain("◌");
    expect(row).toContain("starting");
    const waiting = fleet.cli(["wait", String(id), "--for", "ready", "--timeout", "30"]);
    writeFileSync(gate, "");
    expect((await waiting).code).toBe(0);
    expect(await stateOf(id)).toBe("ready");
    expect(await lsRow(id)).toContain("ready");
  });

  test("--ready-http: a 2xx answer from a real local server makes it ready; a 503 does not", async () => {
    let healthy = false;
    let tries = 0;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => {
        tries++;
        return new Response("", { status: healthy ? 200 : 503 });
      },
    });
    closers.push(() => server.stop(true));
    const id = await fleet.run("sleep 600", ["--ready-http", `http://127.0.0.1:${server.port}/health`]);
    // Two tries answered 503, and it is still starting.
    await until("two probe tries", () => tries >= 2);
    expect(await stateOf(id)).toBe("starting");
    healthy = true;
    await fleet.waitForTask(id, "ready", (t) => t.readiness?.state === "ready");
  });

  test("--ready-port: ready once a TCP listener accepts on 127.0.0.1", async () => {
    const port = await freePort();
    const id = await fleet.run("sleep 600", ["--ready-port", String(port)]);
    expect(await stateOf(id)).toBe("starting");
    await listen(port);
    await fleet.waitForTask(id, "ready", (t) => t.readiness?.state === "ready");
  });

  test("--ready-cmd: ready once the command exits 0 in the task's directory", async () => {
    const dir = join(fleet.sandbox.root, "svc");
    mkdirSync(dir);
    const id = await fleet.run("sleep 600", ["--cwd", dir, "--ready-cmd", "test -f up.flag"]);
    expect(await stateOf(id)).toBe("starting");
    writeFileSync(join(dir, "up.flag"), "");
    await fleet.waitForTask(id, "ready", (t) => t.readiness?.state === "ready");
  });

  test("a --ready-cmd that hangs is ended with its whole process group at the try's bound, and with the daemon", async () => {
    // The shell forks its sleep (a compound command): killing the shell alone would leave the sleep behind.
    const id = await fleet.run("sleep 600", ["--ready-cmd", "sleep 1000; true"]);
    const ours = `FLEETCOM_RUNTIME_DIR=${fleet.sandbox.runtime}\0`;
    const probes = () => processesWhere((read) => read("cmdline") === "sleep\x001000\x00" && read("environ").includes(ours));
    const first = await until("the probe's sleep running", () => {
      const found = probes();
      return found.length > 0 ? found : undefined;
    });
    // That try's sleep, by PID: the next try starts within a second of the kill, so "no sleep at all"
    // is a moment a poll on a loaded machine can miss.
    await until("the probe's group killed at the bound", () => !probes().some((pid) => first.includes(pid)), 20_000);
    expect(await stateOf(id)).toBe("starting");
    // The next try is under way when the daemon stops: it goes with the daemon.
    await until("the next try running", () => probes().length > 0);
    await fleet.ok(["--kill"]);
    await until("no try left behind", () => probes().length === 0, 5_000);
  });

  test("a probe that never passes: 'not ready after 1s' in ls, attention raised, the notify hook told, wait --for ready fails", async () => {
    const port = await freePort();
    const told = join(fleet.sandbox.root, "told");
    // The daemon this run starts has a notify hook: it hears of the attention as of any other.
    const started = await fleet.cli(["run", "--ready-port", String(port), "--ready-timeout", "1", "--", "sleep 600"], {
      env: { FLEETCOM_NOTIFY: `echo "$FLEETCOM_ATTENTION: $FLEETCOM_MESSAGE" >> ${told}` },
    });
    const id = Number(started.stdout.trim());
    const task = await fleet.waitForTask(id, "not ready", (t) => t.readiness?.state === "not-ready");
    expect(task.attention).toMatchObject({ state: "not-ready", message: "not ready after 1s" });
    await until("the notify hook", () => existsSync(told) && readFileSync(told, "utf8") === "not-ready: not ready after 1s\n");
    expect(await lsRow(id)).toContain("not ready after 1s");
    const waited = await fleet.cli(["wait", String(id), "--for", "ready"]);
    expect(waited.code).not.toBe(0);
    expect(waited.stderr).toContain("not ready after 1s");
  });

  test("a log pattern that could backtrack without end is refused before the task starts", async () => {
    const r = await fleet.cli(["run", "--ready-log", "(a+)+$", "--", "sleep 600"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--ready-log: a repeated group holds a repeat");
    // A client that skips the recipe's checks is refused by the daemon too.
    const raw = await fleet.rawClient();
    const dir = fleet.sandbox.home;
    const reply = await raw.request("load", { entries: [{ dir, cmd: "sleep 600", group: null, name: null, ready: { log: "(a|aa)+" } }] });
    raw.close();
    expect(reply).toMatchObject({ ok: false, error: expect.stringContaining("ready.log: a repeated group holds an alternation") });
    expect(await fleet.ls()).toEqual([]);
  });
});

describe("readiness under a restart policy", () => {
  // Each run says which it is; TERM ends it with exit 0, which on-failure alone would not restart.
  const service = (marks: string) => `trap 'exit 0' TERM; echo "run $$" >> ${marks}; sleep 600 & wait`;

  test("a probe that gives up stops the run and the policy restarts it, even one that exits 0 on TERM; ready once it listens", async () => {
    const port = await freePort();
    const marks = join(fleet.sandbox.root, "marks");
    const id = await fleet.run(service(marks), ["--ready-port", String(port), "--ready-timeout", "1", "--restart", "on-failure", "--name", "db"]);
    const restarted = await fleet.waitForTask(id, "restarted after the probe gave up", (t) => t.restarts >= 1 && t.run >= 2 && t.state === "running");
    expect(restarted.restart).toBe("on-failure");
    await listen(port);
    const ready = await fleet.waitForTask(id, "ready in a later run", (t) => t.readiness?.state === "ready");
    expect(ready).toMatchObject({ state: "running", attention: null });
    expect(ready.run).toBeGreaterThanOrEqual(2);
    expect(readFileSync(marks, "utf8").trim().split("\n").length).toBeGreaterThanOrEqual(2);
    // The run the probe gave up on is in the history, under the separator of the next.
    expect(await fleet.ok(["logs", String(id)])).toMatch(/── run 2 · \d\d:\d\d:\d\d · after /);
  });

  test("never ready: a crash loop at --max-restarts that says so", async () => {
    const port = await freePort();
    const marks = join(fleet.sandbox.root, "marks");
    const id = await fleet.run(service(marks), ["--ready-port", String(port), "--ready-timeout", "1", "--restart", "always", "--max-restarts", "1"]);
    const ended = await fleet.waitForTask(id, "given up", (t) => t.attention?.state === "crash-loop");
    expect(ended).toMatchObject({ restarts: 1, run: 2, state: "exited" });
    expect(ended.attention!.message).toMatch(/^crash loop · 1 restart in \d+s · not ready$/);
    expect(await lsRow(id)).toContain("↯");
  });

  test("without a policy the task keeps running, not ready", async () => {
    const port = await freePort();
    const id = await fleet.run("sleep 600", ["--ready-port", String(port), "--ready-timeout", "1"]);
    await fleet.waitForTask(id, "not ready", (t) => t.readiness?.state === "not-ready");
    // A yardstick started after it, under a policy: once it was restarted, this one would have been stopped too.
    const yardstick = await fleet.run(service(join(fleet.sandbox.root, "marks")), [
      "--ready-port",
      String(port),
      "--ready-timeout",
      "1",
      "--restart",
      "always",
    ]);
    await fleet.waitForTask(yardstick, "restarted", (t) => t.restarts >= 1);
    expect(await fleet.task(id)).toMatchObject({ state: "running", run: 1, restarts: 0, attention: { state: "not-ready" } });
  });

  test("an entry waiting on a service for ready waits through its restarts, and starts once it is ready", async () => {
    const port = await freePort();
    const dir = join(fleet.sandbox.root, "app");
    mkdirSync(dir);
    const file = writeRecipe("stack", {
      [dir]: [
        { cmd: service(join(dir, "marks")), name: "db", ready: { port }, ready_timeout: 1, restart: "on-failure" },
        { cmd: "sleep 600", name: "api", after: { db: "ready" } },
      ],
    });
    const load = fleet.cli(["load", file]);
    const db = await until("db restarted after its probe gave up", async () => (await fleet.ls()).find((t) => t.name === "db" && t.restarts >= 1));
    expect((await fleet.ls()).map((t) => t.name)).toEqual(["db"]);
    await listen(port);
    const loaded = await load;
    expect(loaded.stderr).toBe("");
    expect(loaded.code).toBe(0);
    const api = await until("api started", async () => (await fleet.ls()).find((t) => t.name === "api"));
    expect(api.state).toBe("running");
    expect((await fleet.task(db.id)).readiness?.state).toBe("ready");
  });
});

describe("start order", () => {
  test("after: migrate waits for db to be ready, api for migrate to be done; in that order, and save writes it back", async () => {
    const dir = join(fleet.sandbox.root, "app");
    mkdirSync(dir);
    const gate = join(dir, "gate");
    const order = join(dir, "order");
    const file = writeRecipe("dev", {
      [dir]: [
        { cmd: `echo db >> ${order}; while [ ! -f ${gate} ]; do sleep 0.05; done; echo db is up; sleep 600`, name: "db", ready: { log: "db is up" } },
        { cmd: `echo migrate >> ${order}; sleep 0.3; echo api-may-go`, name: "migrate", after: ["db"] },
        { cmd: `echo api >> ${order}; sleep 600`, name: "api", after: { migrate: "done" } },
      ],
    });
    const load = fleet.cli(["load", file]);
    await until("db started", async () => (await fleet.ls()).some((t) => t.name === "db"));
    // db is starting: nothing that waits on it has started.
    expect((await fleet.ls()).map((t) => t.name)).toEqual(["db"]);
    writeFileSync(gate, "");
    const loaded = await load;
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toContain("loaded 'dev': 3 task(s)");
    // load answers once api is started; its own line may come a moment later.
    await until("api's line", () => readFileSync(order, "utf8").split("\n").length > 3);
    expect(readFileSync(order, "utf8")).toBe("db\nmigrate\napi\n");
    await fleet.ok(["save", "dev2"]);
    const saved = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", "dev2.json"), "utf8"));
    expect(saved.dirs[dir].map((e: { name: string; after?: unknown; ready?: unknown }) => [e.name, e.after, e.ready])).toEqual([
      ["db", undefined, { log: "db is up" }],
      ["migrate", ["db"], undefined],
      ["api", { migrate: "done" }, undefined],
    ]);
  });

  test("the daemon holds the waiting: an entry still starts when its dependency is ready after the loading client has gone", async () => {
    const dir = join(fleet.sandbox.root, "app");
    mkdirSync(dir);
    const gate = join(dir, "gate");
    const file = writeRecipe("dev", {
      [dir]: [
        { cmd: `while [ ! -f ${gate} ]; do sleep 0.05; done; echo db is up; sleep 600`, name: "db", ready: { log: "db is up" } },
        { cmd: "sleep 600", name: "api", after: ["db"] },
      ],
    });
    const client = Bun.spawn(fleetcomArgv(["load", file]), { env: fleet.env, cwd: fleet.sandbox.home, stdout: "ignore", stderr: "ignore" });
    await until("db started", async () => (await fleet.ls()).some((t) => t.name === "db"));
    client.kill("SIGKILL");
    await client.exited;
    expect((await fleet.ls()).map((t) => t.name)).toEqual(["db"]);
    writeFileSync(gate, "");
    const api = await until("api started", async () => (await fleet.ls()).find((t) => t.name === "api"));
    expect(api.state).toBe("running");
  });

  test("a failing dependency leaves its dependents unstarted, each named with why, exit 3; what started keeps running", async () => {
    const dir = join(fleet.sandbox.root, "app");
    mkdirSync(dir);
    const file = writeRecipe("broken", {
      [dir]: [
        { cmd: "sleep 600", name: "cache" },
        { cmd: "echo no database; exit 1", name: "db", ready: { log: "ready" } },
        { cmd: "sleep 600", name: "api", after: ["db", "cache"] },
        { cmd: "sleep 600", name: "web", after: { api: "started" } },
      ],
    });
    const r = await fleet.cli(["load", file]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("fleetcom: api not started: waits on db, which exited 1 before it was ready");
    expect(r.stderr).toContain("fleetcom: web not started: waits on api, which did not start");
    const tasks = await fleet.ls();
    expect(tasks.map((t) => t.name).sort()).toEqual(["cache", "db"]);
    expect(tasks.find((t) => t.name === "cache")!.state).toBe("running");
  });

  test("an unknown name and a cycle are refused before anything starts: file, entry and field named, exit 2", async () => {
    const unknown = writeRecipe("dev", {
      "~/app": [
        { cmd: "sleep 600", name: "db" },
        { cmd: "sleep 600", name: "api" },
        { cmd: "sleep 601", after: ["dbb"] },
      ],
    });
    mkdirSync(join(fleet.sandbox.home, "app"));
    const r1 = await fleet.cli(["load", unknown]);
    expect(r1.code).toBe(2);
    expect(r1.stderr.trim()).toBe(`fleetcom: ${unknown}: dirs["~/app"][2].after: no entry named "dbb" (did you mean "db"?)`);
    const cycle = writeRecipe("loop", {
      "~/app": [
        { cmd: "sleep 600", name: "a", after: ["b"] },
        { cmd: "sleep 601", name: "b", after: { a: "ready" } },
      ],
    });
    const r2 = await fleet.cli(["load", cycle]);
    expect(r2.code).toBe(2);
    expect(r2.stderr.trim()).toBe(`fleetcom: ${cycle}: dirs["~/app"][0].after: a cycle: a → b → a; nothing was started`);
    expect(await fleet.ls()).toEqual([]);
  });
});

describe("stopping in order", () => {
  /** A task that writes `name` to the log when it is stopped, and takes a moment to do it. */
  const stoppable = (name: string, log: string, signal = "TERM") =>
    `trap 'sleep 0.3; echo ${name} >> ${log}; exit 0' ${signal}; echo up; while :; do sleep 0.05; done`;

  test("kill --all stops dependents before what they depend on", async () => {
    const dir = join(fleet.sandbox.root, "app");
    mkdirSync(dir);
    const log = join(dir, "stopped");
    const file = writeRecipe("stack", {
      [dir]: [
        { cmd: stoppable("db", log), name: "db" },
        { cmd: stoppable("api", log), name: "api", after: ["db"] },
        { cmd: stoppable("web", log), name: "web", after: ["api"] },
      ],
    });
    await fleet.ok(["load", file]);
    await until("all three up", async () => (await Promise.all([1, 2, 3].map((id) => fleet.peek(id)))).every((s) => s.includes("up")));
    await fleet.ok(["kill", "--all"]);
    expect(readFileSync(log, "utf8")).toBe("web\napi\ndb\n");
  });

  test("--kill (the daemon stopping) does too, each with its own --stop-signal", async () => {
    const dir = join(fleet.sandbox.root, "app");
    mkdirSync(dir);
    const log = join(dir, "stopped");
    const file = writeRecipe("stack", {
      [dir]: [
        // Deaf to TERM: only its own stop signal reaches its trap.
        { cmd: `trap '' TERM; ${stoppable("db", log, "INT")}`, name: "db", stop_signal: "INT", stop_timeout: 10 },
        { cmd: stoppable("api", log), name: "api", after: ["db"] },
      ],
    });
    await fleet.ok(["load", file]);
    await until("both up", async () => (await Promise.all([1, 2].map((id) => fleet.peek(id)))).every((s) => s.includes("up")));
    await fleet.ok(["--kill"]);
    await until("both stopped", () => existsSync(log) && readFileSync(log, "utf8").split("\n").length >= 3);
    expect(readFileSync(log, "utf8")).toBe("api\ndb\n");
  });
});

describe("imports", () => {
  test("a Procfile: each line a task named by it, in the file's directory, with the .env beside it", async () => {
    const dir = join(fleet.sandbox.root, "shop");
    mkdirSync(dir);
    writeFileSync(join(dir, "Procfile"), '# the shop\nweb: echo "web on $PORT says $GREETING"; sleep 600\n\nworker: echo "worker $PORT"; sleep 600\n');
    writeFileSync(join(dir, ".env"), 'export PORT=5000\nGREETING="hello world" # a comment\n# SECRET=no\n');
    const r = await fleet.cli(["load", "Procfile"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("loaded 'shop': 2 task(s)");
    const tasks = await fleet.ls();
    expect(tasks.map((t) => [t.name, t.cwd])).toEqual([
      ["web", dir],
      ["worker", dir],
    ]);
    await until("web's line", async () => (await fleet.peek("web")).includes("web on 5000 says hello world"));
    await until("worker's line", async () => (await fleet.peek("worker")).includes("worker 5000"));
  });

  test("a malformed Procfile line is one error naming the line, and nothing starts", async () => {
    const dir = join(fleet.sandbox.root, "shop");
    mkdirSync(dir);
    writeFileSync(join(dir, "Procfile.dev"), "web: sleep 600\nworker sleep 600\n");
    const r = await fleet.cli(["load", "Procfile.dev"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`fleetcom: ${join(dir, "Procfile.dev")}:2: expected "name: command", got "worker sleep 600"`);
    expect(await fleet.ls()).toEqual([]);
  });

  test("a process-compose file: probes, depends_on, environment, shutdown and availability; unsupported keys in one warning; save keeps the policies", async () => {
    const dir = join(fleet.sandbox.root, "stack");
    mkdirSync(dir);
    const order = join(dir, "order");
    const port = await freePort();
    writeFileSync(
      join(dir, "process-compose.yaml"),
      `version: "0.5"
log_location: ./pc.log
processes:
  db:
    command: "echo db >> ${order}; sleep 0.2; echo 'database system is ready'; sleep 600"
    ready_log_line: "database system is ready"
    shutdown:
      signal: 2
      timeout_seconds: 5
  migrate:
    command: "echo migrate >> ${order}"
    depends_on:
      db:
        condition: process_log_ready
  api:
    command: "echo api $MODE >> ${order}; sleep 600"
    environment:
      - MODE=dev
    depends_on:
      migrate:
        condition: process_completed_successfully
    readiness_probe:
      http_get:
        host: 127.0.0.1
        port: ${port}
        path: /
      period_seconds: 2
    availability:
      restart: on_failure
      max_restarts: 3
`,
    );
    const server = Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    closers.push(() => server.stop(true));
    const r = await fleet.cli(["load", "process-compose.yaml"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe("fleetcom: warning: process-compose.yaml: not supported, ignored: log_location, processes.api.readiness_probe.period_seconds");
    await until("api's line", () => readFileSync(order, "utf8").split("\n").length > 3);
    expect(readFileSync(order, "utf8")).toBe("db\nmigrate\napi dev\n");
    await fleet.waitForTask(3, "ready", (t) => t.readiness?.state === "ready");
    expect((await fleet.task(1)).readiness).toMatchObject({ state: "ready", probe: "log" });
    await fleet.ok(["save", "stack"]);
    const saved = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", "stack.json"), "utf8"));
    const [db, migrate, api] = saved.dirs[dir];
    expect(db).toMatchObject({ name: "db", ready: { log: "database system is ready" }, stop_signal: "INT", stop_timeout: 5 });
    expect(migrate).toMatchObject({ name: "migrate", after: { db: "ready" } });
    expect(api).toMatchObject({
      name: "api",
      after: { migrate: "done" },
      ready: { http: `http://127.0.0.1:${port}/` },
      restart: "on-failure",
      max_restarts: 3,
      env: { MODE: "dev" },
    });
  });
});
