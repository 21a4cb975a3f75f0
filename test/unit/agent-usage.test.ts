// A task's tokens read from each agent's own store (src/agent-usage.ts), the stores laid out and
// their records shaped as the real CLIs write them: summed right, read incrementally as the store
// grows during a turn, a malformed line skipped and counted, an over-long line and a FIFO survived.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, openSync, writeSync, closeSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { JsonlUsage, READ_MAX, usageStoreFor } from "../../src/agent-usage.ts";
import { claudeUsageReader } from "../../src/agent-usage-records.ts";
import { declaredAgent } from "../../src/agent-declared.ts";
import { ID, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

const CWD = "/work/my.app";
const lines = (...records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join("");

/** One line of a Claude transcript as Claude 2.x writes an assistant message's content block while it streams. */
function claudeBlock(messageId: string, output: number, block: object, usage: Partial<Record<string, number>> = {}) {
  return {
    parentUuid: "9f1c8a51-57b5-4a7e-a0d4-a4a3ad1f6a11",
    isSidechain: false,
    userType: "external",
    cwd: CWD,
    sessionId: ID,
    version: "2.1.332",
    gitBranch: "main",
    message: {
      id: messageId,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 4,
        cache_creation_input_tokens: 1200,
        cache_read_input_tokens: 15000,
        cache_creation: { ephemeral_5m_input_tokens: 1200, ephemeral_1h_input_tokens: 0 },
        output_tokens: output,
        service_tier: "standard",
        ...usage,
      },
    },
    requestId: `req_${messageId}`,
    type: "assistant",
    uuid: crypto.randomUUID(),
    timestamp: "2026-12-04T19:20:01.000Z",
  };
}

const claudeUser = { parentUuid: null, isSidechain: false, cwd: CWD, sessionId: ID, type: "user", message: { role: "user", content: "fix the test" } };

function claudeStore() {
  return tmp.file(`.claude/projects/${CWD.replace(/[^A-Za-z0-9]/g, "-")}/${ID}.jsonl`);
}

const where = () => ({ cwd: CWD, env: { HOME: tmp.root } });

describe("Claude's transcript", () => {
  test("each message counts once, as its last streamed line says, and the context is the last message's input", () => {
    const path = claudeStore();
    appendFileSync(
      path,
      lines(
        claudeUser,
        claudeBlock("msg_01A", 8, { type: "thinking", thinking: "…", signature: "x" }),
        claudeBlock("msg_01A", 120, { type: "text", text: "Looking." }),
        claudeBlock("msg_01A", 250, { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }),
        { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a" }] } },
        claudeBlock("msg_01B", 40, { type: "text", text: "Done." }, { input_tokens: 6, cache_creation_input_tokens: 300, cache_read_input_tokens: 16200 }),
      ),
    );
    const store = usageStoreFor({ name: "claude" }, ID, where())!;
    store.refresh();
    expect(store.usage()).toEqual({
      model: "claude-sonnet-4-5-20250929",
      input: 4 + 6,
      output: 250 + 40,
      cacheRead: 15000 + 16200,
      cacheWrite: 1200 + 300,
      context: { used: 6 + 16200 + 300, window: null },
    });
    expect(store.malformed).toBe(0);
  });

  test("the store followed while it grows during a turn: only what was appended is read, a half-written line waits", () => {
    const path = claudeStore();
    appendFileSync(path, lines(claudeUser, claudeBlock("msg_01A", 8, { type: "text", text: "Lo" })));
    const store = usageStoreFor({ name: "claude" }, ID, where())!;
    store.refresh();
    expect(store.usage()).toMatchObject({ output: 8, input: 4 });

    // Bytes already read are not read again: overwrite them in place (same file, same size) with blanks.
    const fd = openSync(path, "r+");
    writeSync(fd, " ".repeat(JSON.stringify(claudeUser).length), 0);
    closeSync(fd);
    const next = JSON.stringify(claudeBlock("msg_01A", 120, { type: "text", text: "Looking." }));
    appendFileSync(path, `${next}\n${next.slice(0, 30)}`);
    store.refresh();
    expect(store.usage()).toMatchObject({ output: 120, input: 4, cacheRead: 15000 });

    appendFileSync(path, `${next.slice(30).replace('"msg_01A"', '"msg_01C"')}\n`);
    store.refresh();
    expect(store.usage()).toMatchObject({ output: 240, input: 8, cacheRead: 30000 });
    expect(store.malformed).toBe(0);
  });

  test("a corrupt line is skipped and counted; the lines around it are summed", () => {
    const path = claudeStore();
    appendFileSync(path, lines(claudeBlock("msg_01A", 10, { type: "text", text: "a" })));
    appendFileSync(path, '{"type":"assistant","message":{"id":"msg_bad","usage":{"output_tokens":99\n');
    appendFileSync(path, lines(claudeBlock("msg_01B", 20, { type: "text", text: "b" })));
    const store = usageStoreFor({ name: "claude" }, ID, where())!;
    store.refresh();
    expect(store.usage()).toMatchObject({ output: 30 });
    expect(store.malformed).toBe(1);
  });

  test("a line longer than a refresh reads is skipped as malformed, and the lines after it are read", () => {
    const path = claudeStore();
    appendFileSync(path, lines(claudeBlock("msg_01A", 10, { type: "text", text: "a" })));
    appendFileSync(path, `${JSON.stringify(claudeBlock("msg_huge", 5, { type: "text", text: "x".repeat(READ_MAX + 10) }))}\n`);
    appendFileSync(path, lines(claudeBlock("msg_01B", 20, { type: "text", text: "b" })));
    const file = new JsonlUsage(path, claudeUsageReader);
    for (let i = 0; i < 4; i++) file.refresh();
    expect(file.ledger.usage()).toMatchObject({ output: 30 });
    expect(file.malformed).toBe(1);
  });

  test("a store longer than one refresh reads says more waits, is read to its end over the next, and is timed by its file", () => {
    const path = claudeStore();
    const padding = "p".repeat(100_000);
    const count = Math.ceil((READ_MAX * 1.5) / padding.length);
    appendFileSync(path, lines(...Array.from({ length: count }, (_, i) => claudeBlock(`msg_${i}`, 1, { type: "text", text: padding }))));
    const written = new Date("2026-11-30T08:00:00Z");
    utimesSync(path, written, written);
    const store = usageStoreFor({ name: "claude" }, ID, where())!;
    expect(store.writtenAt()).toBeNull();
    expect(store.refresh()).toBe(true);
    expect(store.usage()!.output).toBeLessThan(count);
    expect(store.refresh()).toBe(false);
    expect(store.usage()).toMatchObject({ output: count });
    expect(store.writtenAt()).toBe(written.getTime());
  });

  test("a store replaced by a FIFO is not waited on, and one started again is read from its start", () => {
    const path = claudeStore();
    appendFileSync(path, lines(claudeBlock("msg_01A", 10, { type: "text", text: "a" })));
    const file = new JsonlUsage(path, claudeUsageReader);
    file.refresh();
    tmp.cleanup();
    tmp.dir(`.claude/projects/${CWD.replace(/[^A-Za-z0-9]/g, "-")}`);
    expect(spawnSync("mkfifo", [path]).status).toBe(0);
    file.refresh();
    expect(file.ledger.usage()).toMatchObject({ output: 10 });
    tmp.cleanup();
    tmp.file(path.slice(tmp.root.length + 1), lines(claudeBlock("msg_01Z", 3, { type: "text", text: "z" })));
    file.refresh();
    expect(file.ledger.usage()).toMatchObject({ output: 3 });
  });

  test("a transcript with no usage at all is no usage (shown `—`), not zero", () => {
    appendFileSync(claudeStore(), lines(claudeUser, { type: "summary", summary: "cleared" }));
    const store = usageStoreFor({ name: "claude" }, ID, where())!;
    store.refresh();
    expect(store.usage()).toBeNull();
  });
});

describe("Codex's rollout", () => {
  const tokenCount = (total: object, last: object | null) => ({
    timestamp: "2026-12-04T19:21:00.000Z",
    type: "event_msg",
    payload: {
      type: "token_count",
      info: last === null ? null : { total_token_usage: total, last_token_usage: last, model_context_window: 272000 },
      rate_limits: { primary: { used_percent: 7.0, window_minutes: 300, resets_at: 1763483205 }, secondary: null },
    },
  });
  const usage = (input: number, cached: number, output: number, reasoning: number) => ({
    input_tokens: input,
    cached_input_tokens: cached,
    output_tokens: output,
    reasoning_output_tokens: reasoning,
    total_tokens: input + output,
  });

  test("the last running total is the conversation's, its input less what the cache served; the window is Codex's own", () => {
    const id = "019a9776-0a34-7842-8627-112b63d66e90";
    const path = tmp.file(
      `.codex/sessions/2025/11/18/rollout-2025-11-18T21-55-50-${id}.jsonl`,
      lines(
        { timestamp: "2025-11-18T21:55:50.000Z", type: "session_meta", payload: { id, cwd: CWD, originator: "codex_cli_rs", cli_version: "0.171.0" } },
        {
          timestamp: "2025-11-18T21:55:51.000Z",
          type: "turn_context",
          payload: { cwd: CWD, approval_policy: "on-request", model: "gpt-5.1-codex", effort: "medium", summary: "auto" },
        },
        tokenCount({}, null),
        tokenCount(usage(8000, 3000, 500, 200), usage(8000, 3000, 500, 200)),
        {
          timestamp: "2025-11-18T21:56:10.000Z",
          type: "response_item",
          payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] },
        },
        tokenCount(usage(20000, 12000, 900, 300), usage(12000, 9000, 400, 100)),
      ),
    );
    expect(path).toContain(id);
    const store = usageStoreFor({ name: "codex" }, id, where())!;
    store.refresh();
    expect(store.usage()).toEqual({
      model: "gpt-5.1-codex",
      input: 8000,
      output: 900,
      cacheRead: 12000,
      cacheWrite: 0,
      context: { used: 12000, window: 272000 },
    });
  });

  test("a thread with no rollout yet has no usage, and gets it once the rollout appears", () => {
    const id = "019a9776-0a34-7842-8627-112b63d66e91";
    const store = usageStoreFor({ name: "codex" }, id, where())!;
    store.refresh();
    expect(store.usage()).toBeNull();
    tmp.file(`.codex/sessions/2025/11/18/rollout-2025-11-18T21-55-50-${id}.jsonl`, lines(tokenCount(usage(10, 0, 5, 0), usage(10, 0, 5, 0))));
    store.refresh();
    expect(store.usage()).toMatchObject({ input: 10, output: 5, model: null });
  });
});

