// Rules of the Rust original and the spec that the conformance check found broken (issue 12): a
// task in a directory whose name is not UTF-8, a missing recipe file, a recipe bigger than a request,
// and the session picker's Ctrl-D and Ctrl-R on a hand-edited session whose `name` is not its stem.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { hasRawBytes, pathBytes } from "../../src/text-path.ts";
import { shellQuote } from "../../src/text-shell.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { eachTestGetsAFleet, type Fleet, type PtyClient } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

/** `fleetcom args…` run from inside `dir` (bytes), reached by a glob: no runtime takes such a cwd. */
async function cliInside(parent: string, glob: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const command = `cd ${glob} && exec ${fleetcomArgv(args).map(shellQuote).join(" ")}`;
  const proc = Bun.spawn(["/bin/sh", "-c", command], { cwd: parent, env: fleet.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("a directory whose name is not UTF-8", () => {
  test("a task starts in it, knows its real path, and save says the recipe could not keep the name", async () => {
    const parent = join(fleet.sandbox.root, "w");
    const dir = Buffer.concat([Buffer.from(`${parent}/bad`), Buffer.from([0xff]), Buffer.from("name")]);
    mkdirSync(dir, { recursive: true });
    mkdirSync(Buffer.concat([dir, Buffer.from("/sub")]));
    const where = join(fleet.sandbox.home, "where");
    const r = await cliInside(parent, "bad?name", ["run", "--", `pwd -P > ${where}`]);
    expect(r).toEqual({ code: 0, stdout: "1\n", stderr: "" });
    expect(await fleet.waitForExit(1)).toMatchObject({ exitCode: 0 });
    expect(readFileSync(where)).toEqual(Buffer.concat([dir, Buffer.from("\n")]));
    // The directory travels losslessly: ls --json gives the bytes back.
    const [task] = await fleet.ls();
    expect(hasRawBytes(task!.cwd)).toBe(true);
    expect(pathBytes(task!.cwd)).toEqual(dir);
    // --cwd relative to such a directory, too.
    const sub = await cliInside(parent, "bad?name", ["run", "--cwd", "sub", "--", `pwd -P >> ${where}`]);
    expect(sub).toEqual({ code: 0, stdout: "2\n", stderr: "" });
    await fleet.waitForExit(2);
    expect(readFileSync(where).subarray(dir.length + 1)).toEqual(Buffer.concat([dir, Buffer.from("/sub\n")]));

    // A recipe's relative directory resolves against it as well.
    const relative = join(fleet.sandbox.home, "rel.json");
    writeFileSync(relative, JSON.stringify({ sub: ["true"] }));
    const dry = await cliInside(parent, "bad?name", ["load", "--dry-run", "--json", relative]);
    expect(dry.code).toBe(0);
    expect(pathBytes(JSON.parse(dry.stdout).entries[0].dir)).toEqual(Buffer.concat([dir, Buffer.from("/sub")]));
    expect(JSON.parse(dry.stdout).entries[0].missing).toBe(false);

    const saved = await fleet.cli(["save", "odd"]);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(`saved 'odd': 2 task(s) → `);
    expect(saved.stdout).toContain(
      `; warning: 2 directory names are not UTF-8 and saved with U+FFFD (${parent}/bad\ufffdname, ${parent}/bad\ufffdname/sub), so a load will skip them`,
    );
    const recipe = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", "odd.json"), "utf8"));
    expect(Object.keys(recipe.dirs).sort()).toEqual([`${parent}/bad\ufffdname`, `${parent}/bad\ufffdname/sub`]);
  });
});

describe("a recipe file that is not there", () => {
  test("is reported as no such file, by load, the dry run and recover", async () => {
    const missing = join(fleet.sandbox.home, "nothere.json");
    for (const args of [
      ["load", missing],
      ["load", "--dry-run", missing],
      ["recover", "--dry-run", missing],
      ["recover", missing],
    ]) {
      expect({ args, ...(await fleet.cli(args)) }).toEqual({ args, code: 1, stdout: "", stderr: `fleetcom: no such file: ${missing}\n` });
    }
    const relative = await fleet.cli(["load", "./nope"]);
    expect(relative.stderr).toBe(
      "fleetcom: no saved session './nope' (a recipe file is given by a path ending in .json; fleetcom sessions lists the saved ones)\n",
    );
  });

  test("a recipe bigger than a request frame (one 5 MiB command) is one line naming the file, never a lost connection", async () => {
    const file = join(fleet.sandbox.home, "h.json");
    writeFileSync(file, JSON.stringify({ "/tmp": [`true ${"#".repeat(5 * 1024 * 1024)}`] }));
    expect(await fleet.cli(["load", file])).toEqual({
      code: 1,
      stdout: "",
      stderr: `fleetcom: ${file}: command too long (5242885 bytes; at most 64 KiB) in /tmp\n`,
    });
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
