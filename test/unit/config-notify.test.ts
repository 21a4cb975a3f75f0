// notify's list as the config file writes it (src/config-notify.ts): a plain string wants every
// event, a table names the ones it wants, and a bad table is one line naming the destination.
import { describe, expect, test } from "bun:test";
import { notifyList, targetShown, wants } from "../../src/config-notify.ts";
import { failureMessage } from "../../src/daemon-notify.ts";

describe("a destination's events", () => {
  test("a plain string wants every event; a table only those it names", () => {
    const parsed = notifyList(["https://a.example/h", { to: "ntfy://ntfy.sh/t", events: ["failed", "input", "failed"] }]);
    expect(parsed).toEqual({ ok: ["https://a.example/h", { to: "ntfy://ntfy.sh/t", events: ["failed", "input"] }], warnings: [] });
    const [plain, table] = "ok" in parsed ? parsed.ok : [];
    expect(wants(plain!, "finished")).toBe(true);
    expect([wants(table!, "failed"), wants(table!, "finished"), wants(table!, "crash-loop")]).toEqual([true, false, false]);
    expect(targetShown(table!)).toBe("ntfy://ntfy.sh/t [failed, input]");
  });

  test.each([
    ["a misspelt event", { to: "ntfy://ntfy.sh/t", events: ["permision"] }, "unknown event 'permision' (did you mean permission?)"],
    ["an event nothing is near", { to: "ntfy://ntfy.sh/t", events: ["xyzzy"] }, "unknown event 'xyzzy'; the events are"],
    ["no events", { to: "ntfy://ntfy.sh/t", events: [] }, "events: expected a list of events in quotes"],
    ["events not a list", { to: "ntfy://ntfy.sh/t", events: "failed" }, "events: expected a list of events in quotes"],
    ["no to", { events: ["failed"] }, 'needs to = "…"'],
    ["an unknown field", { to: "ntfy://ntfy.sh/t", events: ["failed"], when: "always" }, "unknown field 'when'"],
    ["a bad destination", { to: "htps://x.example", events: ["failed"] }, "unknown scheme htps://"],
    ["a number", 3, "expected a destination in quotes or { to ="],
  ])("%s leaves that destination out with one line, the rest in force", (_what, item, said) => {
    const parsed = notifyList([item, "https://b.example/h"]);
    expect("ok" in parsed && parsed.ok).toEqual(["https://b.example/h"]);
    expect("ok" in parsed && parsed.warnings?.length).toBe(1);
    expect("ok" in parsed && parsed.warnings?.[0]).toContain(said);
  });
});

describe("a failure's message", () => {
  test("its end, then the screen's last three lines that are not blank, each cut at 200", () => {
    const screen = ["one", "two", "  ", "three", `four ${"x".repeat(300)}`, "", ""];
    expect(failureMessage("exited with code 2", screen).split("\n")).toEqual(["exited with code 2", "two", "three", `four ${"x".repeat(195)}`]);
    expect(failureMessage("ended by SIGSEGV", [])).toBe("ended by SIGSEGV");
  });
});
