// Asking an agent binary which options it takes (src/agent-probe.ts): the options found in real
// help texts, how a program word is found, one probe per build, the cache file, and a binary that
// never answers. The binaries here are small sh scripts that count their runs.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FlagProbe, optionsInHelp, resolveExecutable } from "../../src/agent-probe.ts";
import { listProcStats } from "../../src/proc.ts";
import { until } from "../harness/fleet.ts";
import { tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir()));
afterEach(() => tmp.cleanup());

describe("the options in a help text", () => {
  test.each([
    [
      "Claude Code",
      "  -r, --resume [value]   Resume\n  --session-id <uuid>   Use a session ID\n  --settings <file-or-json>  Settings",
      ["-r", "--resume", "--session-id", "--settings"],
    ],
    ["Codex", "Options:\n  -c, --config <key=value>\n          Override a configuration value\n  -h, --help", ["-c", "--config", "-h", "--help"]],
    [
      "the npm Grok CLI (commander)",
      "  -V, --version   output the version number\n  -d, --directory <dir>\n  --max-tool-rounds <rounds>  maximum number",
      ["-V", "--version", "-d", "--directory", "--max-tool-rounds"],
    ],
    ["a usage line", "usage: tool [-v|--verbose] [--out=FILE] (--x)", ["-v", "--verbose", "--out", "--x"]],
  ])("%s", (_what, text, expected) => {
    expect([...optionsInHelp(text)].sort()).toEqual([...expected].sort());
  });

  test("words with inner dashes and prose are not options", () => {
    expect([...optionsInHelp("a well-known session-id in non-interactive mode --- and -- alone")]).toEqual([]);
  });
});

describe("finding the executable", () => {
  function executable(path: string, mode = 0o755): string {
    const full = tmp.file(path, "#!/bin/sh\n");
    chmodSync(full, mode);
    return full;
  }

  test("a bare word is looked up on the task's PATH, in order, skipping what is not executable", () => {
    executable("a/claude", 0o644);
    const b = executable("b/claude");
    executable("c/claude");
    const env = { PATH: [join(tmp.root, "a"), join(tmp.root, "b"), join(tmp.root, "c")].join(":") };
    expect(resolveExecutable("claude", env, "/")).toBe(b);
    expect(resolveExecutable("codex", env, "/")).toBeNull();
  });

  test("a path is taken from the task's directory, and ~/ from its HOME", () => {
    const local = executable("proj/bin/codex");
    const home = executable("home/bin/grok");
    expect(resolveExecutable("bin/codex", {}, join(tmp.root, "proj"))).toBe(local);
    expect(resolveExecutable("~/bin/grok", { HOME: join(tmp.root, "home") }, "/")).toBe(home);
    expect(resolveExecutable(local, {}, "/")).toBe(local);
  });
});

/** The pid the last run of a test binary logged (its shell, which leads the probe's group). */
function pidOfRun(binaryPath: string): string | undefined {
  const log = binaryPath.replace(/\/bin\/([^/]+)$/, "/$1.runs");
  return existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").at(-1) : undefined;
}

