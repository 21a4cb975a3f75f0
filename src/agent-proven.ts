// What an agent build is proven to take before its own `--help` has answered (agents.md, "Inject
// only what the binary understands"). A real agent's first `--help` takes longer than a spawn may
// wait (docs/benchmarks.md, agents' first `--help`), so the first agent of a daemon whose cache is cold would run as typed.
// An agent installed by npm sits in its package, whose package.json names the exact version, read
// in a few file reads without starting anything; a version run by hand under fleetcom with
// these very options is proven to take them. Any other version, or a binary outside its package,
// waits for its own `--help`: nothing is guessed.
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { member, parsedLine } from "./agent-files.ts";
import { readRegularFile } from "./files.ts";

/** By npm package and exact version: the launch options fleetcom injected into that build, run for real. */
const PROVEN: Record<string, Record<string, readonly string[]>> = {
  "@anthropic-ai/claude-code": { "2.1.332": ["--session-id", "--settings"] },
  "@openai/codex": { "0.171.0": ["-c"] },
  "@google/gemini-cli": { "0.61.0": ["--session-id"] },
  "@qwen-code/qwen-code": { "0.24.4": ["--session-id"] },
};

/** How far above the script its package.json may be (`bundle/gemini.js`, `bin/codex.js`). */
const LEVELS_UP = 3;
const PACKAGE_JSON_MAX = 256 * 1024;

/** The package an executable is installed in and what that version is proven to take; null when it is none of those. */
export function provenBuild(executable: string): { name: string; version: string; options: readonly string[] } | null {
  let dir: string;
  try {
    dir = dirname(realpathSync(executable));
  } catch {
    return null;
  }
  for (let level = 0; level < LEVELS_UP; level++, dir = dirname(dir)) {
    const manifest = packageAt(join(dir, "package.json"));
    if (manifest === null) continue;
    const versions = Object.hasOwn(PROVEN, manifest.name) ? PROVEN[manifest.name]! : {};
    return Object.hasOwn(versions, manifest.version) ? { ...manifest, options: versions[manifest.version]! } : null;
  }
  return null;
}

function packageAt(path: string): { name: string; version: string } | null {
  let text: string;
  try {
    text = readRegularFile(path, { maxBytes: PACKAGE_JSON_MAX }).toString("utf8");
  } catch {
    return null;
  }
  const doc = parsedLine(text);
  const name = member(doc, "name");
  const version = member(doc, "version");
  return typeof name === "string" && typeof version === "string" ? { name, version } : null;
}
