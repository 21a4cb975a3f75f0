import { expect, test } from "bun:test";
import { checkOrder, readServiceFields, serviceFlags } from "../../src/recipe-services.ts";
import { thrown } from "../harness/helpers.ts";

const place = 'dirs["~/app"][0]';

test("each field is checked by its schema; a bad one names file, entry and field, exit 2", () => {
  expect(readServiceFields({ cmd: "x", ready: { port: 5432 }, after: { db: "done" }, stop_signal: "INT", stop_timeout: 10 }, "dev.json", place)).toEqual({
    ready: { port: 5432 },
    after: { db: "done" },
    stop_signal: "INT",
    stop_timeout: 10,
  });
  expect(readServiceFields({ cmd: "x" }, "dev.json", place)).toEqual({});
  for (const [field, value] of [
    ["ready", { log: "a", port: 1 }],
    ["ready", { port: 70000 }],
    ["ready", { http: "ftp://x" }],
    ["after", { db: "healthy" }],
    ["stop_signal", "STOP"],
    ["stop_timeout", 0],
  ] as const) {
    const error = thrown(() => readServiceFields({ cmd: "x", [field]: value }, "dev.json", place));
    expect(error.message).toStartWith(`dev.json: ${place}.${field}: expected`);
    expect(error.exitCode).toBe(2);
  }
});

test("a log pattern that could backtrack without end is refused as config.toml's id patterns are", () => {
  expect(thrown(() => readServiceFields({ ready: { log: "(a|aa)+" } }, "dev.json", place)).message).toContain(
    `${place}.ready.log: a repeated group holds an alternation`,
  );
});

test("after: an unknown name is refused with the nearest one; a cycle with its path", () => {
  const entries = [
    { name: "db", place: "dirs[0]" },
    { name: "api", after: ["dbb"], place: "dirs[1]" },
  ];
  expect(thrown(() => checkOrder(entries, "dev.json")).message).toBe('dev.json: dirs[1].after: no entry named "dbb" (did you mean "db"?)');
  const cycle = [
    { name: "a", after: ["b"], place: "p0" },
    { name: "b", after: { a: "ready" as const }, place: "p1" },
  ];
  expect(thrown(() => checkOrder(cycle, "x.json")).message).toBe("x.json: p0.after: a cycle: a → b → a; nothing was started");
});

test("run's flags: one probe at a time, its timeout, the stop's signal and timeout", () => {
  expect(serviceFlags({ "ready-port": "5432", "ready-timeout": "5", "stop-signal": "int", "stop-timeout": "10" })).toEqual({
    ready: { port: 5432 },
    ready_timeout: 5,
    stop_signal: "INT",
    stop_timeout: 10,
  });
  expect(serviceFlags({})).toBeNull();
  expect(thrown(() => serviceFlags({ "ready-log": "x", "ready-port": "1" })).message).toBe(
    "run: one readiness probe at a time (given: --ready-log, --ready-port)",
  );
  expect(thrown(() => serviceFlags({ "ready-timeout": "5" })).message).toBe("run: --ready-timeout goes with a --ready-* probe");
  expect(thrown(() => serviceFlags({ "ready-port": "http" })).message).toBe("run: --ready-port: expected a port 1-65535, got 'http'");
});
