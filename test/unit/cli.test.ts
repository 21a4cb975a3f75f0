// The shapes of the commands people run in loops or often (`ls`, `ls --json`, `config`,
// `config --json`, `sessions`, `sessions --json`, `attach TASK`) run without
// loading citty (cli.ts plainArgs): they must get exactly the arguments citty would have parsed, and
// every other shape must still go through citty.
import { expect, test } from "bun:test";
import { parseArgs } from "citty";
import { plainArgs } from "../../src/cli.ts";
import ls from "../../src/cmd-ls.ts";
import attach from "../../src/cmd-attach.ts";
import config from "../../src/cmd-config.ts";
import sessions from "../../src/cmd-sessions.ts";

test("the plain shapes get exactly the arguments citty would parse, and nothing else is plain", async () => {
  for (const [def, argv] of [
    [ls, ["ls"]],
    [ls, ["ls", "--json"]],
    [attach, ["attach", "3"]],
    [attach, ["attach", "web server"]],
    [config, ["config"]],
    [config, ["config", "--json"]],
  ] as const) {
    expect(plainArgs([...argv])).toEqual(parseArgs(argv.slice(1), def.args as never));
  }
  // `sessions` runs its default subcommand, `list`, which gets the words after `sessions`.
  const list = await (sessions.subCommands as Record<string, () => Promise<typeof sessions>>)[sessions.default as string]!();
  for (const argv of [["sessions"], ["sessions", "--json"]]) expect(plainArgs(argv)).toEqual(parseArgs(argv.slice(1), list.args as never));
  for (const argv of [
    ["ls", "--jsn"],
    ["ls", "--json", "x"],
    ["attach"],
    ["attach", "--help"],
    ["attach", "1", "2"],
    ["attach", "--detach-key", "ctrl-a", "1"],
    ["run", "x"],
    ["config", "--reload"],
    ["config", "--json", "--reload"],
    ["sessions", "rm", "x"],
    ["sessions", "list", "--json"],
  ]) {
    expect(plainArgs(argv)).toBeNull();
  }
});
