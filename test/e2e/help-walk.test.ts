// `--help` and argument errors, walked over every command and subcommand (issue 40, item 10): every
// argument and option has a description written for it, and a command given too little says what is
// missing in one plain line with its usage, never the argument parser's own sentence, and starts
// nothing.
import { afterAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ArgDef, CommandDef } from "citty";
import { SUBCOMMANDS } from "../../src/cli-commands.ts";
import { makeSandbox, runFleetcom } from "../harness/helpers.ts";

const sandbox = makeSandbox();
const cli = (args: string[]) => runFleetcom(args, { env: sandbox.env, cwd: sandbox.home });
const daemonStarted = () => existsSync(join(sandbox.runtime, "default.sock")) || existsSync(join(sandbox.runtime, "daemon.lock"));
afterAll(async () => {
  if (daemonStarted()) await cli(["--kill"]);
  sandbox.cleanup();
});

/** Every command and subcommand by its path, with its own table. */
async function commands(): Promise<{ path: string[]; args: Record<string, ArgDef> }[]> {
  const out: { path: string[]; args: Record<string, ArgDef> }[] = [];
  for (const [name, lazy] of Object.entries(SUBCOMMANDS)) {
    const def = await lazy();
    out.push({ path: [name], args: (def.args ?? {}) as Record<string, ArgDef> });
    for (const [sub, subLazy] of Object.entries((def.subCommands ?? {}) as Record<string, () => Promise<CommandDef<any>>>)) {
      out.push({ path: [name, sub], args: ((await subLazy()).args ?? {}) as Record<string, ArgDef> });
    }
  }
  return out;
}

/** The rows of a help page's Arguments and Options sections: [label, description]. */
function rows(help: string): [string, string][] {
  const found: [string, string][] = [];
  let inSection = false;
  for (const line of help.split("\n")) {
    if (/^(Arguments|Options):$/.test(line)) inSection = true;
    else if (/^\S/.test(line) || line === "") inSection = line === "" ? inSection : false;
    else if (inSection) {
      // `??`: a one-letter label (`N`) is a label too, not the start of one running into its description.
      const [, label, description] = /^ {2}(\S(?:.*?\S)??)(?: {2,}(.*))?$/.exec(line) ?? [];
      found.push([label ?? line, description ?? ""]);
    }
  }
  return found;
}

// One capital letter standing for a value (`S seconds`, `group G`) must be one the row names.
const LONE_LETTERS = /(?<![\w{"'-])([B-HJ-Z])(?![\w}"'=-])/g;

test("every argument and option of every command has a description of its own in --help", async () => {
  const all = await commands();
  expect(all.length).toBeGreaterThan(30);
  for (const { path, args } of all) {
    const r = await cli([...path, "--help"]);
    expect({ path, code: r.code, stderr: r.stderr }).toEqual({ path, code: 0, stderr: "" });
    for (const [label, description] of rows(r.stdout)) {
      const name = label
        .replace(/^-\w, /, "")
        .replace(/^--(no-)?/, "")
        .split(/[ [=]/)[0]!;
      const bare = description
        .replace(/[….[\]]/g, "")
        .trim()
        .toUpperCase();
      expect({ path, label, description: description !== "" && bare !== name.toUpperCase() && bare !== label.toUpperCase() }).toEqual({
        path,
        label,
        description: true,
      });
      const lone = [...description.replaceAll(/\{[^}]*\}/g, "").matchAll(LONE_LETTERS)].map((m) => m[1]!).filter((l) => !label.includes(l));
      expect({ path, label, lone }).toEqual({ path, label, lone: [] });
    }
    // A flag that takes a value names it (`--timeout SECONDS`, not `--timeout TIMEOUT`).
    for (const [flag, arg] of Object.entries(args)) {
      if (arg.type === "string") expect({ path, flag, valueHint: typeof arg.valueHint }).toEqual({ path, flag, valueHint: "string" });
    }
  }
}, 120_000);

test("the report's help lines: --no-enter, --worktree's BRANCH, wait's --timeout, grep's PATTERN, rename's NAME", async () => {
  const help = async (...path: string[]) => rows((await cli([...path, "--help"])).stdout);
  const row = async (path: string[], label: RegExp) => (await help(...path)).find(([l]) => label.test(l));
  expect((await row(["send"], /^--no-enter$/))?.[1]).toBe("Type the text without pressing Enter after it");
  expect((await row(["run"], /^--worktree/))?.[0]).toBe("--worktree[=BRANCH]");
  expect(await row(["wait"], /^--timeout/)).toEqual(["--timeout SECONDS", "Give up after SECONDS (exit 124)"]);
  expect((await row(["grep"], /^PATTERN$/))?.[1]).not.toContain("PATTERN");
  expect((await row(["rename"], /^NAME$/))?.[1]).not.toBe("");
});

test("every command given too little says what is missing with its usage, in one line, exit 2, and starts nothing", async () => {
  const all = await commands();
  const walked: string[] = [];
  for (const { path } of all) {
    const usage = /^Usage: (.*)$/m.exec((await cli([...path, "--help"])).stdout)?.[1] ?? "";
    // An operand without brackets is needed; wait needs --for besides its TASK.
    const needs =
      usage
        .replace(/\[[^\]]*\]/g, "")
        .replace(`fleetcom ${path.join(" ")}`, "")
        .trim() !== "" || path[0] === "wait";
    if (!needs) continue;
    walked.push(path.join(" "));
    const r = await cli(path);
    expect({ path, ...r }).toEqual({ path, code: 2, stdout: "", stderr: expect.stringMatching(new RegExp(`^fleetcom: ${path.join(" ")}: [^\\n]+\\n$`)) });
    expect({ path, stderr: r.stderr }).toEqual({ path, stderr: expect.not.stringMatching(/Missing required|Unknown command/) });
  }
  expect(walked).toEqual(expect.arrayContaining(["run", "peek", "logs", "grep", "send", "wait", "kill", "rm", "rerun", "rename", "group", "tag", "save"]));
  expect(walked).toEqual(expect.arrayContaining(["sessions rm", "sessions mv", "hosts add", "hosts rm"]));
  expect(await cli(["send"])).toEqual({ code: 2, stdout: "", stderr: "fleetcom: send: missing TASK (usage: fleetcom send [OPTIONS] TASK [TEXT…])\n" });
  expect(daemonStarted()).toBe(false);
}, 120_000);

test("a bad value is named before anything missing; a file that is no .json is not looked for as a session file", async () => {
  expect(await cli(["wait", "dev", "--timeout", "abc"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "fleetcom: wait: --timeout: expected a number of seconds, got 'abc'\n",
  });
  writeFileSync(join(sandbox.home, "x.txt"), "x: 1\n");
  const other = await cli(["load", "--dry-run", "./x.txt"]);
  expect(other).toEqual({
    code: 1,
    stdout: "",
    stderr: "fleetcom: no saved session './x.txt' (a recipe file is given by a path ending in .json; fleetcom sessions lists the saved ones)\n",
  });
  // A .yaml file is a process-compose file to import (docs/services.md): its own problem, naming it.
  writeFileSync(join(sandbox.home, "x.yaml"), "x: 1\n");
  expect(await cli(["load", "--dry-run", "./x.yaml"])).toEqual({
    code: 2,
    stdout: "",
    stderr: `fleetcom: ${join(sandbox.home, "x.yaml")}: processes: expected a map of processes\n`,
  });
  expect(daemonStarted()).toBe(false);
});
