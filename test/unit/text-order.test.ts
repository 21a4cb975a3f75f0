import { describe, expect, test } from "bun:test";
import { byCodeUnits, byNameIgnoringCase } from "../../src/text-order.ts";

describe("orders of strings", () => {
  test("by code units: upper case before lower, digits before both, a prefix before what extends it", () => {
    expect(["b", "B", "a", "10", "1", "ab"].sort(byCodeUnits)).toEqual(["1", "10", "B", "a", "ab", "b"]);
  });

  test("ISO 8601 times in UTC by code units are in time order", () => {
    const times = [Date.UTC(2026, 11, 5, 9, 0, 1), Date.UTC(2026, 11, 5, 8, 59, 59, 999), Date.UTC(2025, 0, 1), Date.UTC(2026, 11, 5, 9, 0, 0, 10)];
    const sorted = times.map((t) => new Date(t).toISOString()).sort(byCodeUnits);
    expect(sorted.map((s) => Date.parse(s))).toEqual([...times].sort((a, b) => a - b));
  });

  test("names with case ignored, then as written", () => {
    expect(["build", "api", "Build", "Zeta", "alpha"].sort(byNameIgnoringCase)).toEqual(["alpha", "api", "Build", "build", "Zeta"]);
  });
});
