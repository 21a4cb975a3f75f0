// Tokens through the real binary (issue 44, Tokens and context): a fake Claude whose transcript
// records usage as Claude writes it (each message streamed over several lines) shows it in `ls
// --json`, `ls` and `fleetcom usage`, follows the store as it grows with each turn, and an agent
// whose store records none shows `—`, never a guess; money only at the prices config.toml gives.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installFakeAgents } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";

let fleet: Fleet;
beforeEach(() => {
  fleet = new Fleet();
  installFakeAgents(fleet);
});
afterEach(() => fleet.stop());

async function ready(command: string): Promise<number> {
  const id = await fleet.run(command);
  await until(`task ${id} to be ready`, async () => (await fleet.peek(id)).includes(" ready"));
  return id;
}

async function turn(id: number, text: string): Promise<void> {
  const before = (await fleet.peek(id)).split("turn done").length;
  await fleet.ok(["send", String(id), text]);
  await until(`task ${id} to finish a turn`, async () => (await fleet.peek(id)).split("turn done").length > before);
}

const lsJson = async () => JSON.parse(await fleet.ok(["ls", "--json"])) as { id: number; usage: unknown }[];

test("a Claude task's tokens from its transcript: in ls --json, followed turn by turn, totalled by usage", async () => {
  const claude = await ready("claude");
  const grok = await ready("grok");
  expect((await fleet.task(claude)).usage).toBeNull();

  await turn(claude, "first");
  const first = { model: "claude-fake-1", input: 10, output: 100, cacheRead: 1000, cacheWrite: 500, context: { used: 1510, window: null } };
  await until("the first turn's usage", async () => JSON.stringify((await fleet.task(claude)).usage) === JSON.stringify(first));

  await turn(claude, "second");
  const second = { model: "claude-fake-1", input: 20, output: 200, cacheRead: 3000, cacheWrite: 1000, context: { used: 2510, window: null } };
  await until("the second turn's usage", async () => JSON.stringify((await fleet.task(claude)).usage) === JSON.stringify(second));

  const rows = await lsJson();
  expect(rows.find((t) => t.id === claude)!.usage).toEqual(second);
  expect(rows.find((t) => t.id === grok)!.usage).toBeNull();

  const table = await fleet.ok(["ls"]);
  expect(table.split("\n")[0]).toContain("TOKENS");
  expect(table.split("\n").find((l) => l.startsWith(`${claude} `))).toContain("4k tok");
  expect(table.split("\n").find((l) => l.startsWith(`${grok} `))).toContain("—");

  const totals = JSON.parse(await fleet.ok(["usage", "--json"]));
  expect(totals).toEqual([
    { agent: "claude", model: "claude-fake-1", host: null, tasks: 1, input: 20, output: 200, cacheRead: 3000, cacheWrite: 1000, total: 4220, cost: null },
  ]);
  const text = await fleet.ok(["usage"]);
  expect(text).toContain("claude-fake-1");
  expect(text).toContain("1 agent task(s) whose store records no tokens: grok");
  expect(text).not.toContain("COST");

  writeFileSync(join(fleet.sandbox.config, "config.toml"), '[prices."claude-fake-1"]\ninput = 3\noutput = 15\ncache_read = 0.3\ncache_write = 3.75\n');
  const priced = JSON.parse(await fleet.ok(["usage", "--json"]));
  expect(priced[0].cost).toBeCloseTo((20 * 3 + 200 * 15 + 3000 * 0.3 + 1000 * 3.75) / 1_000_000, 12);
  expect(await fleet.ok(["usage"])).toContain("COST");

  expect(JSON.parse(await fleet.ok(["usage", "--json", "-g", "nosuch"]))).toEqual([]);
});

test("bad input: --since that is no age, and a price that is no number, are one line naming them", async () => {
  const r = await fleet.cli(["usage", "--since", "yesterday"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("--since: expected an age such as 30m, 12h, 1d or 2w, got 'yesterday'");
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), '[prices."m1"]\ninput = "cheap"\n');
  const bad = await fleet.cli(["usage", "--json"]);
  expect(bad.code).toBe(0);
  expect(bad.stderr).toContain('config.toml:1: prices."m1": expected input, output, cache_read, cache_write as numbers');
});

test("a corrupt line in the transcript is skipped, counted in the daemon log, and never stops the reading", async () => {
  const claude = await ready("claude");
  await turn(claude, "first");
  await until("the first turn's usage", async () => (await fleet.task(claude)).usage?.output === 100);
  const { conversation, cwd } = await fleet.task(claude);
  const transcript = join(fleet.sandbox.home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"), `${conversation}.jsonl`);
  appendFileSync(transcript, '{"type":"assistant","message":{"id":"msg_cut","usage":{"output_tokens":5\n');
  await turn(claude, "second");
  await until("the second turn's usage", async () => (await fleet.task(claude)).usage?.output === 200);
  const log = join(fleet.sandbox.runtime, "daemon.log");
  await until("the log line", () => existsSync(log) && readFileSync(log, "utf8").includes(`task ${claude}: claude's store: 1 malformed line(s) skipped`));
});

test("a Codex task's tokens from its rollout's token_count events, with the context window Codex records", async () => {
  const codex = await ready("codex");
  await turn(codex, "first");
  await turn(codex, "second");
  const expected = { model: "gpt-fake-codex", input: 2000, output: 100, cacheRead: 2000, cacheWrite: 0, context: { used: 2000, window: 272000 } };
  await until("both turns' usage", async () => JSON.stringify((await fleet.task(codex)).usage) === JSON.stringify(expected));
});
