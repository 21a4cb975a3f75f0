import { expect, test } from "bun:test";
import { fromProcessCompose } from "../../src/recipe-compose.ts";
import { thrown } from "../harness/helpers.ts";

test("each process an entry named after its key: directory, environment, probe, depends_on, availability, shutdown", () => {
  const doc = {
    version: "0.5",
    processes: {
      db: { command: "postgres", working_dir: "db", ready_log_line: "ready (port 5432)", shutdown: { signal: 2, timeout_seconds: 5 } },
      api: {
        command: "npm run api",
        environment: ["MODE=dev", "EMPTY="],
        depends_on: { db: { condition: "process_log_ready" }, migrate: { condition: "process_completed_successfully" } },
        readiness_probe: { http_get: { port: 3000, path: "/health" } },
        availability: { restart: "on_failure", max_restarts: 3 },
      },
      migrate: { command: "npm run migrate", environment: { N: 1 }, readiness_probe: { exec: { command: "true" } }, depends_on: { db: {} } },
    },
  };
  const { dirs, unsupported } = fromProcessCompose(doc, "pc.yaml", "/srv/app");
  expect(unsupported).toEqual([]);
  expect(dirs).toEqual({
    "/srv/app/db": [{ cmd: "postgres", name: "db", ready: { log: "ready \\(port 5432\\)" }, stop_signal: "INT", stop_timeout: 5 }],
    "/srv/app": [
      {
        cmd: "npm run api",
        name: "api",
        env: { MODE: "dev", EMPTY: "" },
        ready: { http: "http://127.0.0.1:3000/health" },
        after: { db: "ready", migrate: "done" },
        restart: "on-failure",
        max_restarts: 3,
      },
      { cmd: "npm run migrate", name: "migrate", env: { N: "1" }, ready: { cmd: "true" }, after: { db: "started" } },
    ],
  });
});

test("what fleetcom does not do is listed, every key of it", () => {
  const doc = {
    log_location: "x",
    processes: {
      web: {
        command: "x",
        readiness_probe: { exec: { command: "true" }, period_seconds: 2 },
        availability: { restart: "exit_on_failure", backoff_seconds: 2 },
        shutdown: { command: "stop" },
      },
    },
  };
  expect(fromProcessCompose(doc, "pc.yaml", "/a").unsupported).toEqual([
    "log_location",
    "processes.web.readiness_probe.period_seconds",
    "processes.web.availability.backoff_seconds",
    "processes.web.shutdown.command",
    "processes.web.availability.restart: exit_on_failure",
  ]);
});

test("refusals name the key in the file's terms, exit 2", () => {
  const refusal = (processes: unknown) => thrown(() => fromProcessCompose({ processes }, "pc.yaml", "/a"));
  expect(refusal({ web: { working_dir: "x" } })).toMatchObject({ message: "pc.yaml: processes.web: needs a command", exitCode: 2 });
  expect(refusal({ web: { command: "x", depends_on: { db: { condition: "process_happy" } } }, db: { command: "y" } }).message).toStartWith(
    "pc.yaml: processes.web.depends_on.db.condition: expected one of process_started",
  );
  expect(refusal({ web: { command: "x", depends_on: { dbb: {} } }, db: { command: "y" } }).message).toBe(
    'pc.yaml: processes.web.depends_on: no entry named "dbb" (did you mean "db"?)',
  );
  expect(refusal({ a: { command: "x", depends_on: { b: {} } }, b: { command: "y", depends_on: { a: {} } } }).message).toBe(
    "pc.yaml: processes.a.depends_on: a cycle: a → b → a; nothing was started",
  );
  expect(refusal({ web: { command: "x", shutdown: { signal: 19 } } }).message).toStartWith(
    "pc.yaml: processes.web.shutdown.signal: signal 19 is not one fleetcom sends",
  );
  expect(thrown(() => fromProcessCompose({ services: {} }, "pc.yaml", "/a")).message).toBe("pc.yaml: processes: expected a map of processes");
});

test("a disabled process is not loaded, as process-compose leaves it unstarted", () => {
  const { dirs } = fromProcessCompose({ processes: { web: { command: "x" }, docs: { command: "y", disabled: true } } }, "pc.yaml", "/a");
  expect(dirs["/a"]!.map((e) => e.name)).toEqual(["web"]);
});
