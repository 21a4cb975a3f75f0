// What `hosts add` takes of a host's answer (client-host-probe.ts): every field bounded by length and
// shape, lying answers in the same table as good ones.
import { expect, test } from "bun:test";
import { parseProbe } from "../../src/client-host-probe.ts";
import { UserError } from "../../src/errors.ts";

const GOOD = "Linux x86_64\n/home/me\nlinger=yes\nservice=no\ninstalled=0.1.0\nfound=/home/me/.local/share/fleetcom/0.0.9/fleetcom\nunpack=gzip\n";

test("a truthful answer gives each field", () => {
  expect(parseProbe("gpu1", GOOD)).toEqual({
    system: "Linux x86_64",
    home: "/home/me",
    linger: "yes",
    service: false,
    installed: "0.1.0",
    found: ["/home/me/.local/share/fleetcom/0.0.9/fleetcom"],
    unpackers: ["gzip"],
  });
});

test("only the unpackers fleetcom can pack for are taken from the answer, the best first", () => {
  const answer = (lines: string) => parseProbe("gpu1", `Linux x86_64\n/home/me\n${lines}`).unpackers;
  expect(answer("unpack=gzip\nunpack=zstd\n")).toEqual(["zstd", "gzip"]);
  expect(answer("unpack=gzip\nunpack=xz\nunpack=zstd\n")).toEqual(["xz", "zstd", "gzip"]);
  expect(answer("unpack=lzip\nunpack=rm -rf\nunpack=\n")).toEqual([]);
  expect(answer("")).toEqual([]);
});

test("a home that is no absolute path of at most 4096 printable bytes refuses the host in one short line naming it", () => {
  for (const home of ["", "home/me", `/${"a".repeat(4096)}`, "/home/\x1b]52;c;QQ==\x07", "/home/\u202eem", "/home/me\r"]) {
    let refusal: unknown;
    try {
      parseProbe("gpu1", `Linux x86_64\n${home}\n`);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UserError);
    const message = (refusal as UserError).message;
    expect(message).toStartWith("gpu1: the remote shell did not give its home directory");
    expect(message.length).toBeLessThan(300);
    expect(message).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
  }
  expect(parseProbe("gpu1", `Linux x86_64\n/${"é".repeat(2047)}\n`).home).toHaveLength(2048);
});

test("a system that is not `uname -sm`'s two words refuses the host", () => {
  for (const system of ["", "Linux", "Linux\x1b]0;T\x07 x86_64", `Linux ${"x".repeat(65)}`, "Linux x86_64 extra"])
    expect(() => parseProbe("gpu1", `${system}\n/home/me\n`)).toThrow(/^gpu1: 'uname -sm' there did not give a system and architecture/);
  expect(parseProbe("gpu1", "CYGWIN_NT-10.0 x86_64\n/home/me\n").system).toBe("CYGWIN_NT-10.0 x86_64");
});

test("the other fields out of shape are taken as unknown, never as given", () => {
  const probe = parseProbe(
    "gpu1",
    `Linux x86_64\n/home/me\nlinger=maybe\x1b[2J\ninstalled=0.1.0\x1b]52;c;QQ==\x07\nfound=/etc/passwd\nfound=/home/me/.local/share/fleetcom/x\x1b/fleetcom\n${"found=/home/me/.local/share/fleetcom/1/fleetcom\n".repeat(100)}`,
  );
  expect(probe.linger).toBe("unknown");
  expect(probe.installed).toBeNull();
  expect(probe.found).toHaveLength(32);
  expect(new Set(probe.found)).toEqual(new Set(["/home/me/.local/share/fleetcom/1/fleetcom"]));
});
