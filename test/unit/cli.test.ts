// The shapes of the commands people run in loops or often (`ls`, `ls --json`, `config`,
// `config --json`, `attach TASK`) run without
// loading citty (cli.ts plainArgs): they must get exactly the arguments citty would have parsed, and
// every other shape must still go through citty.
import { expect, test } from "bun:test";
import { parseArgs } from "citty";
import { plainArgs } from "../../src/cli.ts";
import ls from "../../src/cmd-ls.ts";
import attach from "../../src/cmd-attach.ts";
import config from "../../src/cmd-config.ts";

test("the plain shapes get exactly the arguments citty would parse, and nothing else is plain", () => {
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
  ]) {
    expect(plainArgs(argv)).toBeNull();
  }
});