describe("Gemini's session file", () => {
  const reply = (id: string, input: number, cached: number, output: number, thoughts: number) => ({
    id,
    timestamp: "2026-12-04T19:27:10.000Z",
    type: "gemini",
    content: "FAKE-GEMINI ok",
    thoughts: [],
    tokens: { input, output, cached, thoughts, tool: 0, total: input + output + thoughts },
    model: "gemini-3.8-flash",
  });

  test("each reply once, a `$set` of the whole list counted once, an orphan file of a resume adding nothing", () => {
    const chats = ".gemini/tmp/my.app/chats";
    tmp.file(".gemini/projects.json", JSON.stringify({ projects: { [CWD]: "my.app" } }));
    const header = { sessionId: ID, projectHash: "abc", startTime: "2026-12-04T19:27:08.000Z", lastUpdated: "2026-12-04T19:27:08.000Z", kind: "main" };
    const user = { id: "u1", timestamp: "2026-12-04T19:27:09.000Z", type: "user", content: [{ text: "remember the fruit MANGO-7" }] };
    const g1 = reply("g1", 5000, 2000, 40, 60);
    const g2 = reply("g2", 6000, 5000, 20, 0);
    tmp.file(
      `${chats}/session-2026-12-04T19-27-${ID.slice(0, 8)}.jsonl`,
      lines(
        header,
        { $set: { messages: [{ type: "user", content: [{ text: "<session_context>…" }] }] } },
        user,
        { $set: { lastUpdated: "2026-12-04T19:27:10.000Z" } },
        g1,
        g2,
        { $set: { sessionId: ID } },
        { $set: { messages: [user, g1, g2] } },
      ),
    );
    tmp.file(`${chats}/session-2026-12-04T19-32-${ID.slice(0, 8)}.jsonl`, lines(header));
    tmp.file(`${chats}/session-2026-12-04T19-33-${ID.slice(0, 8)}.jsonl`, lines({ ...header, sessionId: "00000000-0000-4000-8000-000000000000" }, g1));
    const store = usageStoreFor({ name: "gemini" }, ID, where())!;
    store.refresh();
    expect(store.usage()).toEqual({
      model: "gemini-3.8-flash",
      input: 5000 - 2000 + (6000 - 5000),
      output: 40 + 60 + 20,
      cacheRead: 2000 + 5000,
      cacheWrite: 0,
      context: { used: 6000, window: null },
    });
  });
});

