// `run -- CMD…` (cli.md): one word after `--` is a shell command line; several words are an argv,
// stored as the shell-quoted join that `$SHELL -c` runs as exactly that argv, and that shows readably
// and survives a save and a load. The quoting itself (text-shell.ts) is test/unit/text-shell.test.ts.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { shellJoin } from "../../src/text-shell.ts";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";
import { SHELL_HOSTILE_WORDS } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

/** The id run printed; a task that failed at once is said on stderr (exit 1), and started all the same. */
async function started(args: string[]): Promise<number> {
  const r = await fleet.cli(["run", ...args]);
  const failedAtOnce = r.code === 1 && /^fleetcom: task \d+ .* at once/.test(r.stderr);
  expect({ code: r.code, stderr: failedAtOnce ? "" : r.stderr }).toEqual({ code: failedAtOnce ? 1 : 0, stderr: "" });
  return Number(r.stdout.trim());
}

describe("run -- CMD…", () => {
  test("several words run as exactly that argv: sh -c 'exit 7' exits 7, printf '%s\\n' 'a b' prints one line", async () => {
    const seven = await started(["--", "sh", "-c", "exit 7"]);
    const printf = await started(["--", "printf", "%s\\n", "a b"]);
    expect(await fleet.waitForExit(seven)).toMatchObject({ exitCode: 7, command: "sh -c 'exit 7'" });
    const done = await fleet.waitForExit(printf);
    expect(done.command).toBe("printf '%s\\n' 'a b'");
    expect((await fleet.peek(printf)).trimEnd()).toBe("a b");
  });

  test("one word is a shell command line, run by the shell as typed", async () => {
    const id = await started(["--", "echo one | tr o 0; exit 3"]);
    const done = await fleet.waitForExit(id);
    expect(done).toMatchObject({ exitCode: 3, command: "echo one | tr o 0; exit 3" });
    expect((await fleet.peek(id)).trimEnd()).toBe("0ne");
  });

  test("hostile words reach the program unchanged, and the stored command survives save and load", async () => {
    // One bracketed line per argument, so an argument split, joined, expanded or lost shows.
    const argv = ["printf", "[%s]\\n", ...SHELL_HOSTILE_WORDS];
    const expected = SHELL_HOSTILE_WORDS.map((w) => `[${w}]`).join("\n");
    const first = await started(["--name", "hostile", "--", ...argv]);
    const stored = (await fleet.waitForExit(first)).command;
    expect(stored).toBe(shellJoin(argv));
    expect((await fleet.ok(["peek", "--lines", "100", String(first)])).trimEnd()).toBe(expected);

    expect(await fleet.ok(["save", "argv"])).toContain("saved 'argv': 1 task(s)");
    const file = join(fleet.sandbox.config, "sessions", "argv.json");
    expect(JSON.parse(readFileSync(file, "utf8")).dirs["~"]).toEqual([{ cmd: stored, name: "hostile" }]);
    await fleet.ok(["rm", String(first)]);
    expect(await fleet.ok(["load", "argv"])).toContain("loaded 'argv': 1 task(s)");
    const [again] = await fleet.ls();
    const reloaded = await fleet.waitForExit(again!.id);
    expect(reloaded.command).toBe(stored);
    expect((await fleet.ok(["peek", "--lines", "100", String(again!.id)])).trimEnd()).toBe(expected);
  });

  test("ls shows the stored command readably: only the words that need it are quoted", async () => {
    await started(["--", "sleep", "600"]);
    await started(["--", "sh", "-c", "sleep 601"]);
    const table = (await fleet.ok(["ls"])).split("\n");
    expect(table.find((l) => /^1 /.test(l))).toContain(" sleep 600 ");
    expect(table.find((l) => /^2 /.test(l))).toContain(" sh -c 'sleep 601' ");
  });
});

describe("run --env K=V", () => {
  test("sets each variable over the environment the task would get, later ones winning; a rerun keeps them", async () => {
    const id = await started([
      "--env",
      "GREETING=hi there",
      "--env=HOME=/elsewhere",
      "--env",
      "EXTRA=a=b",
      "--env",
      "EXTRA=last",
      "--",
      'echo "[$GREETING][$HOME][$EXTRA]"',
    ]);
    await fleet.waitForExit(id);
    expect((await fleet.peek(id)).trim()).toBe("[hi there][/elsewhere][last]");
    await fleet.ok(["rerun", String(id)]);
    await fleet.waitForTask(id, "to finish its second run", (t) => t.run === 2 && t.state === "exited");
    expect((await fleet.peek(id)).trim()).toBe("[hi there][/elsewhere][last]");
    // A task started without it gets the environment unchanged.
    const plain = await started(["--", 'echo "[$GREETING][$HOME]"']);
    await fleet.waitForExit(plain);
    expect((await fleet.peek(plain)).trim()).toBe(`[][${fleet.sandbox.home}]`);
  });

  test("anything but K=V with K a variable name is refused in one line, exit 2, and nothing starts", async () => {
    for (const bad of [["--env", "1X=y"], ["--env", "NOEQ"], ["--env=", "x"], ["--env"], ["--env", "A-B=1"]]) {
      const r = await fleet.cli(["run", ...bad, "--", "touch started"]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("run: --env expects K=V with K a variable name");
    }
    expect(await fleet.ls()).toEqual([]);
  });
});
