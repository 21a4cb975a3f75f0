// Claude Code's part (src/agent-claude.ts): pin and settings overlay, SessionStart capture, exit
// hint, store; hostile inputs beside good ones.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { claude, claudeLiveState, claudeSettings, claudeSlug, sessionStartId } from "../../src/agent-claude.ts";
import { detect } from "../../src/agent.ts";
import { assetsIn, HOSTILE, ID, ID2, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

describe("claude", () => {
  test("a bare start is pinned to a new ID and gets the settings overlay; a resume keeps its ID and gets only the overlay", () => {
    const assets = assetsIn(tmp.root);
    const bare = claude.instrument(detect("claude", [claude])!, assets, {})!;
    expect(bare.args).toEqual(["--session-id", `'${bare.pinned}'`, "--settings", `'${join(tmp.root, "claude-settings.json")}'`]);
    expect(bare.env).toEqual({ FLEETCOM_CAPTURE_FILE: assets.captureFile });
    const resumed = claude.instrument(detect(`claude --resume ${ID}`, [claude])!, assets, {})!;
    expect(resumed).toEqual({
      args: ["--settings", `'${join(tmp.root, "claude-settings.json")}'`],
      env: { FLEETCOM_CAPTURE_FILE: assets.captureFile },
      pinned: ID,
    });
  });

  test("the overlay's SessionStart hook copies its stdin to the capture file, silently, 0600", () => {
    const hook = JSON.parse(claudeSettings()).hooks.SessionStart[0].hooks[0];
    expect(hook.type).toBe("command");
    const capture = join(tmp.root, "capture.json");
    const r = Bun.spawnSync(["/bin/sh", "-c", hook.command], {
      stdin: new TextEncoder().encode(`{"session_id":"${ID}"}`),
      env: { FLEETCOM_CAPTURE_FILE: capture },
    });
    expect(r.stdout.toString()).toBe("");
    expect(sessionStartId(require("node:fs").readFileSync(capture, "utf8"))).toBe(ID);
    expect(require("node:fs").statSync(capture).mode & 0o777).toBe(0o600);
  });

  test.each([
    [`{"session_id":"${ID}","source":"startup"}`, ID],
    [`{"session_id":"${ID}","hook_event_name":"SessionStart","source":"clear"}`, ID],
    ...HOSTILE.map((h) => [JSON.stringify({ session_id: h }), null] as [string, null]),
    [`{"session_id":42}`, null],
    [`{"sessionId":"${ID}"}`, null],
    [`{"session_id":"${ID}"`, null],
    [`["${ID}"]`, null],
    ["", null],
  ])("the SessionStart payload %s names %p", (payload, expected) => {
    expect(sessionStartId(payload)).toBe(expected);
  });

  test.each([
    ["the plain hint", ["Resume this session with:", `claude --resume ${ID}`], {}, ID],
    ["launch flags repeated before --resume", ["Resume this session with:", `claude --settings /run/x/claude-settings.json --resume ${ID}`], {}, ID],
    ["the last of several hints", ["Resume this session with:", `claude --resume ${ID2}`, "Resume this session with:", `claude --resume ${ID}`], {}, ID],
    [
      "the word from CLAUDE_CODE_RESUME_HINT_COMMAND",
      ["Resume this session with:", `npx claude --resume ${ID}`],
      { CLAUDE_CODE_RESUME_HINT_COMMAND: "npx claude" },
      ID,
    ],
    ["another program's line", ["Resume this session with:", `cmd --resume ${ID}`], {}, null],
    ["no header", [`claude --resume ${ID}`], {}, null],
    [
      "a hostile last hint after a good one",
      ["Resume this session with:", `claude --resume ${ID}`, "Resume this session with:", "claude --resume $(touch /tmp/pwned)"],
      {},
      null,
    ],
    ...HOSTILE.map(
      (h) => [`hostile ${h}`, ["Resume this session with:", `claude --resume ${h}`], {}, null] as [string, string[], Record<string, string>, null],
    ),
  ])("the exit hint: %s", (_what, lines, env, expected) => {
    expect(claude.exitHint(lines, env)).toBe(expected);
  });

  test.each([
    ["/tmp/My.Proj_x y", "-tmp-My-Proj-x-y"],
    ["/home/u/a--b", "-home-u-a--b"],
    ["/home/ü/x", "-home---x"],
  ])("the project slug of %p is %p", (cwd, slug) => {
    expect(claudeSlug(cwd)).toBe(slug);
  });

  test.each([
    ["idle", { pid: 1, sessionId: ID, status: "idle" }, { id: ID, preview: null }],
    ["busy", { pid: 1, sessionId: ID, status: "busy" }, { id: ID, preview: null }],
    ["waiting for approval", { sessionId: ID, status: "waiting", waitingFor: "approve Bash" }, { id: ID, preview: "awaiting approval: Bash" }],
    ["waiting for input", { sessionId: ID, status: "waiting", waitingFor: "input needed" }, { id: ID, preview: "awaiting input" }],
    ["a dialog", { sessionId: ID, status: "waiting", waitingFor: "dialog open" }, { id: ID, preview: "waiting: dialog open" }],
    [
      "a hostile wait, made one printable line",
      { sessionId: ID, status: "waiting", waitingFor: "approve \x1b]0;x\x07Bash\nnow" },
      { id: ID, preview: "awaiting approval: ]0;x Bash now" },
    ],
    ...HOSTILE.map((h) => [`hostile ID ${h}`, { sessionId: h, status: "idle" }, { id: null, preview: null }] as [string, object, object]),
    ["not an object", "idle", null],
  ])("the live registry entry %s", (_what, entry, expected) => {
    expect(claudeLiveState(entry)).toEqual(expected as never);
  });

  describe("the store", () => {
    const cwd = "/work/My.Proj";
    const query = (taken: string[] = [], spawnedAt = new Date()) => ({ cwd, spawnedAt, env: { CLAUDE_CONFIG_DIR: tmp.root }, taken: new Set(taken) });
    const transcript = (id: string) => tmp.file(`projects/-work-My-Proj/${id}.jsonl`, "{}\n");

    test("one transcript created within 30 s of the spawn is the conversation; one created later is not", () => {
      transcript(ID);
      expect(claude.fromStore(query([], new Date(Date.now() - 25_000)))).toBe(ID);
      expect(claude.fromStore(query([], new Date(Date.now() - 60_000)))).toBeNull();
    });

    test("two candidates are ambiguous and give no ID, unless one is taken by another task", () => {
      transcript(ID);
      transcript(ID2);
      expect(claude.fromStore(query())).toBeNull();
      expect(claude.fromStore(query([ID2]))).toBe(ID);
    });

    test("hostile file names are never returned", () => {
      for (const h of ["$(touch x)", ID.toUpperCase(), `${ID}x`]) transcript(h);
      expect(claude.fromStore(query())).toBeNull();
    });

    test("holds a conversation once its transcript exists, by the ID itself, whenever it was made", () => {
      const where = { cwd, env: { CLAUDE_CONFIG_DIR: tmp.root } };
      expect(claude.holds(ID, where)).toBe(false);
      tmp.file(`projects/-work-My-Proj/${ID}.jsonl`, "{}\n", 86_400_000);
      expect(claude.holds(ID, where)).toBe(true);
      expect(claude.holds(ID, { ...where, cwd: "/work/Other" })).toBe(false);
      expect(claude.holds(ID2, where)).toBe(false);
    });

    test("HOME/.claude is the home without CLAUDE_CONFIG_DIR, and another directory's slug does not match", () => {
      tmp.file(`.claude/projects/-work-My-Proj/${ID}.jsonl`);
      tmp.file(`.claude/projects/-work-Other/${ID2}.jsonl`);
      expect(claude.fromStore({ cwd, spawnedAt: new Date(), env: { HOME: tmp.root }, taken: new Set() })).toBe(ID);
    });
  });
});
