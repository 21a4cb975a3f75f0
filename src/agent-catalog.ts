// What `fleetcom agents` says about each agent: the versions its resume was verified with (real CLIs
// run offline against fake model servers, docs/agents.md "The agents as tested"), what fleetcom pins,
// captures and injects, when a conversation becomes resumable and where attention comes from. Pure:
// the version found on PATH is the probe's (agent-probe.ts).
import { AGENTS } from "./agent-run.ts";
import { declaredAgent } from "./agent-declared.ts";
import type { DeclaredAgentSpec } from "./config-agents.ts";
import type { Agent } from "./agent.ts";

export interface AgentFacts {
  /** Versions (as `--version` prints them) run for real, and what was verified with each. */
  tested: Record<string, "resume verified" | "no sessions: runs as typed">;
  pinned: string;
  captured: string;
  injected: string;
  resumable: string;
  attention: string;
}

/** The built-in agents' facts; docs/agents.md holds the same table for people. */
const BUILT_IN: Record<string, AgentFacts> = {
  claude: {
    tested: { "2.1.332": "resume verified" },
    pinned: "--session-id at a bare start",
    captured: "SessionStart hook's session_id, the exit hint, the live registry sessions/<pid>.json",
    injected: "--session-id, --settings <overlay of hooks>; FLEETCOM_CAPTURE_FILE",
    resumable: "when projects/<slug>/<id>.jsonl exists (at the first prompt)",
    attention: "hooks: UserPromptSubmit, Stop, Notification, SessionEnd",
  },
  codex: {
    tested: { "0.171.0": "resume verified" },
    pinned: "nothing (Codex makes its own ID)",
    captured: "notify's thread-id (agent-turn-complete), the exit hint",
    injected: "-c notify=[<codex-notify.sh>]; FLEETCOM_CAPTURE_FILE, FLEETCOM_NOTIFY_CHAIN",
    resumable: "when a rollout names the thread (after its first turn)",
    attention: "notify: agent-turn-complete",
  },
  grok: {
    // The npm @vibe-kit/grok-cli 0.0.34 calls itself 1.0.1.
    tested: { "1.0.1": "no sessions: runs as typed" },
    pinned: "--session-id at a bare start, when its --help lists it",
    captured: "the pin, the exit hint",
    injected: "--session-id, when its --help lists it",
    resumable: "when <grok home>/sessions/<cwd>/<id>/ exists",
    attention: "the bell only",
  },
  "command-code": {
    tested: { "1.64.0": "resume verified" },
    pinned: "nothing",
    captured: "the scratchpad ID under its private base, the exit hint",
    injected: "COMMANDCODE_SCRATCHPAD_BASE, FLEETCOM_CAPTURE_FILE",
    resumable: "when projects/<slug>/<id>.jsonl exists (after the first completed turn)",
    attention:
      "its Stop hook, once added to ~/.commandcode/settings.json as docs/agents.md shows; the wait's message is the reply its transcript gets just after",
  },
  // Resume of the next three was verified under fleetcom on the real CLIs (save, --kill, load and
  // SIGKILL, recover, the history sent again). Their attention channels were built after that
  // and are tested against fakes that keep each CLI's loading rules, and were also run on the real
  // 0.61.0, 0.24.4 and 1.18.33 (docs/agents.md, The agents as tested).
  gemini: {
    tested: { "0.61.0": "resume verified" },
    pinned: "--session-id at a bare start, when its --help lists it or its installed version is proven to take it",
    captured: "the pin, SessionStart's session_id, the exit hint",
    injected:
      "--session-id; GEMINI_CLI_HOME=<a private home linking the user's .gemini, plus fleetcom's extension of hooks>, GEMINI_CLI_TRUSTED_FOLDERS_PATH (the user's own file), FLEETCOM_CAPTURE_FILE",
    resumable: "when its session file records a user message and a reply (the file exists before any turn)",
    attention:
      "hooks of fleetcom's extension: BeforeAgent, AfterAgent, Notification, SessionEnd (AfterAgent and a ToolPermission Notification seen under fleetcom on the real 0.61.0)",
  },
  qwen: {
    tested: { "0.24.4": "resume verified" },
    pinned: "--session-id at a bare start, when its --help lists it or its installed version is proven to take it",
    captured: "the pin, SessionStart's session_id, the exit hint",
    injected: "--session-id; QWEN_CODE_SYSTEM_SETTINGS_PATH=<overlay of hooks> unless the user has system settings; FLEETCOM_CAPTURE_FILE",
    resumable: "when projects/<cwd>/chats/<id>.jsonl records a user message",
    attention: "hooks: UserPromptSubmit, Stop, Notification, SessionEnd (Stop seen under fleetcom on the real 0.24.4; permission only on a fake)",
  },
  opencode: {
    tested: { "1.18.33": "resume verified" },
    pinned: "nothing (opencode has no pin)",
    captured: "the exit hint; its database (read-only) at a save",
    injected: "OPENCODE_CONFIG_CONTENT (the user's own, with fleetcom's plugin added), FLEETCOM_CAPTURE_FILE",
    resumable: "when its database has the session's row (at the first prompt)",
    attention: "fleetcom's plugin: session.idle (seen under fleetcom on the real 1.18.33), permission.asked (only on a fake)",
  },
};