describe("Qwen's transcript", () => {
  test("each assistant record once, with the window Qwen records; its telemetry records are not counted again", () => {
    const base = { sessionId: ID, cwd: CWD, version: "0.24.4", timestamp: "2026-12-04T19:40:00.000Z" };
    const assistant = (uuid: string, prompt: number, cached: number, out: number) => ({
      ...base,
      uuid,
      parentUuid: "p",
      type: "assistant",
      message: { role: "model", parts: [{ text: "FAKE-CHAT ok" }] },
      usageMetadata: {
        promptTokenCount: prompt,
        candidatesTokenCount: out,
        cachedContentTokenCount: cached,
        thoughtsTokenCount: 0,
        totalTokenCount: prompt + out,
      },
      model: "qwen3-coder-plus",
      contextWindowSize: 1000000,
    });
    tmp.file(
      `.qwen/projects/${CWD.replace(/[^A-Za-z0-9]/g, "-")}/chats/${ID}.jsonl`,
      lines(
        { ...base, uuid: "u1", parentUuid: null, type: "user", provenance: "real_user", message: { role: "user", parts: [{ text: "hi" }] } },
        assistant("a1", 9000, 0, 100),
        {
          ...base,
          uuid: "s1",
          type: "system",
          subtype: "ui_telemetry",
          systemPayload: { uiEvent: { "event.name": "qwen-code.api_response", input_token_count: 9000, output_token_count: 100 } },
        },
        assistant("a2", 9500, 8000, 50),
      ),
    );
    const store = usageStoreFor({ name: "qwen" }, ID, where())!;
    store.refresh();
    expect(store.usage()).toEqual({
      model: "qwen3-coder-plus",
      input: 9000 + 1500,
      output: 150,
      cacheRead: 8000,
      cacheWrite: 0,
      context: { used: 9500, window: 1000000 },
    });
  });
});

