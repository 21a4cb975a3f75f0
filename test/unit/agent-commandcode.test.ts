// Command Code's part (src/agent-commandcode.ts): the private scratch base, the scratchpad capture,
// the exit hint and the project-transcript store.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { detect } from "../../src/agent.ts";
import { commandCode, commandCodeReply, commandCodeSlug, newestOnly, scratchpadId, transcriptBelongsTo } from "../../src/agent-commandcode.ts";
import { assetsIn, HOSTILE, ID, ID2, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

describe("command code", () => {
  test("a start gets a private scratch base of its own and no arguments", () => {
    const assets = assetsIn(tmp.root);
    const bare = commandCode.instrument(detect("cmdc", [commandCode])!, assets, {})!;
    expect(bare).toEqual({ args: [], env: { COMMANDCODE_SCRATCHPAD_BASE: assets.scratchBase, FLEETCOM_CAPTURE_FILE: assets.captureFile }, pinned: null });
    expect(statSync(assets.scratchBase).mode & 0o777).toBe(0o700);
  });

  // The right-hand sides are what Command Code 1.64's own @sindresorhus/slugify gave for these paths
  // (shared/research/field-reports/round3-real-agents.md, N1).
  test.each([
    ["/tmp/x/cmd2/proj", "tmp-x-cmd2-proj"],
    ["/Users/Me/My Project!!/x", "users-me-my-project-x"],
    ["/", ""],
    ["/tmp/x/e2e/projE", "tmp-x-e2e-proj-e"],
    ["/home/me/src/MyApp", "home-me-src-my-app"],
    ["/home/me/src/R&D", "home-me-src-r-and-d"],
    ["/home/me/Projekte/Größe", "home-me-projekte-groesse"],
    ["/home/me/src/API2Server", "home-me-src-api-2-server"],
    ["/home/me/src/my_app", "home-me-src-my-app"],
  ])("the project slug of %p is %p", (cwd, slug) => {
    expect(commandCodeSlug(cwd)).toBe(slug);
  });

  test("the scratchpad's ID directory two levels below commandcode-<uid> is the conversation; hostile names are not", () => {
    const base = tmp.dir("cc-1-1");
    expect(scratchpadId(base, 1000)).toBeNull();
    tmp.dir(`cc-1-1/commandcode-1000/tmp-p/${ID}/scratchpad`);
    tmp.dir("cc-1-1/commandcode-1000/tmp-p/$(touch x)/scratchpad");
    tmp.dir(`cc-1-1/commandcode-1000/tmp-p/${ID2.toUpperCase()}/scratchpad`);
    tmp.dir(`cc-1-1/commandcode-1001/tmp-p/${ID2}/scratchpad`);
    expect(scratchpadId(base, 1000)).toBe(ID);
  });

  test.each([
    [[{ id: ID, time: 1 }], ID],
    [
      [
        { id: ID, time: 1 },
        { id: ID2, time: 2 },
      ],
      ID2,
    ],
    [
      [
        { id: ID, time: 2 },
        { id: ID2, time: 2 },
      ],
      null,
    ],
    [
      [
        { id: "$(x)", time: 3 },
        { id: ID, time: 1 },
      ],
      null,
    ],
    [[], null],
  ])("after a new conversation the newest scratchpad wins, a tie gives none (case %#)", (found, expected) => {
    expect(newestOnly(found)).toBe(expected);
  });

  test.each([
    ["the word as invoked", ["Resume this session with:", `cmd --resume ${ID}`], ID],
    ["a path as invoked", ["Resume this session with:", `/usr/local/bin/command-code --resume ${ID}`], ID],
    ["a session name instead of an ID", ["Resume this session with:", "cmd --resume my-feature"], null],
    ["claude's line", ["Resume this session with:", `claude --resume ${ID}`], null],
    ["the last one", ["Resume this session with:", `cmdc --resume ${ID2}`, "Resume this session with:", `cmdc --resume ${ID}`], ID],
    ...HOSTILE.map((h) => [`hostile ${h}`, ["Resume this session with:", `cmd --resume ${h}`], null] as [string, string[], null]),
  ])("the exit hint: %s", (_what, lines, expected) => {
    expect(commandCode.exitHint(lines, {})).toBe(expected);
  });

  describe("the project-transcript store", () => {
    const cwd = "/tmp/x/cmd2/proj";
    const spawnedAt = new Date("2026-03-01T10:00:00Z");
    const record = (id: string, over: object = {}) => JSON.stringify({ type: "session", id, timestamp: "2026-03-01T10:00:05.000Z", cwd, ...over });
    const transcript = (id: string, first: string) => tmp.file(`.commandcode/projects/tmp-x-cmd2-proj/${id}.jsonl`, `${first}\n{"type":"message"}\n`);
    const query = (taken: string[] = []) => ({ cwd, spawnedAt, env: { HOME: tmp.root }, taken: new Set(taken) });

    test.each([
      ["its own record", record(ID), true],
      ["another cwd", record(ID, { cwd: "/tmp/x/cmd2" }), false],
      ["a time before the spawn", record(ID, { timestamp: "2026-03-01T09:59:59.000Z" }), false],
      ["another ID", record(ID2), false],
      ["not a session record", record(ID, { type: "message" }), false],
    ])("a transcript's first record: %s → %p", (_what, first, ok) => {
      expect(transcriptBelongsTo(JSON.parse(first), ID, cwd, spawnedAt)).toBe(ok);
    });

    test("exactly one match is the conversation; two are none unless one is taken by another task", () => {
      transcript(ID, record(ID));
      transcript("$(touch x)", record("$(touch x)"));
      expect(commandCode.fromStore(query())).toBe(ID);
      transcript(ID2, record(ID2));
      expect(commandCode.fromStore(query())).toBeNull();
      expect(commandCode.fromStore(query([ID2]))).toBe(ID);
    });

    test("holds a conversation once its project transcript exists (the first completed turn)", () => {
      const where = { cwd, env: { HOME: tmp.root } };
      expect(commandCode.holds(ID, where)).toBe(false);
      transcript(ID, record(ID));
      expect(commandCode.holds(ID, where)).toBe(true);
      expect(commandCode.holds(ID, { ...where, cwd: "/tmp/x" })).toBe(false);
    });

    test("a damaged first record is no evidence", () => {
      transcript(ID, '{"type":"session","id":');
      expect(commandCode.fromStore(query())).toBeNull();
    });
  });

  test("the scratch base must be absolute", () => {
    const assets = { ...assetsIn(tmp.root), scratchBase: "relative/cc-1-1" };
    expect(commandCode.instrument(detect("cmd", [commandCode])!, assets, {})).toBeNull();
  });

  test("its last reply is the transcript's last assistant record, in either shape", () => {
    const cwd = "/home/me/src/MyApp";
    const records = [
      { type: "session", id: ID, cwd },
      { type: "user", message: "hi" },
      { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "FAKE-REPLY ok" }] } },
      { type: "user", message: "which animal?" },
    ];
    tmp.file(`.commandcode/projects/home-me-src-my-app/${ID}.jsonl`, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
    expect(commandCode.lastReply!(ID, { cwd, env: { HOME: tmp.root } })).toBe("FAKE-REPLY ok");
    expect(commandCodeReply({ role: "assistant", content: "plain" })).toBe("plain");
    expect(commandCodeReply({ type: "user", message: "hi" })).toBeNull();
    expect(commandCode.lastReply!(ID2, { cwd, env: { HOME: tmp.root } })).toBeNull();
  });
});
