// Qwen Code's part (src/agent-qwen.ts): the pin, the exit hint and the store under its Claude-style slug.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { detect } from "../../src/agent.ts";
import { qwen, qwenSignal } from "../../src/agent-qwen.ts";
import { assetsIn, HOSTILE, ID, ID2, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

describe("qwen", () => {
  test("a bare start is pinned with --session-id; each run gets the overlay of Claude's hooks as Qwen's system settings, unless the user names or has one", () => {
    const bare = qwen.instrument(detect("qwen", [qwen])!, assetsIn(tmp.root), {})!;
    const overlay = { QWEN_CODE_SYSTEM_SETTINGS_PATH: join(tmp.root, "qwen-settings.json"), FLEETCOM_CAPTURE_FILE: join(tmp.root, "task-1-1.json") };
    expect(bare).toEqual({ args: ["--session-id", `'${bare.pinned}'`], env: overlay, pinned: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(Object.keys(JSON.parse(readFileSync(overlay.QWEN_CODE_SYSTEM_SETTINGS_PATH, "utf8")).hooks)).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "Stop",
      "Notification",
      "SessionEnd",
    ]);
    expect(qwen.instrument(detect(`qwen --resume '${ID}'`, [qwen])!, assetsIn(tmp.root), {})).toEqual({ args: [], env: overlay, pinned: ID });
    const theirs = qwen.instrument(detect("qwen", [qwen])!, assetsIn(tmp.root), { QWEN_CODE_SYSTEM_SETTINGS_PATH: "/etc/mine.json" })!;
    expect(theirs.env).toEqual({});
  });

  test("QWEN_HOME and QWEN_RUNTIME_DIR are where the store is; its last reply is the transcript's last assistant record", () => {
    const cwd = "/w/p";
    const line = (r: object) => `${JSON.stringify(r)}\n`;
    const text =
      line({ type: "user", message: { role: "user", parts: [{ text: "hi" }] } }) +
      line({ type: "assistant", message: { role: "model", parts: [{ text: "FAKE-QWEN hi" }] } });
    tmp.file(`qh/projects/-w-p/chats/${ID}.jsonl`, text);
    tmp.file(`rt/projects/-w-p/chats/${ID2}.jsonl`, text);
    expect(qwen.holds(ID, { cwd, env: { HOME: tmp.root, QWEN_HOME: join(tmp.root, "qh") } })).toBe(true);
    expect(qwen.holds(ID, { cwd, env: { HOME: tmp.root } })).toBe(false);
    const runtime = { HOME: tmp.root, QWEN_HOME: join(tmp.root, "qh"), QWEN_RUNTIME_DIR: "~/rt" };
    expect(qwen.holds(ID2, { cwd, env: runtime })).toBe(true);
    expect(qwen.holds(ID, { cwd, env: runtime })).toBe(false);
    expect(qwen.lastReply!(ID2, { cwd, env: runtime })).toBe("FAKE-QWEN hi");
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

  test.each([
    ["Stop, with its reply", { hook_event_name: "Stop", last_assistant_message: "FAKE-CHAT ok" }, { kind: "waiting", state: "input", message: "FAKE-CHAT ok" }],
    [
      "the idle Notification after every Stop: its message left to the store",
      { hook_event_name: "Notification", notification_type: "idle_prompt", message: "Qwen Code is waiting for your input" },
      { kind: "waiting", state: "input", message: null },
    ],
    [
      "a permission prompt",
      { hook_event_name: "Notification", notification_type: "permission_prompt", message: "Allow make?" },
      { kind: "waiting", state: "permission", message: "Allow make?" },
    ],
    ["auth_success", { hook_event_name: "Notification", notification_type: "auth_success", message: "ok" }, null],
    ["UserPromptSubmit", { hook_event_name: "UserPromptSubmit", prompt: "hi" }, { kind: "working" }],
  ])("the hook payload: %s", (_what, payload, signal) => {
    expect(qwenSignal(JSON.stringify(payload))).toEqual(signal as never);
  });
});
