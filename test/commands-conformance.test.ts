// Rules of the Rust original and the spec that the conformance check found broken (issue 12): a
// task in a directory whose name is not UTF-8, a missing recipe file, a recipe bigger than a request,
// and the session picker's Ctrl-D and Ctrl-R on a hand-edited session whose `name` is not its stem.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, Fleet, type PtyClient } from "./fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

describe("a recipe file that is not there", () => {
  test("is reported as no such file, by load, the dry run and recover", async () => {
    const missing = join(fleet.sandbox.home, "nothere.json");
    for (const args of [["load", missing], ["load", "--dry-run", missing], ["recover", "--dry-run", missing], ["recover", missing]]) {
      expect({ args, ...(await fleet.cli(args)) }).toEqual({ args, code: 1, stdout: "", stderr: `fleetcom: no such file: ${missing}\n` });
    }
    const relative = await fleet.cli(["load", "./nope"]);
    expect(relative.stderr).toEndWith("__nope.json; a recipe file is given by a path ending in .json)\n");
  });

  test("a recipe bigger than a request frame (one 5 MiB command) is one line naming the file, never a lost connection", async () => {
    const file = join(fleet.sandbox.home, "h.json");
    writeFileSync(file, JSON.stringify({ "/tmp": [`true ${"#".repeat(5 * 1024 * 1024)}`] }));
    expect(await fleet.cli(["load", file])).toEqual({ code: 1, stdout: "", stderr: `fleetcom: ${file}: command too long (5242885 bytes; at most 64 KiB) in /tmp\n` });
  });
});

describe("the session picker on a hand-edited session whose name is not its file's stem", () => {
  const sessionsDir = () => join(fleet.sandbox.config, "sessions");
  const write = (file: string, name: string) => {
    mkdirSync(sessionsDir(), { recursive: true });
    writeFileSync(join(sessionsDir(), file), `${JSON.stringify({ version: 1, name, dirs: { "/tmp": ["sleep 3600"] } })}\n`);
  };
  const picker = async (): Promise<PtyClient> => {
    const client = fleet.spawnClient(["load"], { cols: 200, rows: 30 });
    await client.waitForScreen("the picker", (s) => s.includes("Saved sessions (2)") && s.includes("esc cancel"));
    await client.waitForRawMode();
    await client.waitForScreen("API highlighted", (s) => s.split("\n").some((r) => r.startsWith("› API")));
    return client;
  };

  test("Ctrl-D deletes the file listed", async () => {
    write("k_API.json", "API");
    write("other.json", "other");
    const client = await picker();
    client.write("\x04");
    await client.waitForScreen("the question", (s) => s.includes("Delete session 'API'? y/N"));
    client.write("y");
    await client.waitForScreen("deleted", (s) => s.includes("deleted 'API'") && s.includes("Saved sessions (1)"));
    expect(readdirSync(sessionsDir()).sort()).toEqual(["other.json"]);
  });

  test("Ctrl-R renames the file listed", async () => {
    write("k_API.json", "API");
    write("other.json", "other");
    const client = await picker();
    client.write("\x12");
    await client.waitForScreen("the prompt", (s) => s.includes("Rename session 'API' to"));
    client.write("\x7f\x7f\x7fgateway\r");
    await client.waitForScreen("renamed", (s) => s.includes("renamed 'API' to 'gateway'"));
    expect(readdirSync(sessionsDir()).sort()).toEqual(["gateway.json", "other.json"]);
    expect(JSON.parse(readFileSync(join(sessionsDir(), "gateway.json"), "utf8"))).toEqual({ version: 1, name: "gateway", dirs: { "/tmp": ["sleep 3600"] } });
    expect(existsSync(join(sessionsDir(), "k_API.json"))).toBe(false);
  });
});
