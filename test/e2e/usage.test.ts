// Tokens through the real binary (issue 44, Tokens and context): a fake Claude whose transcript
// records usage as Claude writes it (each message streamed over several lines) shows it in `ls
// --json`, `ls` and `fleetcom usage`, follows the store as it grows with each turn, and an agent
// whose store records none shows `—`, never a guess; money only at the prices config.toml gives.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
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
    {
      agent: "claude",
      model: "claude-fake-1",
      host: null,
      tasks: 1,
      saved: 0,
      input: 20,
      output: 200,
      cacheRead: 3000,
      cacheWrite: 1000,
      total: 4220,
      cost: null,
    },
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

const usageJson = async (...flags: string[]) => JSON.parse(await fleet.ok(["usage", "--json", ...flags])) as Record<string, unknown>[];

/** Where the fake Claude, as the real one, keeps a task's transcript. */
async function claudeTranscript(id: number): Promise<string> {
  const { conversation, cwd } = await fleet.task(id);
  return join(fleet.sandbox.home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"), `${conversation}.jsonl`);
}

test("a conversation counts once while its task runs, after it is killed, and once removed from the saved session that resumes it", async () => {
  const claude = await ready("claude");
  await fleet.ok(["group", String(claude), "api"]);
  await turn(claude, "first");
  await until("the first turn's usage", async () => (await fleet.task(claude)).usage?.output === 100);
  await fleet.ok(["save", "work"]);
  const tokens = { input: 10, output: 100, cacheRead: 1000, cacheWrite: 500, total: 1610, cost: null };
  const counted = (tasks: number, saved: number) => [{ agent: "claude", model: "claude-fake-1", host: null, tasks, saved, ...tokens }];

  // The task, its saved session's entry and its recovery snapshot's are one conversation.
  expect(await usageJson()).toEqual(counted(1, 0));
  await fleet.ok(["kill", String(claude)]);
  expect(await usageJson()).toEqual(counted(1, 0));

  await fleet.ok(["rm", String(claude)]);
  expect(await usageJson()).toEqual(counted(0, 1));
  expect(await usageJson("-g", "api")).toEqual(counted(0, 1));
  expect(await usageJson("-g", "web")).toEqual([]);
  const text = await fleet.ok(["usage"]);
  expect(text.split("\n")[0]).toContain("SAVED");
  expect(text.split("\n").find((l) => l.startsWith("claude "))).toMatch(/claude-fake-1\s+-\s+0\s+1\s/);
});

test("--since keeps a conversation by when its store last recorded tokens: an older saved one is left out", async () => {
  const old = await ready("claude");
  await turn(old, "first");
  await until("the old conversation's usage", async () => (await fleet.task(old)).usage?.output === 100);
  const oldTranscript = await claudeTranscript(old);
  await fleet.ok(["save", "earlier"]);
  await fleet.ok(["kill", String(old)]);
  await fleet.ok(["rm", String(old)]);
  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
  utimesSync(oldTranscript, threeDaysAgo, threeDaysAgo);

  const recent = await ready("claude");
  await turn(recent, "first");
  await turn(recent, "second");
  await until("the recent conversation's usage", async () => (await fleet.task(recent)).usage?.output === 200);

  const all = await usageJson();
  expect(all).toHaveLength(1);
  expect(all[0]).toMatchObject({ tasks: 1, saved: 1, output: 300 });
  expect(await usageJson("--since", "1w")).toEqual(all);
  expect((await usageJson("--since", "1d"))[0]).toMatchObject({ tasks: 1, saved: 0, output: 200 });
});

test("a conversation only an earlier fleet's recovery snapshot resumes still counts, as saved, after that fleet is gone", async () => {
  const claude = await ready("claude");
  await turn(claude, "first");
  await until("the first turn's usage", async () => (await fleet.task(claude)).usage?.output === 100);
  const { conversation } = await fleet.task(claude);
  const recovery = join(fleet.sandbox.config, "sessions", "recovery");
  await until(
    "a snapshot that resumes the conversation",
    () =>
      existsSync(recovery) &&
      readdirSync(recovery).some((f) => f.endsWith(".json") && readFileSync(join(recovery, f), "utf8").includes(`--resume '${conversation}'`)),
  );
  await fleet.ok(["--kill", "--yes"]);
  // A new daemon, started by the next command, runs no task: the conversation is the snapshot's alone.
  expect(await usageJson()).toEqual([
    {
      agent: "claude",
      model: "claude-fake-1",
      host: null,
      tasks: 0,
      saved: 1,
      input: 10,
      output: 100,
      cacheRead: 1000,
      cacheWrite: 500,
      total: 1610,
      cost: null,
    },
  ]);
  expect(await fleet.ok(["ls", "--json"])).toBe("[]\n");
});

test("a removed Codex task's conversation is read from its rollout through the saved session's resume form", async () => {
  const codex = await ready("codex");
  await turn(codex, "first");
  await turn(codex, "second");
  await until("both turns' usage", async () => (await fleet.task(codex)).usage?.input === 2000);
  await fleet.ok(["save", "review"]);
  await fleet.ok(["kill", String(codex)]);
  await fleet.ok(["rm", String(codex)]);
  expect(await usageJson()).toEqual([
    {
      agent: "codex",
      model: "gpt-fake-codex",
      host: null,
      tasks: 0,
      saved: 1,
      input: 2000,
      output: 100,
      cacheRead: 2000,
      cacheWrite: 0,
      total: 4100,
      cost: null,
    },
  ]);
});
