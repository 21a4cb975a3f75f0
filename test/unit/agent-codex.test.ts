// Codex's part (src/agent-codex.ts): the notify chain from config.toml, the notify script, the
// capture payloads with the title thread, exit hints and the rollout store.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { capturedThread, codex, codexReply, NOTIFY_SCRIPT, notifyChain, turnPayloads, uuidV7Time } from "../../src/agent-codex.ts";
import { detect } from "../../src/agent.ts";
import { assetsIn, HOSTILE, ID, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

const V7 = "019f5453-de22-7240-b2e5-0d32692aa6d9";
const TITLE_V7 = "019f5453-de23-7000-8000-000000000001";
const turnPayload = (thread: string, input = "fix it") =>
  JSON.stringify({ type: "agent-turn-complete", "thread-id": thread, cwd: "/w", "input-messages": [input] });
const titlePayload = (thread: string) => turnPayload(thread, "Generate a concise, single-line task title for the following");

describe("codex", () => {
  test.each([
    ["no config file", null, []],
    ["a config without notify", `model = "o3"\n[tui]\nnotifications = true\n`, []],
    ["a one-line notify", `notify = ["notify-send", "Codex"]\n`, ["notify-send", "Codex"]],
    ["literal strings, spacing, a trailing comma and a comment", `  notify=[ '/opt/my tool/n.sh' ,"-x", ]  # mine\n[tui]\n`, ["/opt/my tool/n.sh", "-x"]],
    ["an empty array", `notify = []\n`, []],
    ["a multi-line array", `notify = [\n  "a",\n]\n`, null],
    ["two assignments", `notify = ["a"]\nnotify = ["b"]\n`, null],
    ["a quoted key assigned twice", `notify = ["a"]\n"notify" = ["b"]\n`, null],
    ["escapes", `notify = ["a\\"b"]\n`, null],
    ["an empty element", `notify = ["a", ""]\n`, null],
    ["a string instead of an array", `notify = "a"\n`, null],
    ["notify inside a table", `[profiles.x]\nnotify = ["a"]\n`, null],
    ["trailing text", `notify = ["a"] x\n`, null],
  ])("the notify chain of %s", (_what, config, expected) => {
    expect(notifyChain(config)).toEqual(expected);
  });

  test("a bare start gets the notify override and the chain; an unrepresentable config gets nothing", () => {
    const home = tmp.dir("codex-home");
    const assets = assetsIn(tmp.dir("ns"));
    const env = { CODEX_HOME: home };
    writeFileSync(join(home, "config.toml"), `notify = ["/bin/n", "-a"]\n`);
    const bare = codex.instrument(detect("codex", [codex])!, assets, env)!;
    expect(bare).toEqual({
      args: ["-c", `'notify=["${join(assets.dir, "codex-notify.sh")}"]'`],
      env: { FLEETCOM_CAPTURE_FILE: assets.captureFile, FLEETCOM_NOTIFY_CHAIN: "/bin/n\n-a" },
      pinned: null,
    });
    expect(codex.instrument(detect(`codex resume ${V7}`, [codex])!, assets, env)!.pinned).toBe(V7);
    writeFileSync(join(home, "config.toml"), `notify = [\n"/bin/n"]\n`);
    expect(codex.instrument(detect("codex", [codex])!, assets, env)).toBeNull();
  });

  test("a namespace path that a TOML basic string cannot hold is not injected", () => {
    const assets = assetsIn(tmp.dir('ns"quoted'));
    expect(codex.instrument(detect("codex", [codex])!, assets, { CODEX_HOME: tmp.root })).toBeNull();
  });

  test("the notify script appends the payload to the capture file, then runs the chain with the payload appended", () => {
    const script = join(tmp.root, "codex-notify.sh");
    writeFileSync(script, NOTIFY_SCRIPT);
    chmodSync(script, 0o700);
    const capture = join(tmp.root, "capture");
    const out = join(tmp.root, "out");
    const env = (chain: string) => ({ FLEETCOM_CAPTURE_FILE: capture, FLEETCOM_NOTIFY_CHAIN: chain, PATH: "/usr/bin:/bin" });
    const payload = `{"x":"$(touch ${join(tmp.root, "pwned")}) *"}`;
    Bun.spawnSync([script, payload], { env: env(`/bin/sh\n-c\nprintf '%s|' "$0" "$@" > '${out}'\narg 0`) });
    Bun.spawnSync([script, payload], { env: env("") });
    expect(readFileSync(capture, "utf8")).toBe(`${payload}\n${payload}\n`);
    expect(readFileSync(out, "utf8")).toBe(`arg 0|${payload}|`);
    expect(require("node:fs").existsSync(join(tmp.root, "pwned"))).toBe(false);
  });

  test.each([
    ["the real thread", [turnPayload(V7)], V7],
    ["the real thread, when the title thread notifies after it", [turnPayload(V7), titlePayload(TITLE_V7)], V7],
    ["the title thread alone: nothing", [titlePayload(TITLE_V7)], null],
    ["a later real thread (after /new)", [turnPayload(ID), turnPayload(V7)], V7],
    ["other payload types are ignored", [JSON.stringify({ type: "approval-requested", "thread-id": V7 })], null],
    ...HOSTILE.map((h) => [`hostile ${h}`, [turnPayload(h)], null] as [string, string[], null]),
    ["a good thread and a hostile later one", [turnPayload(V7), turnPayload("$(touch /tmp/pwned)")], V7],
    ["torn lines", [turnPayload(V7), '{"type":"agent-turn-com'], V7],
  ])("the capture names %s", (_what, lines, expected) => {
    expect(capturedThread(turnPayloads(lines.join("\n")), () => false)).toBe(expected);
  });

  test("a thread with a rollout file wins over a later one without", () => {
    const payloads = turnPayloads([turnPayload(V7), turnPayload(ID)].join("\n"));
    expect(capturedThread(payloads, (id) => id === V7)).toBe(V7);
  });

  test.each([
    ["two lines", ["To continue this session, run:", `codex resume ${V7}`], V7],
    ["one line", [`To continue this session, run codex resume ${V7}`], V7],
    ["reconnect", ["To reconnect, run:", `  codex resume ${V7}`], V7],
    ["session ID alone", [`Session ID: ${V7}`], V7],
    ["the last one", [`Session ID: ${ID}`, "To continue this session, run:", `codex resume ${V7}`], V7],
    ["no header", [`codex resume ${V7}`], null],
    ["a different program word", ["To continue this session, run:", `cdx resume ${V7}`], null],
    ...HOSTILE.map((h) => [`hostile ${h}`, ["To continue this session, run:", `codex resume ${h}`], null] as [string, string[], null]),
    ["session ID with trailing text", [`Session ID: ${V7} (x)`], null],
  ])("the exit hint: %s", (_what, lines, expected) => {
    expect(codex.exitHint(lines, {})).toBe(expected);
  });

  test.each([
    [V7, 0x019f5453de22],
    [ID, null],
    ["$(x)", null],
  ])("the time inside %p is %p", (id, time) => {
    expect(uuidV7Time(id)).toBe(time);
  });

  describe("the rollout store", () => {
    const cwd = "/work/api";
    const v7At = (ms: number, tail = "7000-8000-000000000001") => {
      const hex = ms.toString(16).padStart(12, "0");
      return `${hex.slice(0, 8)}-${hex.slice(8)}-${tail}`;
    };
    const rollout = (id: string, first: object, at: Date) => {
      const folder = `sessions/${at.getFullYear()}/${String(at.getMonth() + 1).padStart(2, "0")}/${String(at.getDate()).padStart(2, "0")}`;
      tmp.file(`${folder}/rollout-2026-01-01T00-00-00-${id}.jsonl`, `${JSON.stringify(first)}\n{"more":1}\n`);
    };
    const meta = (c: string, source: unknown = "cli") => ({ type: "session_meta", payload: { cwd: c, source } });
    const query = (spawnedAt: Date, taken: string[] = []) => ({ cwd, spawnedAt, env: { CODEX_HOME: tmp.root }, taken: new Set(taken) });

    test("the one rollout of this cwd whose v7 time is within 30 s of the spawn", () => {
      const spawn = new Date();
      const mine = v7At(spawn.getTime() + 5_000);
      rollout(mine, meta(cwd), spawn);
      rollout(v7At(spawn.getTime() + 6_000, "7000-8000-000000000002"), meta("/work/other"), spawn);
      rollout(v7At(spawn.getTime() + 90_000, "7000-8000-000000000003"), meta(cwd), spawn);
      rollout(v7At(spawn.getTime() + 7_000, "7000-8000-000000000004"), meta(cwd, { subagent: "review" }), spawn);
      expect(codex.fromStore(query(spawn))).toBe(mine);
    });

    test("two matching rollouts give no ID", () => {
      const spawn = new Date();
      rollout(v7At(spawn.getTime() + 1_000), meta(cwd), spawn);
      rollout(v7At(spawn.getTime() + 2_000, "7000-8000-000000000002"), meta(cwd), spawn);
      expect(codex.fromStore(query(spawn))).toBeNull();
    });

    test("holds a thread once a rollout names it: the v7 ID's own days, or any day for another ID", () => {
      const spawn = new Date();
      const id = v7At(spawn.getTime() - 40 * 86_400_000);
      const where = { cwd, env: { CODEX_HOME: tmp.root } };
      expect(codex.holds(id, where)).toBe(false);
      rollout(id, meta(cwd), new Date(spawn.getTime() - 40 * 86_400_000));
      expect(codex.holds(id, where)).toBe(true);
      expect(codex.holds(ID, where)).toBe(false);
      rollout(ID, meta(cwd), new Date("2025-06-01T12:00:00Z"));
      expect(codex.holds(ID, where)).toBe(true);
    });

    test("a rollout in a folder two days off is still found", () => {
      const spawn = new Date();
      const id = v7At(spawn.getTime());
      rollout(id, meta(cwd), new Date(spawn.getTime() - 2 * 86_400_000));
      expect(codex.fromStore(query(spawn))).toBe(id);
    });
  });

  test("its last reply is the rollout's last assistant message or agent_message event, never a user's or a tool's", () => {
    const at = new Date();
    const folder = `sessions/${at.getFullYear()}/${String(at.getMonth() + 1).padStart(2, "0")}/${String(at.getDate()).padStart(2, "0")}`;
    const assistant = (text: string) => ({ type: "response_item", payload: { type: "message", role: "assistant", content: [{ type: "output_text", text }] } });
    const records = [
      { type: "session_meta", payload: { cwd: "/p" } },
      assistant("first reply"),
      { type: "event_msg", payload: { type: "agent_message", message: "FAKE-CODEX-REPLY ok\nsecond line" } },
      { type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "which fruit?" }] } },
      { type: "response_item", payload: { type: "function_call_output", output: "ls" } },
    ];
    tmp.file(`${folder}/rollout-2026-01-01T00-00-00-${ID}.jsonl`, `${records.map((r) => JSON.stringify(r)).join("\n")}\n{"half`);
    expect(codex.lastReply!(ID, { cwd: "/p", env: { CODEX_HOME: tmp.root } })).toBe("FAKE-CODEX-REPLY ok second line");
    expect(codexReply(assistant("x"))).toBe("x");
    expect(codexReply(records[3])).toBeNull();
    expect(codex.lastReply!("d9d5b6dd-1c43-4cb1-b7c5-7fe19d329f1e", { cwd: "/p", env: { CODEX_HOME: tmp.root } })).toBeNull();
  });
});
