import { afterEach, describe, expect, test } from "bun:test";
import { declaredAgent, storePath } from "../../src/agent-declared.ts";
import { detect, resumeCommand } from "../../src/agent.ts";
import { checkedAgents, type DeclaredAgentSpec } from "../../src/config-agents.ts";
import { HOSTILE, ID, ID2, tempDir } from "../harness/agent-test-helpers.ts";

const FILE = "/cfg/config.toml";

function check(text: Record<string, unknown>, lines: string[] = []) {
  return checkedAgents({ value: text, file: FILE, lines });
}

const GOOD = { match: "myagent", pin: ["--session-id", "{id}"], resume: ["--resume", "{id}"], store: "~/.myagent/{id}.jsonl" };

describe("the [agents.NAME] tables", () => {
  test("an id pattern that could backtrack exponentially is refused; the usual ID shapes are taken", () => {
    const { resume, store } = GOOD;
    const problem = (id: string) => check({ a: { match: "a", resume, store, id } }).problems[0] ?? null;
    for (const id of ["(a|aa)+", "(a+)+", "(a*){9}", "(?:a|b)*", "((ab)*c)+", "(?<n>a)\\k<n>", "(a)\\1", "(?=a)a", "\\w*\\w*\\w*\\w*", "a?a?a?a?"])
      expect(problem(id)).toMatch(/^\/cfg\/config\.toml:\d+: agents\.a: id: .*; agent ignored$/);
    for (const id of ["ses_[A-Za-z0-9]{26}", "[a-z]+-[0-9]+", "(?:v1-)?[0-9a-f]{32}", "[A-Za-z0-9_-]{8,64}", "[(+]+x", "(ab){3}", "(?:ab)+", ".*", "[ab]+"])
      expect(problem(id)).toBeNull();
  });

  test("a good entry is taken, id defaulting to uuid and pin to none", () => {
    const { match, resume, store } = GOOD;
    expect(check({ a: GOOD, b: { match: "b", resume, store } })).toEqual({
      agents: [
        { name: "a", match, pin: ["--session-id", "{id}"], selector: "--resume", store, id: "uuid", usage: null },
        { name: "b", match: "b", pin: null, selector: "--resume", store, id: "uuid", usage: null },
      ],
      problems: [],
    });
    expect(match).toBe("myagent");
  });

  test("usage names a built-in agent whose record shape the store has; anything else is one line naming the field", () => {
    expect(check({ a: { ...GOOD, usage: "gemini" } }).agents[0]!.usage).toBe("gemini");
    const { agents, problems } = check({ a: { ...GOOD, usage: "cursor" } });
    expect(agents).toEqual([]);
    expect(problems[0]).toContain(
      'agents.a: usage: expected the agent whose record shape its store has: "claude", "codex", "gemini", "qwen", got "cursor"; agent ignored',
    );
  });

  test("each bad entry is one line naming its line, the entry and the field, and only it is left out", () => {
    const lines = ["[agents.a]", 'match = "a"', "[agents.b]", 'match = "x/y"', "[agents.c]", 'store = "rel/{id}"'];
    const bad = {
      a: { ...GOOD, match: "a" },
      b: { ...GOOD, match: "x/y" },
      c: { ...GOOD, store: "rel/{id}" },
      d: { ...GOOD, store: "~/{id}/{id}" },
      e: { ...GOOD, pin: ["--session-id"] },
      f: { ...GOOD, resume: ["resume", "{id}", "--x"] },
      g: { ...GOOD, id: "ses_[a-z" },
      h: { ...GOOD, id: "ses_[a-z]+" },
      i: { ...GOOD, colour: "red" },
      j: "myagent",
      "bad name": GOOD,
    };
    const { agents, problems } = check(bad, lines);
    expect(agents.map((a) => a.name)).toEqual(["a"]);
    expect(problems).toHaveLength(10);
    expect(problems[0]).toBe(`${FILE}:4: agents.b: match: expected the executable's name, such as "myagent" (no '/'), got "x/y"; agent ignored`);
    expect(problems[1]).toStartWith(`${FILE}:6: agents.c: store: expected a path starting with ~/ or /`);
    expect(problems.slice(2).map((p) => /^\S+ (agents\.[^:]+(?:: (?:match|pin|resume|store|id|colour)(?=:))?)/.exec(p)?.[1])).toEqual([
      "agents.d: store",
      "agents.e: pin",
      "agents.f: resume",
      "agents.g: id",
      "agents.h: id",
      "agents.i: colour",
      "agents.j",
      "agents.bad name",
    ]);
    expect(problems[6]).toContain("a pin needs IDs fleetcom can make");
  });

  test("anything but tables under agents is one line", () => {
    expect(checkedAgents({ value: "x", file: FILE, lines: ['agents = "x"'] }).problems).toEqual([
      `${FILE}:1: agents: expected tables such as [agents.myagent], got "x"; ignored`,
    ]);
  });
});

