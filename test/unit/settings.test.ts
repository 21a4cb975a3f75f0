// The scrollback setting (settings.ts): the flag over the environment, the cap, and what a bad value
// of each does.
import { describe, expect, test } from "bun:test";
import { DEFAULT_SCROLLBACK, MAX_SCROLLBACK, scrollbackSetting } from "../../src/settings.ts";

describe("scrollback setting", () => {
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);

  test("defaults to 2,000", () => {
    expect(scrollbackSetting(undefined, undefined, log)).toBe(DEFAULT_SCROLLBACK);
    expect(DEFAULT_SCROLLBACK).toBe(2000);
  });

  test("the flag wins over the environment", () => {
    expect(scrollbackSetting("50", "70", log)).toBe(50);
  });

  test("is capped at 100,000 and 0 turns it off", () => {
    expect(scrollbackSetting("5000000", undefined, log)).toBe(MAX_SCROLLBACK);
    expect(scrollbackSetting(undefined, "0", log)).toBe(0);
  });

  test("an unparsable environment value falls back to the default with a logged warning", () => {
    logs.length = 0;
    expect(scrollbackSetting(undefined, "lots", log)).toBe(DEFAULT_SCROLLBACK);
    expect(logs).toEqual(["FLEETCOM_SCROLLBACK='lots' is not a whole number; using 2000"]);
  });

  test("an unparsable flag is a usage error", () => {
    expect(() => scrollbackSetting("-1", undefined, log)).toThrow("--scrollback: expected a whole number, got '-1'");
  });
});
