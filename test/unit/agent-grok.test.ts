// Grok's part (src/agent-grok.ts): the pin, the exit hint and the session-folder store.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { detect } from "../../src/agent.ts";
import { grok, grokCwdFolder } from "../../src/agent-grok.ts";
import { assetsIn, HOSTILE, ID, ID2, tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

describe("grok", () => {
  test("a bare start is pinned with --session-id; a resume adds nothing", () => {
    const bare = grok.instrument(detect("grok", [grok])!, assetsIn(tmp.root), {})!;
    expect(bare).toEqual({ args: ["--session-id", `'${bare.pinned}'`], env: {}, pinned: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(grok.instrument(detect(`grok --resume '${ID}'`, [grok])!, assetsIn(tmp.root), {})).toEqual({ args: [], env: {}, pinned: ID });
  });

  test.each([
    ["--resume", [`grok --resume ${ID}`], ID],
    ["-r", [`  grok -r ${ID}`], ID],
    ["after a label", [`To resume: grok --resume ${ID}`], ID],
    ["the last one", [`grok --resume ${ID2}`, "bye", `grok -r ${ID}`], ID],
    ["another word", [`groky --resume ${ID}`], null],
    ["a hostile last hint", [`grok --resume ${ID}`, "grok --resume $(touch /tmp/pwned)"], null],
    ...HOSTILE.map((h) => [`hostile ${h}`, [`grok --resume ${h}`], null] as [string, string[], null]),
  ])("the exit hint: %s", (_what, lines, expected) => {
    expect(grok.exitHint(lines, {})).toBe(expected);
  });

  test.each([
    ["/home/u/p", "%2Fhome%2Fu%2Fp"],
    ["/tmp/100%/x", "%2Ftmp%2F100%25%2Fx"],
  ])("the session folder of %p is %p", (cwd, folder) => {
    expect(grokCwdFolder(cwd)).toBe(folder);
  });

  describe("the store", () => {
    const cwd = "/tmp/50%/p";
    const query = (spawnedAt = new Date(), env: Record<string, string> = { GROK_HOME: tmp.root }) => ({ cwd, spawnedAt, env, taken: new Set<string>() });
    const session = (id: string, home = "") => tmp.dir(`${home}sessions/%2Ftmp%2F50%25%2Fp/${id}`);

    test("the one session folder created within 30 s is the conversation", () => {
      session(ID);
      expect(grok.fromStore(query())).toBe(ID);
      expect(grok.fromStore(query(new Date(Date.now() + 60_000)))).toBeNull();
    });

    test("two are ambiguous; hostile names never count", () => {
      session(ID);
      session("$(touch x)");
      session(ID.toUpperCase());
      expect(grok.fromStore(query())).toBe(ID);
      session(ID2);
      expect(grok.fromStore(query())).toBeNull();
    });

    test("holds a session once its folder exists", () => {
      expect(grok.holds(ID, { cwd, env: { GROK_HOME: tmp.root } })).toBe(false);
      session(ID);
      expect(grok.holds(ID, { cwd, env: { GROK_HOME: tmp.root } })).toBe(true);
    });

    test("~/.grok is the home without GROK_HOME", () => {
      session(ID, ".grok/");
      expect(grok.fromStore(query(new Date(), { HOME: tmp.root }))).toBe(ID);
    });
  });
});