describe("a declared agent", () => {
  const dirs = tempDir();
  afterEach(() => dirs.cleanup());
  const spec = (over: Partial<DeclaredAgentSpec> = {}): DeclaredAgentSpec => ({
    name: "myagent",
    match: "myagent",
    pin: ["--session-id", "{id}"],
    selector: "--resume",
    store: "~/.myagent/{id}.jsonl",
    id: "uuid",
    usage: null,
    ...over,
  });
  const env = () => ({ HOME: dirs.root });

  test("a bare start is pinned with its own words, every word quoted for sh", () => {
    const agent = declaredAgent(spec({ pin: ["--session-id={id}", "--new"] }));
    const launch = detect("myagent", [agent])!;
    const made = agent.instrument(launch, null!, {})!;
    expect(made.args).toEqual([`'--session-id=${made.pinned}'`, "'--new'"]);
    expect(agent.launchFlags(launch)).toEqual(["--session-id={id}", "--new"].filter((w) => w.startsWith("-")));
    expect(agent.instrument(detect(`myagent --resume ${ID}`, [agent])!, null!, {})).toEqual({ args: [], env: {}, pinned: ID });
  });

  test("holds a conversation only when its store path exists and is not empty", () => {
    const agent = declaredAgent(spec());
    const where = { cwd: "/", env: env() };
    expect(agent.holds(ID, where)).toBe(false);
    dirs.file(`.myagent/${ID}.jsonl`, "");
    expect(agent.holds(ID, where)).toBe(false);
    dirs.file(`.myagent/${ID}.jsonl`, "{}\n");
    expect(agent.holds(ID, where)).toBe(true);
    expect(storePath("~/.myagent/{id}.jsonl", env(), ID)).toBe(`${dirs.root}/.myagent/${ID}.jsonl`);
  });

  test("with its own ID shape: detected, resumed and found in its store by that shape, and never by a hostile word", () => {
    const agent = declaredAgent(spec({ pin: null, selector: "-s", store: "~/.oc/{id}/messages.json", id: "ses_[A-Za-z0-9]+" }));
    const launch = detect("myagent -s 'ses_abc123'", [agent])!;
    expect(launch.id).toBe("ses_abc123");
    expect(resumeCommand(launch, "ses_abc123")).toBe("myagent -s 'ses_abc123'");
    for (const word of [...HOSTILE, "ses_$(id)", "ses_a/../b", ID]) {
      expect(detect(`myagent -s ${word}`, [agent])).toBeNull();
      expect(resumeCommand(launch, word)).toBeNull();
    }
    dirs.file(".oc/ses_new1/messages.json", "{}");
    dirs.dir(".oc/ses_empty");
    dirs.file(".oc/$(touch x)/messages.json", "{}");
    const query = { cwd: "/", spawnedAt: new Date(), env: env(), taken: new Set<string>() };
    expect(agent.fromStore(query)).toBe("ses_new1");
    expect(agent.fromStore({ ...query, taken: new Set(["ses_new1"]) })).toBeNull();
  });

  test("two conversations made at the spawn are no match: resuming the wrong one is worse than none", () => {
    const agent = declaredAgent(spec());
    dirs.file(`.myagent/${ID}.jsonl`, "{}");
    dirs.file(`.myagent/${ID2}.jsonl`, "{}");
    expect(agent.fromStore({ cwd: "/", spawnedAt: new Date(), env: env(), taken: new Set() })).toBeNull();
  });
});
