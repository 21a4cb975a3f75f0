// Puts the fake agents (test/fixtures/fake-agent.ts) first on PATH of a fleet's sandbox and reads
// back what each start recorded. A flavour replaces what a word runs: `{ grok: "grok-npm" }` is the
// npm Grok CLI, which has no sessions; `{ claude: "claude-old" }` a Claude without --session-id.
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Fleet } from "./fleet.ts";

const FAKE = resolve(import.meta.dir, "fixtures/fake-agent.ts");
const PROGRAMS: Record<string, string> = {
  claude: "claude",
  codex: "codex",
  grok: "grok",
  "command-code": "command-code",
  cmd: "command-code",
  cmdc: "command-code",
  commandcode: "command-code",
  gemini: "gemini",
  qwen: "qwen",
  opencode: "opencode",
};

export interface Invocation {
  agent: string;
  argv0: string;
  args: string[];
  cwd: string;
  env: {
    FLEETCOM_CAPTURE_FILE: string | null;
    FLEETCOM_NOTIFY_CHAIN: string | null;
    COMMANDCODE_SCRATCHPAD_BASE: string | null;
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: string | null;
    GEMINI_CLI_HOME: string | null;
    GEMINI_CLI_TRUSTED_FOLDERS_PATH: string | null;
    QWEN_CODE_SYSTEM_SETTINGS_PATH: string | null;
    OPENCODE_CONFIG_CONTENT: string | null;
  };
}

/** The npm package each agent is installed from, where a test lays a fake out as installed by npm. */
const PACKAGES: Record<string, { name: string; script: string }> = {
  claude: { name: "@anthropic-ai/claude-code", script: "cli.js" },
  codex: { name: "@openai/codex", script: "bin/codex.js" },
  gemini: { name: "@google/gemini-cli", script: "bundle/gemini.js" },
  qwen: { name: "@qwen-code/qwen-code", script: "cli.js" },
};

/**
 * `packaged` lays the named words out as npm installs them, at the version given: the word on PATH
 * a link to the script inside `node_modules/<package>/`, beside the package's package.json.
 */
export function installFakeAgents(
  fleet: Fleet,
  flavours: Record<string, string> = {},
  packaged: Record<string, string> = {},
): { bin: string; invocations(): Invocation[] } {
  const bin = join(fleet.sandbox.root, "bin");
  const log = join(fleet.sandbox.root, "agent-starts.jsonl");
  mkdirSync(bin, { recursive: true });
  writeFileSync(log, "");
  for (const [word, agent] of Object.entries({ ...PROGRAMS, ...flavours })) {
    const path = join(bin, word);
    const wrapper = `#!/bin/sh\nexec '${process.execPath}' '${FAKE}' ${agent} "$0" "$@"\n`;
    const pkg = PACKAGES[word];
    const version = packaged[word];
    if (pkg && version) {
      const dir = join(fleet.sandbox.root, "npm", "node_modules", pkg.name);
      mkdirSync(join(dir, pkg.script, ".."), { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: pkg.name, version, bin: { [word]: pkg.script } }));
      writeFileSync(join(dir, pkg.script), wrapper);
      chmodSync(join(dir, pkg.script), 0o755);
      symlinkSync(join(dir, pkg.script), path);
      continue;
    }
    writeFileSync(path, wrapper);
    chmodSync(path, 0o755);
  }
  fleet.env.PATH = `${bin}:${fleet.env.PATH}`;
  fleet.env.FAKE_AGENT_LOG = log;
  // A fake's --help is a Bun start-up, which a loaded machine can stretch past the product's few
  // hundred ms; the tests are about what is injected, not about that budget (agent-probe tests are).
  fleet.env.FLEETCOM_AGENT_PROBE_MS ??= "30000";
  return {
    bin,
    invocations: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l)),
  };
}

/**
 * A `word` first on PATH that sleeps whatever it is given and lists no options in its `--help`: for a
 * test of how an agent's task is named and kept, not of its conversation, at the cost of a shell.
 */
export function installSleepingAgent(fleet: Fleet, word: string): void {
  const bin = join(fleet.sandbox.root, "sleeping-agents");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, word), `#!/bin/sh\n[ "$1" = --help ] && exit 0\nexec sleep 3600\n`);
  chmodSync(join(bin, word), 0o755);
  fleet.env.PATH = `${bin}:${fleet.env.PATH}`;
}
