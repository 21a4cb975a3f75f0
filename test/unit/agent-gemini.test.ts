// Gemini CLI's part (src/agent-gemini.ts): the pin, the hooks overlay, the boxed exit hint, and the
// store whose session file exists before any turn (resumable only once it holds an exchange).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readlinkSync } from "node:fs";
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
  test("a bare start is pinned with --session-id and gets an overlay home: the user's entries linked, their extensions linked, fleetcom's extension of hooks; a resume only the overlay", () => {
    tmp.file(".gemini/settings.json", '{"ui": {}}');
    tmp.file(".gemini/extensions/theirs/gemini-extension.json", '{"name": "theirs", "version": "1"}');
    const env = { HOME: tmp.root };
    const bare = gemini.instrument(detect("gemini", [gemini])!, assetsIn(tmp.root), env, "/proj")!;
    const overlay = join(tmp.root, "task-1-1.gemini-home");
    expect(bare).toEqual({
      args: ["--session-id", `'${bare.pinned}'`],
      env: {
        GEMINI_CLI_HOME: overlay,
        GEMINI_CLI_TRUSTED_FOLDERS_PATH: join(tmp.root, ".gemini", "trustedFolders.json"),
        FLEETCOM_CAPTURE_FILE: join(tmp.root, "task-1-1.json"),
      },
      pinned: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const dot = join(overlay, ".gemini");
    expect(readlinkSync(join(dot, "settings.json"))).toBe(join(tmp.root, ".gemini", "settings.json"));
    expect(readlinkSync(join(dot, "tmp"))).toBe(join(tmp.root, ".gemini", "tmp"));
    expect(readlinkSync(join(dot, "history"))).toBe(join(tmp.root, ".gemini", "history"));
    expect(readlinkSync(join(dot, "state.json"))).toBe(join(tmp.root, ".gemini", "state.json"));
    // Not there yet: a link all the same, so that Gemini's first write lands in the user's folder.
    expect(readlinkSync(join(dot, "oauth_creds.json"))).toBe(join(tmp.root, ".gemini", "oauth_creds.json"));
    expect(readlinkSync(join(dot, "extensions", "theirs"))).toBe(join(tmp.root, ".gemini", "extensions", "theirs"));
    const hooks = JSON.parse(readFileSync(join(dot, "extensions", "fleetcom-attention", "hooks", "hooks.json"), "utf8")).hooks;
    expect(Object.keys(hooks)).toEqual(["SessionStart", "BeforeAgent", "AfterAgent", "Notification", "SessionEnd"]);
    expect(JSON.parse(readFileSync(join(dot, "extensions", "fleetcom-attention", "gemini-extension.json"), "utf8")).name).toBe("fleetcom-attention");
    expect(JSON.parse(readFileSync(join(dot, "extensions", "fleetcom-attention", ".gemini-extension-install.json"), "utf8"))).toEqual({
      source: join(dot, "extensions", "fleetcom-attention"),
      type: "local",
    });
    expect(readFileSync(join(tmp.root, ".gemini", "settings.json"), "utf8")).toBe('{"ui": {}}');
    mkdirSync(join(tmp.root, "other"));
    const resumed = gemini.instrument(detect(`gemini --resume '${ID}'`, [gemini])!, assetsIn(join(tmp.root, "other")), env, "/proj")!;
    expect(resumed.args).toEqual([]);
    expect(resumed.pinned).toBe(ID);
    expect(resumed.env.GEMINI_CLI_HOME).toBe(join(tmp.root, "other", "task-1-1.gemini-home"));
  });

  test("an overlay home that cannot be made costs the hooks, not the pin, and says why", () => {
    tmp.file("notadir", "a file where the user's Gemini home would be");
    const bare = gemini.instrument(detect("gemini", [gemini])!, assetsIn(tmp.root), { HOME: join(tmp.root, "notadir") }, "/proj")!;
    expect(bare.args[0]).toBe("--session-id");
    expect(bare.env).toEqual({});
    expect(bare.warning).toStartWith("no hooks: cannot make its overlay home: ");
  });

  test("the user's own GEMINI_CLI_HOME and trusted-folders file are the ones linked and kept", () => {
    const env = { HOME: tmp.root, GEMINI_CLI_HOME: join(tmp.root, "gh"), GEMINI_CLI_TRUSTED_FOLDERS_PATH: "/x/trust.json" };
    tmp.file("gh/.gemini/settings.json", "{}");
    const bare = gemini.instrument(detect("gemini", [gemini])!, assetsIn(tmp.root), env, "/proj")!;
    expect(bare.env.GEMINI_CLI_TRUSTED_FOLDERS_PATH).toBeUndefined();
    expect(readlinkSync(join(bare.env.GEMINI_CLI_HOME!, ".gemini", "settings.json"))).toBe(join(tmp.root, "gh", ".gemini", "settings.json"));
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

    test("a project the registry does not list (Gemini renamed its registry in a run's overlay) is found by its .project_root; a marker naming another directory wins over the registry", () => {
      tmp.file(".gemini/tmp/proj/.project_root", `${cwd}\n`);
      tmp.file(".gemini/tmp/other/.project_root", "/elsewhere");
      expect(geminiProjectId(env(), cwd)).toBe("proj");
      register({ projects: { [cwd]: "other" } });
      expect(geminiProjectId(env(), cwd)).toBe("proj");
      tmp.file(".gemini/tmp/$(touch x)/.project_root", cwd);
      expect(geminiProjectId(env(), cwd)).toBe("proj");
    });

    test("GEMINI_CLI_HOME is where the store is", () => {
      const moved = { HOME: tmp.root, GEMINI_CLI_HOME: join(tmp.root, "gh") };
      tmp.file("gh/.gemini/projects.json", JSON.stringify({ projects: { [cwd]: "proj" } }));
      tmp.file(`gh/.gemini/tmp/proj/chats/session-2026-12-01T14-00-${ID.slice(0, 8)}.jsonl`, HEADER(ID) + EXCHANGE);
      expect(gemini.holds(ID, { cwd, env: moved })).toBe(true);
      expect(gemini.holds(ID, { cwd, env: env() })).toBe(false);
    });

    test("a resumed session's reply is read from the file that holds it, however many header-only files each resume left, in any directory order", () => {
      register({ projects: { [cwd]: "proj" } });
      session(ID, `${HEADER(ID) + EXCHANGE}${JSON.stringify({ type: "gemini", content: "FAKE-GEMINI later" })}\n`);
      for (let i = 0; i < 12; i++) tmp.file(`.gemini/tmp/proj/chats/session-2026-12-0${(i % 9) + 1}T1${i % 10}-0${i % 10}-${ID.slice(0, 8)}.jsonl`, HEADER(ID));
      expect(gemini.lastReply!(ID, { cwd, env: env() })).toBe("FAKE-GEMINI later");
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
