// The pure core of agent conversations (src/agent.ts): the UUID gate, which commands take part,
// the resume form, the instrumented string and the precedence of evidence. Hostile inputs sit in
// the same tables as good ones.
import { describe, expect, test } from "bun:test";
import { conversationId, detect, instrumentedCommand, isUuid, resumeCommand, shellQuote, single, textsAfter } from "../../src/agent.ts";
import { AGENTS } from "../../src/agent-run.ts";

const ID = "c8c4a5cc-0b32-4ba0-a6b4-6ed08c218e0d";
const OTHER = "019f5453-de22-7240-b2e5-0d32692aa6d9";

describe("isUuid", () => {
  test.each([
    [ID, true],
    [OTHER, true],
    ["00000000-0000-0000-0000-000000000000", true],
    [ID.toUpperCase(), false],
    ["C8c4a5cc-0b32-4ba0-a6b4-6ed08c218e0d", false],
    [ID.slice(0, 35), false],
    [`${ID}0`, false],
    [`${ID} `, false],
    [` ${ID}`, false],
    [`${ID}\n`, false],
    [`'${ID}'`, false],
    [`${ID}; rm -rf ~`, false],
    ["$(touch /tmp/pwned)", false],
    ["'; rm -rf ~; '", false],
    ["c8c4a5cc0b324ba0a6b46ed08c218e0d", false],
    ["c8c4a5cc-0b32-4ba0-a6b4-6ed08c218e0g", false],
    ["c8c4a5cc-0b32-4ba0-a6b46-ed08c218e0d", false],
    ["c8c4a5cc-0b32-4ba0-a6b4-6ed08c218e0\u0434", false],
    ["", false],
    [null, false],
    [42, false],
  ])("accepts only the strict lowercase 8-4-4-4-12 shape: %p → %p", (value, ok) => {
    expect(isUuid(value)).toBe(ok);
  });
});

describe("detect", () => {
  const agentOf = (command: string) => {
    const launch = detect(command, AGENTS);
    return launch && { agent: launch.agent.name, program: launch.program, id: launch.id };
  };

  test.each([
    ["claude", { agent: "claude", program: "claude", id: null }],
    ["codex", { agent: "codex", program: "codex", id: null }],
    ["grok", { agent: "grok", program: "grok", id: null }],
    ["cmd", { agent: "command-code", program: "cmd", id: null }],
    ["cmdc", { agent: "command-code", program: "cmdc", id: null }],
    ["command-code", { agent: "command-code", program: "command-code", id: null }],
    ["commandcode", { agent: "command-code", program: "commandcode", id: null }],
    [`claude --resume ${ID}`, { agent: "claude", program: "claude", id: ID }],
    [`claude --resume '${ID}'`, { agent: "claude", program: "claude", id: ID }],
    [`codex resume '${OTHER}'`, { agent: "codex", program: "codex", id: OTHER }],
    [`grok --resume ${ID}`, { agent: "grok", program: "grok", id: ID }],
    [`cmd --resume '${ID}'`, { agent: "command-code", program: "cmd", id: ID }],
    [`  claude\t \t--resume   '${ID}'\t`, { agent: "claude", program: "claude", id: ID }],
    ["/usr/local/bin/claude", { agent: "claude", program: "/usr/local/bin/claude", id: null }],
    ["~/bin/codex", { agent: "codex", program: "~/bin/codex", id: null }],
    ["./grok", { agent: "grok", program: "./grok", id: null }],
  ])("%p takes part", (command, expected) => {
    expect(agentOf(command)).toEqual(expected);
  });

  test.each([
    "claude -p 'fix the bug'",
    "claude fix it",
    "claude --continue",
    `claude -r ${ID}`,
    `claude --resume=${ID}`,
    `claude --resume ${ID} --verbose`,
    `claude --resume ${ID.toUpperCase()}`,
    `claude --resume ${ID.slice(0, 30)}`,
    `claude --resume "${ID}"`,
    `claude --resume ''${ID}''`,
    `claude --resume '${ID}`,
    "claude --resume '$(touch /tmp/pwned)'",
    "claude --resume '; rm -rf ~; '",
    `codex --resume ${ID}`,
    `codex resume --last`,
    "codex exec 'do it'",
    `grok resume ${ID}`,
    `cmd resume ${ID}`,
    "FOO=1 claude",
    "env claude",
    "claude | tee log",
    "claude; rm -rf ~",
    "claude && true",
    "/opt/$(whoami)/claude",
    "/opt/`id`/claude",
    "~/bin/claude\\",
    "/opt/a=b/claude",
    "/opt/*/claude",
    "/opt/x'y/claude",
    "claude-code",
    "claudex",
    "/usr/bin/claude/",
    "CLAUDE",
    "claude\nrm -rf ~",
    "",
    "   ",
  ])("%p is an ordinary command", (command) => {
    expect(agentOf(command)).toBeNull();
  });
});

