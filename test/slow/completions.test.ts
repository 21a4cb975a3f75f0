// Completion scripts through the real program: bash loads the script and its completion function is
// driven with the words of a command line, as bash itself would call it; zsh and fish at least parse
// theirs. The dynamic lists come from `completions --list`, which must never start a daemon.
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

/**
 * A test that needs `shell` installed. Without it the test is skipped, except under CI (`CI=true`),
 * where it fails: `.ci/run` installs zsh and fish, so a skip there would hide a broken script.
 */
function withShell(shell: "zsh" | "fish", name: string, body: () => Promise<void>): void {
  if (Bun.which(shell)) test(name, body);
  else if (process.env.CI === "true")
    test(name, () => {
      throw new Error(`${shell} is not installed; .ci/run installs it so that CI never skips this test`);
    });
  else test.skip(name, body);
}

/** A copy of this checkout's src/ and package.json (Deno resolves packages by it) under `dir`, which may hold a space, sharing node_modules; its main.ts. */
function checkoutUnder(dir: string): string {
  mkdirSync(dir, { recursive: true });
  cpSync(resolve(import.meta.dir, "../../src"), join(dir, "src"), { recursive: true });
  cpSync(resolve(import.meta.dir, "../../package.json"), join(dir, "package.json"));
  symlinkSync(resolve(import.meta.dir, "../../node_modules"), join(dir, "node_modules"));
  return join(dir, "src", "main.ts");
}

/** Runs `lines` in a fish without config and returns what it printed; anything on stderr fails. */
async function fish(lines: string[]): Promise<string> {
  const proc = Bun.spawn(["fish", "--no-config", "-c", lines.join("\n")], { env: fleet.env, cwd: fleet.sandbox.home, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  return out;
}

/** Completes each command line (the last word is the one being completed) in one bash, one result per line. */
async function bashComplete(lines: string[][]): Promise<string[][]> {
  const script = join(fleet.sandbox.root, "fleetcom.bash");
  writeFileSync(script, await fleet.ok(["completions", "bash"]));
  const driver = [
    `source ${script}`,
    `complete -p fleetcom`,
    ...lines.map((words) => {
      const quoted = words.map((w) => `'${w}'`).join(" ");
      return `COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _fleetcom; (IFS=$'\\x1f'; printf '%s\\n' "\${COMPREPLY[*]}")`;
    }),
  ].join("\n");
  const proc = Bun.spawn(["bash", "--norc", "--noprofile", "-c", driver], { env: fleet.env, cwd: fleet.sandbox.home, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`bash exited ${code}: ${err}`);
  const [registration, ...results] = out.trimEnd().split("\n");
  expect(registration).toBe("complete -F _fleetcom fleetcom");
  return results.map((r) => r.split("\x1f").filter(Boolean));
}

describe("fleetcom completions", () => {
  test("bash completes subcommands, session names, live task ids and names, flags and sub-commands", async () => {
    await fleet.ok(["run", "--name", "web", "--", "sleep 600"]);
    await fleet.ok(["run", "--", "sleep 601"]);
    await fleet.ok(["save", "work"]);
    await fleet.ok(["save", "weekend"]);
    const [top, sessionWord, loadTarget, attachTarget, byName, killSecond, renameSecond, peekFlags, sessionsSub, sessionsRm, shells] = await bashComplete([
      ["fleetcom", "se"],
      ["fleetcom", "we"],
      ["fleetcom", "load", "wo"],
      ["fleetcom", "attach", ""],
      ["fleetcom", "peek", "w"],
      ["fleetcom", "kill", "1", ""],
      ["fleetcom", "rename", "1", ""],
      ["fleetcom", "peek", "--f"],
      ["fleetcom", "sessions", ""],
      ["fleetcom", "sessions", "rm", "w"],
      ["fleetcom", "completions", ""],
    ]);
    expect(top).toEqual(["send", "sessions", "service"]);
    expect(sessionWord).toEqual(["web", "weekend"]); // a command and a session, both
    expect(loadTarget).toEqual(["work"]);
    expect(attachTarget).toEqual(["1", "2", "web"]);
    expect(byName).toEqual(["web"]);
    expect(killSecond).toEqual(["1", "2", "web"]);
    expect(renameSecond).toEqual([]);
    expect(peekFlags).toEqual(["--follow"]);
    expect(sessionsSub).toEqual(["list", "rm", "mv"]);
    expect(sessionsRm).toEqual(["weekend", "work"]);
    expect(shells).toEqual(["bash", "zsh", "fish"]);
  });

  test("a session name with a space completes quoted for the shell", async () => {
    await fleet.ok(["run", "--", "sleep 600"]);
    await fleet.ok(["save", "my work"]);
    const [candidates] = await bashComplete([["fleetcom", "load", "my"]]);
    expect(candidates).toEqual(["my\\ work"]);
  });

  test("--list tasks without a daemon prints nothing and starts none", async () => {
    const r = await fleet.cli(["completions", "--list", "tasks"]);
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(existsSync(join(fleet.sandbox.runtime, "default.sock"))).toBe(false);
    expect((await fleet.cli(["status"])).code).toBe(3);
  });

  test("--list prints one id or name per line with a tab-separated description", async () => {
    await fleet.ok(["run", "--name", "api", "--", "sleep 600"]);
    await fleet.ok(["save", "work"]);
    expect(await fleet.ok(["completions", "--list", "tasks"])).toBe("1\tapi\napi\ttask 1\n");
    expect(await fleet.ok(["completions", "--list", "sessions"])).toBe("work\n");
  });

  test("an unknown shell or list is a usage error", async () => {
    const shell = await fleet.cli(["completions", "tcsh"]);
    expect(shell.code).toBe(2);
    expect(shell.stderr).toContain("bash, zsh, fish");
    expect((await fleet.cli(["completions", "--list", "nope"])).code).toBe(2);
  });

  withShell("fish", "fish completes tasks and sessions when fleetcom is installed under a path with a space", async () => {
    await fleet.ok(["run", "--name", "web", "--", "sleep 600"]);
    await fleet.ok(["save", "work"]);
    const main = checkoutUnder(join(fleet.sandbox.root, "my tools"));
    const generate = Bun.spawn(fleetcomArgv(["completions", "fish"], main), { env: fleet.env, stdout: "pipe", stderr: "pipe" });
    const script = await new Response(generate.stdout).text();
    expect(await generate.exited).toBe(0);
    expect(script).toContain("my tools/src/main.ts");
    const file = join(fleet.sandbox.root, "fleetcom.fish");
    writeFileSync(file, script);
    const out = await fish([`source '${file}'`, "complete -C 'fleetcom attach '", "echo ===", "complete -C 'fleetcom load w'"]);
    const [tasks, sessions] = out.split("===\n").map((part) =>
      part
        .trimEnd()
        .split("\n")
        .map((line) => line.split("\t")[0]),
    );
    expect(tasks).toEqual(["1", "web"]);
    expect(sessions).toContain("work");
  });

  for (const [shell, check] of [
    ["zsh", ["zsh", "-n"]],
    ["fish", ["fish", "-n"]],
  ] as const) {
    withShell(shell, `the ${shell} script parses`, async () => {
      const file = join(fleet.sandbox.root, `fleetcom.${shell}`);
      writeFileSync(file, await fleet.ok(["completions", shell]));
      const r = Bun.spawnSync([...check, file], { stderr: "pipe" });
      expect(r.stderr.toString()).toBe("");
      expect(r.exitCode).toBe(0);
    });
  }
});
