import { expect, test } from "bun:test";
import { LineMatcher, MAX_MATCHED_LINE, readinessText } from "../../src/task-ready.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

test("a log probe matches a complete line, coloured or split across chunks", () => {
  const matcher = new LineMatcher(/^listening on :\d+$/);
  expect(matcher.push(bytes("\x1b[32mlisten"))).toBe(false);
  expect(matcher.push(bytes("ing on :3000\x1b[0m"))).toBe(false);
  expect(matcher.push(bytes("\r\n"))).toBe(true);
});

test("a line without end is cut at the bound and tested, never held whole", () => {
  const matcher = new LineMatcher(/^x+$/);
  expect(matcher.push(bytes("x".repeat(MAX_MATCHED_LINE + 10)))).toBe(true);
  const tail = new LineMatcher(/ready/);
  expect(tail.push(bytes(`${"y".repeat(MAX_MATCHED_LINE + 5)} ready`))).toBe(false);
});

test("ls says starting, ready, or not ready after the timeout; nothing for a finished task", () => {
  const readiness = { probe: "port" as const, timeoutSeconds: 60, since: null };
  expect(readinessText({ ...readiness, state: "starting" }, true)).toBe("starting");
  expect(readinessText({ ...readiness, state: "not-ready" }, true)).toBe("not ready after 60s");
  expect(readinessText({ ...readiness, state: "ready" }, false)).toBeNull();
  expect(readinessText(null, true)).toBeNull();
});
