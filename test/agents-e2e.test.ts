// Agent conversations through the real daemon, with fake agents first on PATH (agents.md): what a
// spawn executes, and what a save, a load, a rerun and a recovery snapshot make of the conversation.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { installFakeAgents, type Invocation } from "./agent-fakes.ts";
import { Fleet, until } from "./fleet.ts";
import { recoveryDirOf, snapshotFleet } from "./recovery-helpers.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let fleet: Fleet;
let fakes: ReturnType<typeof installFakeAgents>;
function setUp(f: Fleet): void {
  fleet = f;
  fakes = installFakeAgents(fleet);
}
afterEach(async () => {
  await fleet.stop();
});

async function spawn(command: string, env: Record<string, string> = {}): Promise<number> {
  const r = await fleet.cli(["run", "--", command], { env });
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr}`);
  const id = Number(r.stdout.trim());
  await until(`task ${id} to be ready`, async () => (await fleet.peek(id)).includes(" ready "));
  return id;
}

async function send(id: number, text: string): Promise<void> {
  await fleet.ok(["send", String(id), text]);
}

async function turn(id: number): Promise<void> {
  const before = (await fleet.peek(id)).split("turn done").length;
  await send(id, "hello");
  await until(`task ${id} to finish a turn`, async () => (await fleet.peek(id)).split("turn done").length > before);
}

function startsOf(agent: string): Invocation[] {
  return fakes.invocations().filter((i) => i.agent === agent);
}

async function savedCommands(name: string): Promise<string[]> {
  await fleet.ok(["save", name]);
  const doc = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", `${name}.json`), "utf8"));
  return Object.values(doc.dirs as Record<string, (string | { cmd: string })[]>).flat().map((e) => (typeof e === "string" ? e : e.cmd));
}

function namespaceOf(invocation: Invocation): string {
  const file = invocation.env.FLEETCOM_CAPTURE_FILE ?? invocation.env.COMMANDCODE_SCRATCHPAD_BASE!;
  return join(file, "..");
}

// Per agent: how it is typed, whether a turn is needed before its ID is known, and what a start's
// arguments look like bare and resumed.
const AGENTS = [
  {
    agent: "claude",
    typed: "claude",
    needsTurn: false,
    bare: (i: Invocation) => {
      const ns = namespaceOf(i);
      expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID), "--settings", join(ns, "claude-settings.json")]);
      return i.args[1]!;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["--settings", join(namespaceOf(i), "claude-settings.json"), "--resume", id]),
    resumeForm: (id: string) => `claude --resume '${id}'`,
  },
  {
    agent: "codex",
    typed: "codex",
    needsTurn: true,
    bare: (i: Invocation) => {
      expect(i.args).toEqual(["-c", `notify=["${join(namespaceOf(i), "codex-notify.sh")}"]`]);
      expect(i.env.FLEETCOM_NOTIFY_CHAIN).toBe("");
      return null;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["-c", `notify=["${join(namespaceOf(i), "codex-notify.sh")}"]`, "resume", id]),
    resumeForm: (id: string) => `codex resume '${id}'`,
  },
  {
    agent: "grok",
    typed: "grok",
    needsTurn: false,
    bare: (i: Invocation) => {
      expect(i.args).toEqual(["--session-id", expect.stringMatching(UUID)]);
      return i.args[1]!;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["--resume", id]),
    resumeForm: (id: string) => `grok --resume '${id}'`,
  },
  {
    agent: "command-code",
    typed: "cmd",
    needsTurn: false,
    bare: (i: Invocation) => {
      expect(i.args).toEqual([]);
      expect(i.env.COMMANDCODE_SCRATCHPAD_BASE).toMatch(/\/agents-\d+-[^/]+\/cc-1-1$/);
      return null;
    },
    resumed: (i: Invocation, id: string) => expect(i.args).toEqual(["--resume", id]),
    resumeForm: (id: string) => `cmd --resume '${id}'`,
  },
];

describe.each(AGENTS)("$agent through the daemon", (a) => {
  beforeEach(() => setUp(new Fleet()));

  async function spawnedWithConversation(): Promise<{ id: number; conversation: string }> {
    const id = await spawn(a.typed);
    const pinned = a.bare(startsOf(a.agent).at(-1)!);
    if (a.needsTurn) await turn(id);
    const row = await fleet.waitForTask(id, "to know its conversation", (t) => t.conversation !== null);
    expect(row).toMatchObject({ command: a.typed, agent: a.agent });
    if (pinned) expect(row.conversation).toBe(pinned);
    return { id, conversation: row.conversation! };
  }

  test("spawned bare, it is saved in its resume form and loads back into the same conversation", async () => {
    const { conversation } = await spawnedWithConversation();
    expect(await savedCommands("agents")).toEqual([a.resumeForm(conversation)]);

    await fleet.ok(["--kill"]);
    const startsBefore = startsOf(a.agent).length;
    await fleet.ok(["load", "agents"]);
    await until("the agent to start again", () => startsOf(a.agent).length > startsBefore);
    const resumed = startsOf(a.agent).at(-1)!;
    a.resumed(resumed, conversation);
    const [row] = await fleet.ls();
    expect(row).toMatchObject({ command: a.resumeForm(conversation), agent: a.agent, conversation });
  });

  test("a rerun of the finished task resumes the conversation and the row shows the resume form", async () => {
    const { id, conversation } = await spawnedWithConversation();
    await send(id, "/exit");
    await fleet.waitForExit(id);
    await fleet.ok(["rerun", String(id)]);
    await until("the rerun to start", () => startsOf(a.agent).length === 2);
    a.resumed(startsOf(a.agent)[1]!, conversation);
    expect(await fleet.task(id)).toMatchObject({ command: a.resumeForm(conversation), conversation, state: "running" });
  });
});
