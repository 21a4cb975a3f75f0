// The shapes of the commands people run in loops or often (`ls`, `config`, `sessions`, `recover`,
// `load`, `attach TASK`, and `daemon` as autostart runs it: their positionals and boolean flags) run without loading citty (cli.ts
// plainArgs): they must get exactly the arguments citty would have parsed, and every other shape
// must still go through citty.
import { expect, test } from "bun:test";
import { type ArgsDef, parseArgs } from "citty";
import { plainArgs } from "../../src/cli.ts";
import ls from "../../src/cmd-ls.ts";
import attach from "../../src/cmd-attach.ts";
import config from "../../src/cmd-config.ts";
import sessions from "../../src/cmd-sessions.ts";
import recover from "../../src/cmd-recover.ts";
import load from "../../src/cmd-load.ts";
import daemon from "../../src/cmd-daemon.ts";

test("the plain shapes get exactly the arguments citty would parse, and nothing else is plain", async () => {
  // `sessions` runs its default subcommand, `list`, which gets the words after `sessions`.
  const list = await (sessions.subCommands as Record<string, () => Promise<typeof sessions>>)[sessions.default as string]!();
  const tables: Record<string, ArgsDef> = {
    ls: ls.args as ArgsDef,
    attach: attach.args as ArgsDef,
    config: config.args as ArgsDef,
    sessions: list.args as ArgsDef,
    recover: recover.args as ArgsDef,
    load: load.args as ArgsDef,
    daemon: daemon.args as ArgsDef,
  };
  for (const argv of [
    ["ls"],
    ["ls", "--json"],
    ["attach"],
    ["attach", "3"],
    ["attach", "web server"],
    ["config"],
    ["config", "--json"],
    ["config", "--reload"],
    ["config", "--json", "--reload"],
    ["sessions"],
    ["sessions", "--json"],
    ["recover", "--list"],
    ["recover", "--list", "--json"],
    ["recover", "--latest", "--dry-run"],
    ["recover", "snap.json", "--dry-run", "--again"],
    ["load"],
    ["load", "demo", "--dry-run"],
    ["load", "--dry-run", "demo", "--json"],
    ["load", "demo", "--again"],
    ["daemon"],
  ]) {
    const table = tables[argv[0]!]!;
    expect(plainArgs(argv, table)).toEqual(parseArgs(argv.slice(1), table as never));
  }
  for (const argv of [
    ["ls", "--jsn"],
    ["ls", "--json", "x"],
    ["ls", "-v"],
    ["ls", "--verbose"],
    ["attach", "--help"],
    ["attach", "1", "2"],
    ["attach", "--detach-key", "ctrl-a", "1"],
    ["config", "--json", "--json"],
    ["config", "--json=true"],
    ["sessions", "rm", "x"],
    ["sessions", "list", "--json"],
    ["load", "demo", "--", "x"],
    ["load", "a", "b"],
    ["load", "--no-json"],
    ["recover", "-l"],
    ["daemon", "--scrollback", "10"],
  ]) {
    expect(plainArgs(argv, tables[argv[0]!])).toBeNull();
  }
  // Commands outside the list always go through citty.
  expect(plainArgs(["run", "x"], { command: { type: "positional" } })).toBeNull();
});