describe("opencode's database", () => {
  const SES = "ses_dcdea58c7ffeNrEvGBEzdnCCSL";

  test("its session's assistant messages, read read-only; another session's are not counted", () => {
    const path = join(tmp.dir(".local/share/opencode"), "opencode.db");
    const db = new Database(path);
    db.run("PRAGMA journal_mode = WAL");
    db.run(
      "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)",
    );
    const add = (id: string, session: string, data: object) => db.query("INSERT INTO message VALUES (?, ?, 1, 1, ?)").run(id, session, JSON.stringify(data));
    const assistant = (input: number, output: number, read: number, write: number) => ({
      role: "assistant",
      parentID: "msg_u",
      modelID: "claude-sonnet-4-5",
      providerID: "anthropic",
      mode: "build",
      path: { cwd: CWD, root: CWD },
      cost: 0,
      tokens: { input, output, reasoning: 10, cache: { read, write } },
      time: { created: 1, completed: 2 },
    });
    add("msg_a0", SES, { role: "user", time: { created: 1 }, agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" } });
    add("msg_a1", SES, assistant(10, 300, 14000, 900));
    add("msg_a2", SES, assistant(12, 100, 14900, 200));
    add("msg_b1", "ses_0000000000000000000000000Z", assistant(99999, 99999, 0, 0));
    const store = usageStoreFor({ name: "opencode" }, SES, where())!;
    store.refresh();
    expect(store.usage()).toEqual({
      model: "claude-sonnet-4-5",
      input: 22,
      output: 400 + 20,
      cacheRead: 28900,
      cacheWrite: 1100,
      context: { used: 12 + 14900 + 200, window: null },
    });
    expect(store.writtenAt()).toBe(2);
    add("msg_a3", SES, { ...assistant(1, 1, 0, 0), time: { created: 1_764_800_000_000, completed: 1_764_800_004_000 } });
    store.refresh();
    expect(store.usage()).toMatchObject({ input: 23, output: 420 + 1 + 10 });
    // The database holds every session: this one's time is its newest message's, not the file's.
    expect(store.writtenAt()).toBe(1_764_800_004_000);
    db.close();
  });
});

test("an agent whose store records no tokens has none to read (`—`, never a guess)", () => {
  for (const name of ["grok", "command-code", "myagent"]) expect(usageStoreFor({ name }, ID, where())).toBeNull();
});

test("a declared agent with `usage` has its store read in the shape it names; without, it has none", () => {
  const spec = { name: "myagent", match: "myagent", pin: null, selector: "--resume", store: "~/.myagent/{id}.jsonl", id: "uuid" };
  tmp.file(`.myagent/${ID}.jsonl`, lines(claudeBlock("msg_01A", 9, { type: "text", text: "a" })));
  const store = usageStoreFor(declaredAgent({ ...spec, usage: "claude" }), ID, where())!;
  store.refresh();
  expect(store.usage()).toMatchObject({ output: 9, input: 4 });
  expect(usageStoreFor(declaredAgent({ ...spec, usage: null }), ID, where())).toBeNull();
});