describe("resume forms", () => {
  test.each([
    ["claude", ID, `claude --resume '${ID}'`],
    ["/usr/local/bin/claude", ID, `/usr/local/bin/claude --resume '${ID}'`],
    ["codex", OTHER, `codex resume '${OTHER}'`],
    ["grok", ID, `grok --resume '${ID}'`],
    ["cmd", ID, `cmd --resume '${ID}'`],
    ["cmdc", ID, `cmdc --resume '${ID}'`],
    [`claude --resume '${OTHER}'`, ID, `claude --resume '${ID}'`],
    ["claude", "$(touch /tmp/pwned)", null],
    ["claude", "'; rm -rf ~; '", null],
    ["claude", ID.toUpperCase(), null],
    ["claude", `${ID} x`, null],
    ["claude", null, null],
  ])("%p with %p resumes as %p", (command, id, expected) => {
    expect(resumeCommand(detect(command, AGENTS)!, id)).toBe(expected);
  });

  test("the instrumented string puts the extra words right after the program word, and keeps the resume words", () => {
    expect(instrumentedCommand(detect("claude", AGENTS)!, ["--settings", shellQuote("/run/a b/s.json")])).toBe("claude --settings '/run/a b/s.json'");
    expect(instrumentedCommand(detect(`codex   resume ${OTHER}`, AGENTS)!, ["-c", "'x'"])).toBe(`codex -c 'x' resume '${OTHER}'`);
  });

  test("shellQuote makes any word literal for sh", () => {
    for (const word of ["plain", "a b", "it's", "'; rm -rf ~; '", "$(touch x)", "`x`", "\\", ""]) {
      const r = Bun.spawnSync(["/bin/sh", "-c", `printf %s ${shellQuote(word)}`]);
      expect(r.stdout.toString()).toBe(word);
    }
  });
});

describe("precedence", () => {
  const H = "11111111-1111-4111-8111-111111111111";
  const C = "22222222-2222-4222-8222-222222222222";
  const P = "33333333-3333-4333-8333-333333333333";
  const S = "44444444-4444-4444-8444-444444444444";

  test.each([
    ["the exit hint beats everything", { exitHint: H, captured: C, pinned: P, store: (): string => S }, H],
    ["the capture beats the pin", { exitHint: null, captured: C, pinned: P }, C],
    ["the pin beats the store", { captured: null, pinned: P, store: (): string => S }, P],
    ["the store comes last", { store: (): string => S }, S],
    ["a hostile hint falls through to the capture", { exitHint: "$(touch /tmp/pwned)", captured: C, pinned: P }, C],
    ["a hostile capture falls through to the pin", { captured: `${C} ; rm -rf ~`, pinned: P }, P],
    ["an uppercase pin falls through to the store", { pinned: "ABCDEF00-3333-4333-8333-333333333333", store: (): string => S }, S],
    ["a hostile store gives nothing", { store: (): string => "'; rm -rf ~; '" }, null],
    ["no evidence gives nothing", {}, null],
  ])("%s", (_what, evidence, expected) => {
    expect(conversationId(evidence)).toBe(expected);
  });

  test("the store is not asked when something stronger is known", () => {
    let asked = false;
    conversationId({
      pinned: P,
      store: () => {
        asked = true;
        return S;
      },
    });
    expect(asked).toBe(false);
  });

  test.each([
    [[S], [], S],
    [[S, S], [], S],
    [[S, P], [], null],
    [[S, P], [P], S],
    [[S], [S], null],
    [[], [], null],
    [[S, "$(x)", S.toUpperCase()], [], S],
  ])("a store match is the single free ID: %p taken %p → %p", (ids, taken, expected) => {
    expect(single(ids, new Set(taken))).toBe(expected);
  });

  test("the text after a header is the rest of its line or the next non-blank line", () => {
    const lines = ["Resume this session with:", "", "  claude --resume x  ", "Resume this session with: cmd --resume y", "Resume this session with:"];
    expect(textsAfter(lines, ["Resume this session with:"]).map((t) => t.text)).toEqual(["claude --resume x", "cmd --resume y"]);
  });
});
