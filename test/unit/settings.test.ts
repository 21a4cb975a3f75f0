// The scrollback setting (settings.ts): the flag over the environment, the cap, and what a bad value
// of each does. notify's destinations: what each written form is, and the line that refuses a bad one.
import { describe, expect, test } from "bun:test";
import { DEFAULT_SCROLLBACK, MAX_SCROLLBACK, notifyDestination, scrollbackSetting } from "../../src/settings.ts";

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

describe("notify's destinations", () => {
  test.each([
    ["a command line", "notify-send fleetcom", { kind: "command", command: "notify-send fleetcom" }],
    ["a command that names a URL", "curl -d hi https://ntfy.sh/t", { kind: "command" }],
    ["an ntfy topic, over https", "ntfy://ntfy.sh/my-topic_1", { kind: "ntfy", url: "https://ntfy.sh/my-topic_1", authorization: null, click: null }],
    [
      "an ntfy topic over http, with a port and a click URL",
      "ntfy+http://127.0.0.1:8080/t?click=https://x.test/a",
      { url: "http://127.0.0.1:8080/t", click: "https://x.test/a" },
    ],
    [
      "an ntfy topic with a user and password",
      "ntfy://phil:my%20pass@ntfy.example/t",
      { url: "https://ntfy.example/t", authorization: `Basic ${btoa("phil:my pass")}` },
    ],
    ["a click URL that is not ASCII, in its ASCII form", "ntfy://ntfy.sh/t?click=https://bücher.example/ä", { click: "https://xn--bcher-kva.example/%C3%A4" }],
    ["a webhook", "https://hooks.example/x?k=1", { kind: "webhook", url: "https://hooks.example/x?k=1" }],
    ["a plain http webhook", "http://127.0.0.1:9/h", { kind: "webhook", url: "http://127.0.0.1:9/h" }],
  ])("%s", (_what, written, expected) => {
    const parsed = notifyDestination(written);
    expect(parsed).toEqual({ ok: expect.objectContaining({ written, ...expected }) });
  });

  test.each([
    [
      "a mistyped scheme",
      "htps://hooks.example/x",
      "'htps://hooks.example/x': unknown scheme htps:// (ntfy://host/topic, ntfy+http://host:port/topic, https://… or http://…)",
    ],
    [
      "an ntfy server without a topic",
      "ntfy://ntfy.sh",
      "'ntfy://ntfy.sh': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64)",
    ],
    [
      "an ntfy topic of two segments",
      "ntfy://ntfy.sh/a/b",
      "'ntfy://ntfy.sh/a/b': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64)",
    ],
    [
      "an ntfy topic with a space",
      "ntfy://ntfy.sh/a b",
      "'ntfy://ntfy.sh/a b': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64)",
    ],
    ["an ntfy host that is no host", "ntfy://999.1.1.1/t", "'ntfy://999.1.1.1/t': 999.1.1.1 is not a host name"],
    [
      "a click URL a phone cannot open",
      "ntfy://ntfy.sh/t?click=javascript:alert(1)",
      "'ntfy://ntfy.sh/t?click=javascript:alert(1)': click=javascript:alert(1) is not an http(s) URL",
    ],
    ["a webhook that is no URL", "https://", "'https://' is not a URL (ntfy://host/topic, ntfy+http://host:port/topic, https://… or http://…)"],
  ])("%s is refused with one line naming it", (_what, written, error) => {
    expect(notifyDestination(written)).toEqual({ error });
  });
});