export interface CatalogEntry {
  agent: Agent;
  kind: "built-in" | "declared";
  facts: AgentFacts;
  /** Why a declared agent is not used, or null. */
  unused: string | null;
}

/** Facts fleetcom can state about any agent from its interface alone: for a built-in agent this table does not list yet. */
function derivedFacts(agent: Agent): AgentFacts {
  const flags = agent.launchFlags({ agent, program: agent.words[0]!, id: null });
  return {
    tested: {},
    pinned: flags.length > 0 ? `${flags.join(", ")} at a bare start` : "nothing",
    captured: "see docs/agents.md",
    injected: flags.length > 0 ? flags.join(", ") : "nothing",
    resumable: "see docs/agents.md",
    attention: agent.attentionFile ? "its own channel" : "the bell only",
  };
}

function declaredFacts(spec: DeclaredAgentSpec): AgentFacts {
  const pin = spec.pin === null ? null : spec.pin.join(" ");
  return {
    tested: {},
    pinned: pin === null ? "nothing (no pin declared)" : `${pin} at a bare start, when its --help lists the options`,
    captured: pin === null ? "the resume form typed, the one store entry made at the spawn" : "the pin, the resume form typed",
    injected: pin ?? "nothing",
    resumable: `when ${spec.store} exists and is not empty`,
    attention: "the bell only",
  };
}

/** Every agent: the built-in ones, then the declared ones (one a built-in already answers to is unused). */
export function catalog(declared: readonly DeclaredAgentSpec[]): CatalogEntry[] {
  const builtInWords = new Set(AGENTS.flatMap((a) => a.words));
  return [
    ...AGENTS.map((agent) => ({ agent, kind: "built-in" as const, facts: BUILT_IN[agent.name] ?? derivedFacts(agent), unused: null })),
    ...declared.map((spec) => ({
      agent: declaredAgent(spec),
      kind: "declared" as const,
      facts: declaredFacts(spec),
      unused: builtInWords.has(spec.match) ? `"${spec.match}" is a built-in agent's` : null,
    })),
  ];
}

/** Whether resume was verified with this version, in words, and as a yes/no for `--json`. */
export function resumeStatus(facts: AgentFacts, kind: CatalogEntry["kind"], version: string | null | undefined): { verified: boolean; said: string } {
  const found = version == null ? undefined : facts.tested[version];
  if (found !== undefined)
    return {
      verified: found === "resume verified",
      said: found === "resume verified" ? `resumes the same conversation: verified with ${version}` : `this version has ${found}`,
    };
  const verified = Object.keys(facts.tested).filter((v) => facts.tested[v] === "resume verified");
  if (verified.length > 0) return { verified: false, said: `resumes the same conversation: verified with ${verified.join(", ")}, not with this version` };
  return { verified: false, said: kind === "declared" ? "resume not verified (declared in config.toml)" : "resume not verified" };
}
