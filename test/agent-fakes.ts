// Puts the fake agents (test/fixtures/fake-agent.ts) first on PATH of a fleet's sandbox and reads
// back what each start recorded.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Fleet } from "./fleet.ts";

const FAKE = resolve(import.meta.dir, "fixtures/fake-agent.ts");
const PROGRAMS: Record<string, string> = { claude: "claude", codex: "codex", grok: "grok", "command-code": "command-code", cmd: "command-code", cmdc: "command-code", commandcode: "command-code" };

export interface Invocation {
  agent: string;
  argv0: string;
  args: string[];
  cwd: string;
  env: { FLEETCOM_CAPTURE_FILE: string | null; FLEETCOM_NOTIFY_CHAIN: string | null; COMMANDCODE_SCRATCHPAD_BASE: string | null };
}

export function installFakeAgents(fleet: Fleet): { bin: string; invocations(): Invocation[] } {
  const bin = join(fleet.sandbox.root, "bin");
  const log = join(fleet.sandbox.root, "agent-starts.jsonl");
  mkdirSync(bin, { recursive: true });
  writeFileSync(log, "");
  for (const [word, agent] of Object.entries(PROGRAMS)) {
    const path = join(bin, word);
    writeFileSync(path, `#!/bin/sh\nexec '${process.execPath}' '${FAKE}' ${agent} "$0" "$@"\n`);
    chmodSync(path, 0o755);
  }
  fleet.env.PATH = `${bin}:${fleet.env.PATH}`;
  fleet.env.FAKE_AGENT_LOG = log;
  return {
    bin,
    invocations: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l)),
  };
}
