// Gemini CLI's part (src/agent-gemini.ts): the pin, the hooks overlay, the boxed exit hint, and the
// store whose session file exists before any turn (resumable only once it holds an exchange).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { detect } from "../../src/agent.ts";
import { gemini, geminiProjectId, geminiSignal } from "../../src/agent-gemini.ts";
import { assetsIn, HOSTILE, ID, ID2, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

const HEADER = (id: string) => `${JSON.stringify({ sessionId: id, projectHash: "h", startTime: new Date().toISOString(), kind: "main" })}\n`;
const EXCHANGE = `${JSON.stringify({ type: "user", content: [{ text: "hi" }] })}\n${JSON.stringify({ type: "gemini", content: "ok" })}\n`;

describe("gemini", () => {
  test("a bare start is pinned with --session-id and gets the hooks overlay through the system settings variable; a resume only the overlay", () => {
    const env = { HOME: tmp.root };
    const bare = gemini.instrument(detect("gemini", [gemini])!, assetsIn(tmp.root), env)!;
    const settings = join(tmp.root, "gemini-settings.json");
    expect(bare).toEqual({
      args: ["--session-id", `'${bare.pinned}'`],
      env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: settings, FLEETCOM_CAPTURE_FILE: join(tmp.root, "task-1-1.json") },
      pinned: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(Object.keys(JSON.parse(readFileSync(settings, "utf8")).hooks)).toEqual(["SessionStart", "BeforeAgent", "AfterAgent", "Notification", "SessionEnd"]);
    const resumed = gemini.instrument(detect(`gemini --resume '${ID}'`, [gemini])!, assetsIn(tmp.root), env)!;
    expect(resumed.args).toEqual([]);
    expect(resumed.pinned).toBe(ID);
  });

  test("a user's own system settings file is never hidden: then no overlay, the pin alone", () => {
    const env = { HOME: tmp.root, GEMINI_CLI_SYSTEM_SETTINGS_PATH: "/etc/mine.json" };
    const bare = gemini.instrument(detect("gemini", [gemini])!, assetsIn(tmp.root), env)!;
    expect(bare.env).toEqual({});
    expect(bare.args[0]).toBe("--session-id");
  });

  test.each([
    ["BeforeAgent", { hook_event_name: "BeforeAgent", prompt: "hi" }, { kind: "working" }],
    [
      "AfterAgent",
      { hook_event_name: "AfterAgent", prompt_response: "FAKE-GEMINI ok\nmore" },
      { kind: "waiting", state: "input", message: "FAKE-GEMINI ok more" },
    ],
    [
      "a tool permission",
      { hook_event_name: "Notification", notification_type: "ToolPermission", message: "Allow shell?" },
      { kind: "waiting", state: "permission", message: "Allow shell?" },
    ],
    ["another notification", { hook_event_name: "Notification", message: "idle" }, { kind: "waiting", state: "input", message: "idle" }],
    ["SessionEnd", { hook_event_name: "SessionEnd" }, { kind: "ended" }],
    ["SessionStart", { hook_event_name: "SessionStart" }, null],
  ])("the hook payload %s", (_what, payload, signal) => {
    expect(geminiSignal(JSON.stringify(payload))).toEqual(signal as never);
  });

  test.each([
    ["boxed", ["╭────╮", `│  Session ID: ${ID}  │`, `│  To resume this session: gemini --resume ${ID}  │`, "╰────╯"], ID],
    ["the last one", [`To resume this session: gemini --resume ${ID2}`, `To resume this session: gemini --resume ${ID}`], ID],
    ["another program", [`To resume this session: geminix --resume ${ID}`], null],
    ["a hostile last hint", [`gemini --resume ${ID}`, "│ gemini --resume $(id) │"], null],
    ...HOSTILE.map((h) => [`hostile ${h}`, [`│ To resume this session: gemini --resume ${h} │`], null] as [string, string[], null]),
  ])("the exit hint: %s", (_what, lines, expected) => {
    expect(gemini.exitHint(lines, {})).toBe(expected);
  });

  describe("the store", () => {
    const cwd = "/home/me/proj";
    const env = () => ({ HOME: tmp.root });
    const register = (projects: unknown) => tmp.file(".gemini/projects.json", JSON.stringify(projects));
    const session = (id: string, text: string) => tmp.file(`.gemini/tmp/proj/chats/session-2026-12-01T14-00-${id.slice(0, 8)}.jsonl`, text);

    test("the project id comes from projects.json; one that is not a plain name is none", () => {
      register({ projects: { [cwd]: "proj" } });
      expect(geminiProjectId(env(), cwd)).toBe("proj");
      expect(geminiProjectId(env(), "/elsewhere")).toBeNull();
      register({ projects: { [cwd]: "../../etc" } });
      expect(geminiProjectId(env(), cwd)).toBeNull();
    });

    test("the session file written at start-up holds no conversation until it records an exchange (B1)", () => {
      register({ projects: { [cwd]: "proj" } });
      session(ID, HEADER(ID));
      expect(gemini.holds(ID, { cwd, env: env() })).toBe(false);
      expect(gemini.fromStore({ cwd, spawnedAt: new Date(), env: env(), taken: new Set() })).toBeNull();
      session(ID, HEADER(ID) + EXCHANGE);
      expect(gemini.holds(ID, { cwd, env: env() })).toBe(true);
      expect(gemini.fromStore({ cwd, spawnedAt: new Date(), env: env(), taken: new Set() })).toBe(ID);
      expect(gemini.holds(ID2, { cwd, env: env() })).toBe(false);
    });

    test("its last reply is the session file's last gemini record", () => {
      register({ projects: { [cwd]: "proj" } });
      session(
        ID,
        `${HEADER(ID) + EXCHANGE}${JSON.stringify({ type: "user", content: [{ text: "and?" }] })}\n${JSON.stringify({ type: "gemini", content: [{ text: "FAKE-GEMINI" }, { text: "ok" }] })}\n`,
      );
      expect(gemini.lastReply!(ID, { cwd, env: env() })).toBe("FAKE-GEMINI ok");
      expect(gemini.lastReply!(ID2, { cwd, env: env() })).toBeNull();
    });

    test("a file whose first record names another or a hostile ID never counts", () => {
      register({ projects: { [cwd]: "proj" } });
      session(ID, HEADER(ID2) + EXCHANGE);
      tmp.file(".gemini/tmp/proj/chats/session-2026-12-01T14-00-x.jsonl", HEADER("$(touch /tmp/pwned)") + EXCHANGE);
      expect(gemini.holds(ID, { cwd, env: env() })).toBe(false);
      expect(gemini.fromStore({ cwd, spawnedAt: new Date(), env: env(), taken: new Set([ID2]) })).toBeNull();
    });
  });
});
