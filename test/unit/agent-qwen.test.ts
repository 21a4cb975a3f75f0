// Qwen Code's part (src/agent-qwen.ts): the pin, the exit hint and the store under its Claude-style slug.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { detect } from "../../src/agent.ts";
import { qwen } from "../../src/agent-qwen.ts";
import { assetsIn, HOSTILE, ID, ID2, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

describe("qwen", () => {
  test("a bare start is pinned with --session-id; a resume adds nothing", () => {
    const bare = qwen.instrument(detect("qwen", [qwen])!, assetsIn(tmp.root), {})!;
    expect(bare).toEqual({ args: ["--session-id", `'${bare.pinned}'`], env: {}, pinned: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(qwen.instrument(detect(`qwen --resume '${ID}'`, [qwen])!, assetsIn(tmp.root), {})).toEqual({ args: [], env: {}, pinned: ID });
  });

  test.each([
    ["a run line", [`To continue this session, run qwen --resume ${ID}`], ID],
    ["a path", [`/usr/local/bin/qwen --resume ${ID}`], ID],
    ["the last one", [`qwen --resume ${ID2}`, `qwen --resume ${ID}`], ID],
    ["its refusal", [`No saved session found with ID ${ID}. Run \`qwen --resume\` without an ID to choose from existing sessions.`], null],
    ...HOSTILE.map((h) => [`hostile ${h}`, [`qwen --resume ${h}`], null] as [string, string[], null]),
  ])("the exit hint: %s", (_what, lines, expected) => {
    expect(qwen.exitHint(lines, {})).toBe(expected);
  });

  test("the transcript under ~/.qwen/projects/<every non-alphanumeric as '-'>/chats holds the conversation once it records a user message", () => {
    const cwd = "/tmp/h/agents/new/qw.proj";
    const env = { HOME: tmp.root };
    const file = `.qwen/projects/-tmp-h-agents-new-qw-proj/chats/${ID}.jsonl`;
    tmp.file(file, `${JSON.stringify({ type: "system" })}\n`);
    expect(qwen.holds(ID, { cwd, env })).toBe(false);
    tmp.file(file, `${JSON.stringify({ type: "system" })}\n${JSON.stringify({ type: "user", message: "hi" })}\n`);
    expect(qwen.holds(ID, { cwd, env })).toBe(true);
    expect(qwen.fromStore({ cwd, spawnedAt: new Date(), env, taken: new Set() })).toBe(ID);
    expect(qwen.fromStore({ cwd, spawnedAt: new Date(), env, taken: new Set([ID]) })).toBeNull();
    tmp.file(".qwen/projects/-tmp-h-agents-new-qw-proj/chats/$(touch x).jsonl", `${JSON.stringify({ type: "user" })}\n`);
    expect(qwen.fromStore({ cwd, spawnedAt: new Date(), env, taken: new Set() })).toBe(ID);
  });
});
