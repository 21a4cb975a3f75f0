// Which host a command goes to (kit-host.ts): `--host`, FLEETCOM_HOST and `HOST:TASK`, with the
// commands' own definitions telling a TASK from a flag's value.
import { describe, expect, test } from "bun:test";
import { routeCommand, takeHostFlag } from "../../src/kit-host.ts";
import { SUBCOMMANDS } from "../../src/cli-commands.ts";

const hostNames = () => ["gpu1", "build"];

async function route(words: string[], named: string | null = null, env?: string) {
  const def = SUBCOMMANDS[words[0]!] ? await SUBCOMMANDS[words[0]!]!() : null;
  return routeCommand(words[0]!, def, words, { named, env, hostNames });
}

describe("--host", () => {
  test("is taken from the front of the words, in either spelling", () => {
    expect(takeHostFlag(["--host", "gpu1", "ls"])).toEqual({ rest: ["ls"], host: "gpu1" });
    expect(takeHostFlag(["--host=gpu1", "ls"])).toEqual({ rest: ["ls"], host: "gpu1" });
    expect(takeHostFlag(["ls", "--host", "gpu1"])).toEqual({ rest: ["ls", "--host", "gpu1"], host: null });
    expect(() => takeHostFlag(["--host"])).toThrow("--host needs a NAME");
  });

  test("sends protocol commands over the transport and file commands to run there", async () => {
    expect((await route(["ls"], "gpu1")).route).toEqual({ kind: "transport", host: "gpu1" });
    expect((await route(["save", "x"], "gpu1")).route).toEqual({ kind: "there", host: "gpu1" });
    expect((await route(["recover", "--latest"], null, "gpu1")).route).toEqual({ kind: "there", host: "gpu1" });
  });

  test("sends run --worktree and rm --worktree to run there, where the repository is; a --worktree after -- is the command's", async () => {
    expect((await route(["run", "--worktree", "feat", "--", "claude"], "gpu1")).route).toEqual({ kind: "there", host: "gpu1" });
    expect((await route(["run", "--worktree=feat", "--cwd", "/srv/repo", "--", "claude"], null, "gpu1")).route).toEqual({ kind: "there", host: "gpu1" });
    expect((await route(["run", "--", "git", "--worktree"], "gpu1")).route).toEqual({ kind: "transport", host: "gpu1" });
    expect((await route(["run", "--worktree", "--", "claude"])).route).toEqual({ kind: "here" });
    expect(await route(["rm", "--worktree", "gpu1:3"])).toEqual({ route: { kind: "there", host: "gpu1" }, words: ["rm", "--worktree", "3"] });
    expect((await route(["rm", "gpu1:3"])).route).toEqual({ kind: "transport", host: "gpu1" });
  });

  test("is refused by a command no host runs; FLEETCOM_HOST leaves it here", async () => {
    await expect(route(["hosts", "ls"], "gpu1")).rejects.toThrow("--host does not apply to 'hosts'");
    expect((await route(["bridge"], null, "gpu1")).route).toEqual({ kind: "here" });
    expect((await route(["config"], null, "gpu1")).route).toEqual({ kind: "here" });
  });
});

describe("HOST:TASK", () => {
  test("takes an added host's prefix off the TASK and goes there", async () => {
    expect(await route(["peek", "gpu1:api"])).toEqual({ route: { kind: "transport", host: "gpu1" }, words: ["peek", "api"] });
    expect(await route(["kill", "gpu1:3", "gpu1:4"])).toEqual({ route: { kind: "transport", host: "gpu1" }, words: ["kill", "3", "4"] });
  });

  test("skips a flag's value and leaves the text of send alone", async () => {
    expect((await route(["peek", "-n", "5", "gpu1:3"])).words).toEqual(["peek", "-n", "5", "3"]);
    expect((await route(["send", "gpu1:api", "build:now"])).words).toEqual(["send", "api", "build:now"]);
    expect((await route(["grep", "gpu1:x", "gpu1:3"])).words).toEqual(["grep", "gpu1:x", "3"]);
  });

  test("a prefix that is no added host is part of a local task's name", async () => {
    expect(await route(["peek", "db:migrate"])).toEqual({ route: { kind: "here" }, words: ["peek", "db:migrate"] });
  });

  test("one command's TASKs are on one host, and agree with --host", async () => {
    await expect(route(["kill", "gpu1:3", "build:4"])).rejects.toThrow("one command's TASKs must all be on one host");
    await expect(route(["kill", "gpu1:3", "4"])).rejects.toThrow("one command's TASKs must all be on one host");
    await expect(route(["peek", "gpu1:3"], "build")).rejects.toThrow("a TASK names host 'gpu1' but --host says 'build'");
    expect((await route(["peek", "gpu1:3"], "gpu1")).words).toEqual(["peek", "3"]);
  });
});
