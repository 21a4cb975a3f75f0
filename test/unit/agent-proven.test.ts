// What an installed agent version is proven to take (src/agent-proven.ts): read from its package's
// package.json, exact versions only, nothing guessed.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { provenBuild } from "../../src/agent-proven.ts";
import { tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

function installed(name: string, version: string, script: string): string {
  tmp.file(`node_modules/${name}/package.json`, JSON.stringify({ name, version }));
  tmp.file(`node_modules/${name}/${script}`, "#!/bin/sh\n");
  tmp.dir("node_modules/.bin");
  const bin = join(tmp.root, "node_modules", ".bin", script.split("/").at(-1)!);
  symlinkSync(join(tmp.root, "node_modules", name, script), bin);
  return bin;
}

test.each([
  ["@google/gemini-cli", "0.61.0", "bundle/gemini.js", ["--session-id"]],
  ["@qwen-code/qwen-code", "0.24.4", "cli.js", ["--session-id"]],
  ["@anthropic-ai/claude-code", "2.1.332", "cli.js", ["--session-id", "--settings"]],
  ["@openai/codex", "0.171.0", "bin/codex.js", ["-c"]],
  ["@google/gemini-cli", "0.62.0", "bundle/gemini.js", null],
  ["@google/gemini-cli", "0.61.0-nightly", "bundle/gemini.js", null],
  ["someone-else", "0.61.0", "bundle/gemini.js", null],
  ["__proto__", "constructor", "cli.js", null],
  ["@google/gemini-cli", "toString", "cli.js", null],
])("%s %s through the link npm makes: %p", (name, version, script, options) => {
  expect(provenBuild(installed(name, version, script))?.options ?? null).toEqual(options as never);
});

test("a binary outside any package, or one that cannot be found, is proven to take nothing", () => {
  tmp.file("bin/gemini", "#!/bin/sh\n");
  expect(provenBuild(join(tmp.root, "bin", "gemini"))).toBeNull();
  expect(provenBuild(join(tmp.root, "nowhere"))).toBeNull();
});