describe("the probe", () => {
  /** A fake agent binary that prints `help` for --help and appends its pid to its run log each time. */
  function binary(help: string, name = "agent", extra = ""): { path: string; runs(): number } {
    const log = join(tmp.root, `${name}.runs`);
    const path = tmp.file(`bin/${name}`, `#!/bin/sh\necho $$ >> '${log}'\n${extra}cat <<'EOF'\n${help}\nEOF\n`);
    chmodSync(path, 0o755);
    return { path, runs: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0) };
  }

  const probe = (budgetMs = 5_000, cacheFile: string | null = join(tmp.root, "run", "agent-flags.json")) => {
    mkdirSync(join(tmp.root, "run"), { recursive: true });
    const lines: string[] = [];
    return { probe: new FlagProbe({ cacheFile, budgetMs, log: (l) => lines.push(l) }), lines };
  };

  test("answers from the binary's --help, once per build, and again after an upgrade", async () => {
    const bin = binary("  --session-id <uuid>\n  --settings <file>");
    const env = { PATH: `${join(tmp.root, "bin")}:/usr/bin:/bin` };
    const { probe: p } = probe();
    expect(p.flagsOf("agent", env, "/")).toBeNull();
    await p.prepare("agent", env, "/");
    expect([...p.flagsOf("agent", env, "/")!].sort()).toEqual(["--session-id", "--settings"]);
    await p.prepare("agent", env, "/");
    expect(bin.runs()).toBe(1);

    writeFileSync(bin.path, readFileSync(bin.path, "utf8").replace("--settings <file>", "--settings <file>\n  --resume <id>"));
    expect(p.flagsOf("agent", env, "/")).toBeNull();
    await p.prepare("agent", env, "/");
    expect(bin.runs()).toBe(2);
    expect(p.flagsOf("agent", env, "/")!.has("--resume")).toBe(true);
  });

  test("the answer is kept in a 0600 file that a new supervisor reads, keyed by path, size and mtime", async () => {
    const bin = binary("  -c, --config <key=value>");
    const env = { PATH: `${join(tmp.root, "bin")}:/usr/bin:/bin` };
    const first = probe();
    await first.probe.prepare("agent", env, "/");
    const file = join(tmp.root, "run", "agent-flags.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = probe();
    expect(second.probe.flagsOf("agent", env, "/")!.has("-c")).toBe(true);
    await second.probe.prepare("agent", env, "/");
    expect(bin.runs()).toBe(1);

    // Same size, another mtime: another build.
    const later = new Date(Date.now() + 60_000);
    utimesSync(bin.path, later, later);
    expect(second.probe.flagsOf("agent", env, "/")).toBeNull();
  });

  test("a damaged cache file is ignored and replaced", async () => {
    binary("  --x");
    tmp.file("run/agent-flags.json", '{"version": 1, "entries": [{"path": 3}');
    const { probe: p } = probe();
    await p.prepare("agent", { PATH: `${join(tmp.root, "bin")}:/usr/bin:/bin` }, "/");
    expect(p.flagsOf("agent", { PATH: `${join(tmp.root, "bin")}:/usr/bin:/bin` }, "/")!.has("--x")).toBe(true);
    expect(JSON.parse(readFileSync(join(tmp.root, "run", "agent-flags.json"), "utf8")).entries).toHaveLength(1);
  });

  test("a binary that does not answer within the budget stays unknown for this spawn, and its probe is killed on dispose", async () => {
    const bin = binary("  --session-id <uuid>", "slow", "sleep 30\n");
    const env = { PATH: `${join(tmp.root, "bin")}:/usr/bin:/bin` };
    const { probe: p } = probe(50);
    await p.prepare("slow", env, "/");
    expect(p.flagsOf("slow", env, "/")).toBeNull();
    expect(bin.runs()).toBe(1);
    const pid = Number(await until("the probe's shell", () => pidOfRun(bin.path)));
    p.dispose();
    await until("the probe's group to be gone", () => !(listProcStats() ?? []).some((p) => p.pgrp === pid && p.state !== "Z"));
  });

  test("watched program words are asked in the background before any spawn, so the spawn finds the answer ready", async () => {
    const bin = binary("  --session-id <uuid>\n  --settings <file>");
    const env = { PATH: `${join(tmp.root, "bin")}:/usr/bin:/bin` };
    const { probe: p } = probe(0);
    p.watch(["agent", "nothere"], env, "/");
    const flags = await until("the watched binary's answer", () => p.flagsOf("agent", env, "/") ?? undefined);
    expect([...flags].sort()).toEqual(["--session-id", "--settings"]);
    await p.prepare("agent", env, "/");
    expect(bin.runs()).toBe(1);
    p.dispose();
  });

  test("a program that is not there, or not executable, is never run and stays unknown", async () => {
    const { probe: p } = probe();
    await p.prepare("nothere", { PATH: `${join(tmp.root, "bin")}:/usr/bin:/bin` }, "/");
    expect(p.flagsOf("nothere", { PATH: `${join(tmp.root, "bin")}:/usr/bin:/bin` }, "/")).toBeNull();
  });
});
