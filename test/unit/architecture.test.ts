// The house rules, checked on the import graph (static and dynamic imports, type-only ones left out,
// as the bundle evaluates them): no cycle, each layer imports only what it may, command files are
// leaves, and the client paths people run in loops never load the schema library or the emulator.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");
const transpiler = new Bun.Transpiler({ loader: "ts" });

/** Each module's runtime imports: src files by name, packages by name. */
function importsOf(file: string, kinds = ["import-statement", "dynamic-import"]): string[] {
  const code = readFileSync(resolve(SRC, file), "utf8").replace(/^#!.*/, "");
  return transpiler
    .scanImports(code)
    .filter((imp) => kinds.includes(imp.kind))
    .map((imp) => (imp.path.startsWith(".") ? basename(resolve(dirname(resolve(SRC, file)), imp.path)) : imp.path));
}

// A Bun macro runs at bundle time (validator-precompile.ts builds the schemas under arktype): the
// program never evaluates it, so it is no part of the graph a process runs.
const MACROS = new Set(["validator-precompile.ts"]);
const MODULES = readdirSync(SRC).filter((f) => f.endsWith(".ts") && !MACROS.has(f));
const GRAPH = new Map(MODULES.map((m) => [m, importsOf(m).filter((i) => !MACROS.has(i))]));

/** Modules a process evaluates at start-up from `entries`: static imports only. */
export function staticClosure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.endsWith(".ts")) queue.push(...importsOf(file, ["import-statement"]).filter((i) => !MACROS.has(i)));
  }
  return seen;
}

function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (m: string) => {
    if (state.get(m) === "done") return;
    if (state.get(m) === "open") return void found.push([...path.slice(path.indexOf(m)), m]);
    state.set(m, "open");
    path.push(m);
    for (const next of GRAPH.get(m) ?? []) if (GRAPH.has(next)) visit(next);
    path.pop();
    state.set(m, "done");
  };
  for (const m of MODULES) visit(m);
  return found;
}

const layer = (m: string) => /^(cmd|daemon|term|agent|ui|client|recipe|wire|text)(-|\.ts$)/.exec(m)?.[1] ?? "shared";

// Who may not import whom. The one sanctioned crossing: `fleetcom --foreground` runs the supervisor
// inside the dashboard's process (cmd-root.ts → daemon-supervisor.ts), which the cmd rule allows.
const FORBIDDEN: Record<string, string[]> = {
  cmd: ["cmd"],
  daemon: ["ui", "client", "cmd"],
  term: ["ui", "client", "cmd", "daemon", "agent"],
  agent: ["ui", "client", "cmd", "daemon"],
  ui: ["daemon", "term", "agent", "cmd"],
  client: ["daemon", "term", "agent", "ui", "cmd"],
  recipe: ["daemon", "term", "agent", "ui", "client", "cmd", "wire"],
  wire: ["daemon", "term", "agent", "ui", "client", "cmd"],
  text: ["daemon", "term", "agent", "ui", "client", "cmd", "wire", "recipe"],
  shared: ["daemon", "term", "agent", "ui", "client", "cmd"],
};
const SHARED_EXCEPTIONS = new Set(["cli.ts", "commands.ts", "main.ts"]);

describe("the import graph", () => {
  test("has no cycle", () => {
    expect(cycles()).toEqual([]);
  });

  test("a command file is a leaf: only the runner and the command table import one", () => {
    const importers = MODULES.filter((m) => (GRAPH.get(m) ?? []).some((i) => i.startsWith("cmd-")));
    expect(importers.sort()).toEqual(["cli.ts", "commands.ts"]);
  });

  test("each layer imports only what it may", () => {
    const broken: string[] = [];
    for (const m of MODULES) {
      if (SHARED_EXCEPTIONS.has(m)) continue;
      for (const i of GRAPH.get(m)!) {
        if (GRAPH.has(i) && FORBIDDEN[layer(m)]!.includes(layer(i))) broken.push(`${m} → ${i}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("the walker sees what it must: the daemon loads the schemas, the daemon's screen xterm", () => {
    expect(staticClosure(["daemon-supervisor.ts"]).has("wire-protocol.ts")).toBe(true);
    expect(staticClosure(["term-screen.ts"]).has("@xterm/headless")).toBe(true);
  });

  // arktype's import costs most of a CPU-second on a loaded machine: the schemas are precompiled at
  // build time and arktype is loaded only to word a refusal, so no process, the daemon included, loads it at start.
  test("arktype is imported by validator.ts alone, and only on demand", () => {
    const importers = MODULES.filter((m) => importsOf(m).includes("arktype"));
    expect(importers).toEqual(["validator.ts"]);
    expect(importsOf("validator.ts", ["import-statement"])).not.toContain("arktype");
  });
});

// arktype costs ~110 ms to import, xterm and its width tables more: the commands people run in loops
// and prompts, the dashboard, --help and a mistyped command must not pay for them.
describe("start-up imports", () => {
  const heavy = (modules: Set<string>) =>
    [...modules].filter((m) => m === "arktype" || m.startsWith("arktype/") || m.startsWith("@xterm/") || m === "term-widths.ts");
  const runner = ["main.ts", "cli.ts", "commands.ts"];

  for (const command of ["ls", "attach", "send", "peek", "logs", "grep", "run", "kill", "rm", "status", "wait"]) {
    test(`fleetcom ${command}`, () => {
      expect(heavy(staticClosure([...runner, `cmd-${command}.ts`]))).toEqual([]);
    });
  }

  test("fleetcom (the dashboard, no session named)", () => {
    expect(heavy(staticClosure([...runner, "cmd-root.ts"]))).toEqual([]);
  });

  test("fleetcom --help: every command's definition, which citty reads for the descriptions", () => {
    expect(heavy(staticClosure([...runner, ...MODULES.filter((m) => m.startsWith("cmd-"))]))).toEqual([]);
  });

  test("fleetcom no-such-command: the check for a session of that name", () => {
    expect(heavy(staticClosure([...runner, "cmd-root.ts", "recipe-names.ts"]))).toEqual([]);
  });

  for (const command of ["daemon", "sessions", "config", "recover", "load", "save"]) {
    test(`fleetcom ${command}, all it may import on the way included, loads no arktype at start`, () => {
      const reachable = new Set<string>();
      const queue = [...runner, `cmd-${command}.ts`];
      while (queue.length) {
        const file = queue.pop()!;
        if (reachable.has(file) || !GRAPH.has(file)) continue;
        reachable.add(file);
        queue.push(...GRAPH.get(file)!);
      }
      expect(reachable.has("validator.ts")).toBe(true);
      expect([...reachable].filter((m) => importsOf(m, ["import-statement"]).includes("arktype"))).toEqual([]);
    });
  }

  test("fleetcom sessions does not load the emulator", () => {
    expect([...staticClosure([...runner, "cmd-sessions.ts"])].filter((m) => m.startsWith("@xterm/"))).toEqual([]);
  });

  test("fleetcom --version loads nothing but the version", () => {
    expect([...staticClosure(["main.ts"])].sort()).toEqual(["main.ts", "version.ts"]);
  });
});
