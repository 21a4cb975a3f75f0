// The house rules, read from docs/architecture.md and held on the import graph (static, dynamic and
// type-only imports): every src file has its line in the doc, no cycle, each layer imports only what
// the doc's table lets it, command files are leaves, the client paths people run in loops never load
// the schema library or the emulator, and every unit test is named after a module or a listed theme.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { SUBCOMMANDS } from "../../src/cli-commands.ts";
import { factsOf } from "../../src/kit-define.ts";

// The commands whose plain shapes run without citty, as each says in its own facts.
const PLAIN_COMMANDS = (await Promise.all(Object.entries(SUBCOMMANDS).map(async ([name, lazy]) => (factsOf(await lazy()).plain ? [name] : [])))).flat();
const SRC = resolve(import.meta.dir, "../../src");
const DOC = readFileSync(resolve(import.meta.dir, "../../docs/architecture.md"), "utf8");
const transpiler = new Bun.Transpiler({ loader: "ts" });

const sourceOf = (file: string) => readFileSync(resolve(SRC, file), "utf8").replace(/^#!.*/, "");
const named = (file: string, path: string) => (path.startsWith(".") ? basename(resolve(dirname(resolve(SRC, file)), path)) : path);

/** Each module's runtime imports (what the bundle evaluates): src files by name, packages by name. */
function importsOf(file: string, kinds = ["import-statement", "dynamic-import", "require-call"]): string[] {
  return transpiler
    .scanImports(sourceOf(file))
    .filter((imp) => kinds.includes(imp.kind))
    .map((imp) => named(file, imp.path));
}

/** Each module's src imports of any kind, `import type` included: `from "./x.ts"`, `import("./x.ts")`, `import "./x.ts"`. */
function allImportsOf(file: string): string[] {
  const paths = [...sourceOf(file).matchAll(/\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
  return [...new Set(paths.map((path) => named(file, path)))];
}

// The build runs validator-precompile.ts (it builds the schemas under arktype and generates their
// checks): the program never evaluates it, so it is no part of the graph a process runs (the doc
// still lists it).
const MACROS = new Set(["validator-precompile.ts"]);
const MODULES = readdirSync(SRC).filter((f) => f.endsWith(".ts") && !MACROS.has(f));
const GRAPH = new Map(MODULES.map((m) => [m, allImportsOf(m).filter((i) => !MACROS.has(i))]));
const RUNTIME = new Map(MODULES.map((m) => [m, importsOf(m).filter((i) => !MACROS.has(i))]));

/** The lines of one `## ` section of the doc. */
function section(title: string): string[] {
  const lines = DOC.split("\n");
  const start = lines.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`docs/architecture.md has no section "## ${title}"`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The doc's layer table: each layer's name, and the layers it may import (`types` for `(types)`: type imports only). */
function layerTable(): Map<string, Map<string, "all" | "types">> {
  const table = new Map<string, Map<string, "all" | "types">>();
  for (const line of section("The layers")) {
    const cells = /^\| `([a-z]+)` \|.*\| (.*) \|$/.exec(line);
    if (!cells) continue;
    const allowed = new Map<string, "all" | "types">();
    for (const m of cells[2]!.matchAll(/`([a-z]+)`( \(types\))?/g)) allowed.set(m[1]!, m[2] ? "types" : "all");
    table.set(cells[1]!, allowed);
  }
  return table;
}

/** The doc's file index: each file named on a `- \`x.ts\`` line, with the layer of the `### \`layer\`` heading it sits under. */
function fileIndex(): Map<string, string> {
  const index = new Map<string, string>();
  let layer = "";
  for (const line of section("Every file")) {
    const heading = /^### `([a-z]+)`/.exec(line);
    if (heading) layer = heading[1]!;
    const entry = /^- `([\w.-]+\.ts)`/.exec(line);
    if (entry) index.set(entry[1]!, layer);
  }
  return index;
}

const LAYERS = layerTable();
const INDEX = fileIndex();
/** A file's layer is its prefix; a file with no prefix is in the layer the doc lists it under. */
const prefixOf = (m: string) => /^([a-z]+)(-|\.ts$)/.exec(m)?.[1];
const layer = (m: string) => {
  const prefix = prefixOf(m);
  return prefix !== undefined && LAYERS.has(prefix) ? prefix : (INDEX.get(m) ?? "unlisted");
};

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

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (m: string) => {
    if (state.get(m) === "done") return;
    if (state.get(m) === "open") return void found.push([...path.slice(path.indexOf(m)), m]);
    state.set(m, "open");
    path.push(m);
    for (const next of graph.get(m) ?? []) if (graph.has(next)) visit(next);
    path.pop();
    state.set(m, "done");
  };
  for (const m of graph.keys()) visit(m);
  return found;
}

/** Edges the table forbids: to a layer the importer's row does not name, or a runtime import of one it may import only for types. */
function forbiddenEdges(table = LAYERS, graph = GRAPH, runtime = RUNTIME): string[] {
  const broken: string[] = [];
  for (const [m, imports] of graph) {
    const from = layer(m);
    for (const i of imports) {
      if (!graph.has(i) || layer(i) === from) continue;
      const allowed = table.get(from)?.get(layer(i));
      if (allowed === undefined || (allowed === "types" && runtime.get(m)!.includes(i))) broken.push(`${m} → ${i}`);
    }
  }
  return broken;
}

/** The floors, top to bottom, in the order of the doc's table. */
const FLOORS = [...LAYERS.keys()];

/** Imports that run back up: from a file to one on a floor above its own, type imports counted. */
function backEdges(graph = GRAPH): string[] {
  const floor = (m: string) => FLOORS.indexOf(layer(m));
  return [...graph].flatMap(([m, imports]) => imports.filter((i) => graph.has(i) && floor(i) < floor(m)).map((i) => `${m} → ${i}`));
}

/** A file's lines, as `wc -l` counts them. */
const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
const MAX_LINES = 600;

describe("the map", () => {
  test("the doc's table and index are read: every layer has a row, and the rows name only layers", () => {
    expect(LAYERS.size).toBeGreaterThan(10);
    expect(INDEX.size).toBeGreaterThan(100);
    for (const [name, allowed] of LAYERS) for (const other of allowed.keys()) expect([name, LAYERS.has(other)]).toEqual([name, true]);
    expect([...new Set(INDEX.values())].filter((l) => !LAYERS.has(l))).toEqual([]);
  });

  test("every file in src/ has its line in docs/architecture.md, and every line names a file there is", () => {
    const files = readdirSync(SRC).filter((f) => f.endsWith(".ts"));
    expect(files.filter((m) => !INDEX.has(m))).toEqual([]);
    expect([...INDEX.keys()].filter((m) => !files.includes(m))).toEqual([]);
  });

  // A file that grows past this holds more than one concern: it is cut by concern, into flat files
  // whose first line says their one job, never by line count alone.
  test(`no file in src/ passes ${MAX_LINES} lines`, () => {
    const files = readdirSync(SRC).filter((f) => f.endsWith(".ts"));
    const long = files.flatMap((f) => {
      const lines = lineCount(readFileSync(resolve(SRC, f), "utf8"));
      return lines > MAX_LINES ? [`${f}: ${lines} lines`] : [];
    });
    expect(long).toEqual([]);
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount("a\nb")).toBe(2);
  });

  test("a prefix never lies: a prefixed file is listed under its prefix's layer", () => {
    const misplaced = MODULES.filter((m) => LAYERS.has(prefixOf(m) ?? "") && INDEX.has(m) && INDEX.get(m) !== prefixOf(m));
    expect(misplaced.map((m) => `${m} under ${INDEX.get(m)}`)).toEqual([]);
  });

  test("the reader of imports sees type-only ones, which the bundle's scanner leaves out", () => {
    // ui-history-pager.ts imports the client only as a type: one edge a runtime-only graph would miss.
    expect(GRAPH.get("ui-history-pager.ts")).toContain("client.ts");
    expect(RUNTIME.get("ui-history-pager.ts")).not.toContain("client.ts");
  });

  test("the checks catch what they are for: a cycle, an unlisted edge, a runtime import of a types-only layer", () => {
    const circle = new Map(Object.entries({ "a.ts": ["b.ts"], "b.ts": ["a.ts"] }));
    expect(cycles(circle)).toEqual([["a.ts", "b.ts", "a.ts"]]);
    const withoutText = new Map([...LAYERS].map(([name, allowed]) => [name, new Map([...allowed].filter(([l]) => l !== "text"))]));
    expect(forbiddenEdges(withoutText)).toContain("files.ts → text-path.ts");
    const clientWireTypesOnly = new Map(LAYERS);
    clientWireTypesOnly.set("client", new Map([...LAYERS.get("client")!].map(([l, kind]) => [l, l === "wire" ? "types" : kind] as const)));
    expect(forbiddenEdges(clientWireTypesOnly)).toContain("client.ts → wire-framing.ts");
  });

  // The runner sits above the commands and the kit below them: a command reaching back up to the
  // runner is refused at the prefix level, whatever file it names.
  test("no two layers may import each other, and an edge back up from a command to the runner is caught", () => {
    const mutual = [...LAYERS].flatMap(([a, allowed]) => [...allowed.keys()].filter((b) => a < b && LAYERS.get(b)?.has(a)).map((b) => `${a} ↔ ${b}`));
    expect(mutual).toEqual([]);
    const backUp = new Map(GRAPH);
    backUp.set("cmd-ls.ts", [...GRAPH.get("cmd-ls.ts")!, "cli-dispatch.ts"]);
    const backUpRuntime = new Map(RUNTIME);
    backUpRuntime.set("cmd-ls.ts", [...RUNTIME.get("cmd-ls.ts")!, "cli-dispatch.ts"]);
    expect(forbiddenEdges(LAYERS, backUp, backUpRuntime)).toEqual(["cmd-ls.ts → cli-dispatch.ts"]);
  });
});

/**
 * The module-level variables of a client-side file (client*, cli*, cmd-*, kit-*, ui-*) that would
 * hold the host a command talks to: a `let` or `var` at the file's top level (column 0, exported or
 * not) whose name says host or target, or whose declared type names `RemoteHost` or `Target`.
 */
function hostHeldByModule(file: string, text = sourceOf(file)): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
  return [...code.matchAll(/^(?:export\s+)?(?:let|var)\s+(\w+)\s*(?::\s*([^=;\n]+))?/gm)]
    .filter(([, name, type]) => /host|target/i.test(name!) || /\b(?:RemoteHost|Target)\b/.test(type ?? ""))
    .map(([, name]) => `${file}: ${name}`);
}

// The host is a value the runner resolves once and hands to the command (client-target.ts Target),
// never a module's state that every connection of the process reads behind the command's back.
describe("the host a command talks to", () => {
  const CLIENT_SIDE = MODULES.filter((m) => /^(client|cli|cmd-|kit-|ui-)/.test(m));

  test("no client-side module keeps it in a module-level variable", () => {
    expect(CLIENT_SIDE.flatMap((m) => hostHeldByModule(m))).toEqual([]);
  });

  test("the check catches a module that keeps it, under any name its type gives away", () => {
    const kept = "/** The host every connection goes to. */\nlet currentHost: RemoteHost | null = null;\nexport let where: Target = HERE;\n";
    expect(hostHeldByModule("client-target.ts", kept)).toEqual(["client-target.ts: currentHost", "client-target.ts: where"]);
    expect(hostHeldByModule("client-target.ts", "function f() {\n  let host = null;\n}\n// let target = 1\n")).toEqual([]);
  });
});

describe("the import graph", () => {
  test("has no cycle, type imports counted", () => {
    expect(cycles(GRAPH)).toEqual([]);
  });

  // The table is a stack of floors: a row names only floors below its own, so an import the table
  // allows never runs back up, and one that does is named here whatever the rows say.
  test("runs down the floors: each row of the table names only floors below it, and no import runs back up", () => {
    const upward = FLOORS.flatMap((name, i) =>
      [...LAYERS.get(name)!.keys()].filter((other) => FLOORS.indexOf(other) <= i).map((other) => `${name} → ${other}`),
    );
    expect(upward).toEqual([]);
    expect(backEdges()).toEqual([]);
  });

  test("the back-edge check catches what it is for: a file of a lower floor importing one above it", () => {
    const backUp = new Map(GRAPH);
    backUp.set("text-path.ts", [...GRAPH.get("text-path.ts")!, "cli.ts"]);
    backUp.set("daemon-task.ts", [...GRAPH.get("daemon-task.ts")!, "client.ts"]);
    expect(backEdges(backUp).sort()).toEqual(["daemon-task.ts → client.ts", "text-path.ts → cli.ts"]);
  });

  test("a command file is a leaf: only the runner and the command table import one", () => {
    const importers = MODULES.filter((m) => (GRAPH.get(m) ?? []).some((i) => i.startsWith("cmd-")));
    expect(importers.sort()).toEqual(["cli-commands.ts", "cli.ts"]);
  });

  test("a command reaches the agents' files only to list them: `fleetcom agents`", () => {
    const crossing = MODULES.filter((m) => layer(m) === "cmd" && GRAPH.get(m)!.some((i) => layer(i) === "agent"));
    expect(crossing).toEqual(["cmd-agents.ts"]);
  });

  // As tmux's cmd_entry: what the runner needs of a command (its TASKs, how it reaches a host, its
  // worktree flag, its plain shapes) is in the command's own file, so adding one touches that file
  // and the command table only; a list of command names in the kit is a second place to forget.
  test("a command carries its own facts: no kit file holds a table of command names", () => {
    const names = Object.keys(SUBCOMMANDS);
    const naming = MODULES.filter((m) => m.startsWith("kit-")).flatMap((m) => {
      const code = transpiler.transformSync(sourceOf(m)).replace(/\/\/.*|\/\*[\s\S]*?\*\//g, "");
      return names.filter((n) => new RegExp(`"${n}"\\s*[,\\]]|^\\s*"?${n}"?:`, "m").test(code)).map((n) => `${m}: ${n}`);
    });
    expect(naming).toEqual([]);
  });

  test("each layer imports only what the doc's table lets it", () => {
    expect(forbiddenEdges()).toEqual([]);
  });

  test("the web view draws from the view layer, never from the terminal's files: web-* imports no ui-*", () => {
    const crossing = MODULES.filter((m) => layer(m) === "web").flatMap((m) =>
      GRAPH.get(m)!
        .filter((i) => layer(i) === "ui")
        .map((i) => `${m} → ${i}`),
    );
    expect(crossing).toEqual([]);
  });

  // One live fleet model on the client (client-fleet.ts): the dashboard, attach, the web view and
  // `wait` hold a daemon's fleet through it, so its subscription is asked in one place.
  test("the client asks a daemon for its events in one place: the fleet model's follow", () => {
    const sites = MODULES.filter((m) => layer(m) !== "daemon").flatMap((m) => [...sourceOf(m).matchAll(/\.subscribe\(/g)].map(() => m));
    expect(sites).toEqual(["client-fleet.ts"]);
  });

  test("a command reaches the daemon's files only to run the supervisor: `fleetcom daemon` and `--foreground`", () => {
    const crossing = MODULES.filter((m) => layer(m) === "cmd" && GRAPH.get(m)!.some((i) => layer(i) === "daemon"));
    expect(crossing.sort()).toEqual(["cmd-daemon.ts", "cmd-dashboard.ts"]);
  });

  test("the walker sees what it must: the daemon loads the schemas, the daemon's screen xterm", () => {
    expect(staticClosure(["daemon-supervisor.ts"]).has("wire-protocol.ts")).toBe(true);
    expect(importsOf("term-screen.ts")).toContain("@xterm/headless");
  });

  // Evaluating xterm and the graphemes addon is ~40 ms of a starting daemon's CPU: they are
  // required with the first screen, so the first reply to `ls` of an empty fleet does not wait on them.
  test("the daemon loads xterm and the graphemes addon with its first screen, not at start", () => {
    expect([...staticClosure(["cmd-daemon.ts", "daemon-supervisor.ts"])].filter((m) => m.startsWith("@xterm/"))).toEqual([]);
    expect(importsOf("term-screen.ts", ["require-call"])).toEqual(["@xterm/headless"]);
    expect(importsOf("term-widths.ts", ["require-call"])).toEqual(["@xterm/addon-unicode-graphemes"]);
  });

  // arktype's import costs most of a CPU-second on a loaded machine: the schemas are precompiled at
  // build time and arktype is loaded only to word a refusal, so no process, the daemon included, loads it at start.
  test("arktype is imported by validator.ts alone, and only on demand", () => {
    const importers = MODULES.filter((m) => importsOf(m).includes("arktype"));
    expect(importers).toEqual(["validator.ts"]);
    expect(importsOf("validator.ts", ["import-statement"])).not.toContain("arktype");
  });
});

describe("what the runtime would load", () => {
  test("the daemon's task watcher, its git and its agent probe start through platform.ts, Bun's spawn under Bun: node:child_process would hold node's streams in every daemon with a task", () => {
    const gitBytes = sourceOf("git.ts").match(/export function gitBytes[\s\S]*?\n}\n/)?.[0];
    expect(gitBytes).toContain("runGathered(");
    expect(gitBytes).not.toContain("childProcess(");
    expect(sourceOf("daemon-reaper.ts")).toContain("spawnFed(");
    expect(sourceOf("agent-probe.ts")).toContain("runInGroup(");
    for (const module of ["daemon-reaper.ts", "agent-probe.ts"]) expect(sourceOf(module)).not.toContain("childProcess");
  });

  test("no module orders text by a locale's collation: ICU's collator costs a client ~2 MB and milliseconds on its first sort", () => {
    const collating = MODULES.filter((m) => /\.localeCompare\(|\bIntl\.Collator\b/.test(sourceOf(m)));
    expect(collating).toEqual([]);
  });
});

describe("unit test names", () => {
  test("each test/unit file is named after the module it tests, or after a theme the doc lists", () => {
    const themes = new Set(section("Tests").flatMap((l) => /^- `([\w-]+)\.test\.ts`/.exec(l)?.[1] ?? []));
    expect(themes.size).toBeGreaterThan(0);
    const modules = new Set(MODULES.map((m) => m.replace(/\.ts$/, "")));
    const unit = readdirSync(import.meta.dir).flatMap((f) => /^(.*)\.test\.ts$/.exec(f)?.[1] ?? []);
    expect(unit.filter((stem) => !modules.has(stem) && !themes.has(stem))).toEqual([]);
    expect([...themes].filter((stem) => modules.has(stem) || !unit.includes(stem))).toEqual([]);
  });
});

/**
 * What a test/e2e file may evaluate of src/: the binary's interface, used to speak to it or read what
 * it wrote, never to run a module's logic in-process (that test goes to test/unit under the
 * module's name). Type-only imports are free: they evaluate nothing.
 */
const E2E_MAY_EVALUATE: Record<string, string> = {
  "wire-framing.ts": "the socket's frames, for a raw client speaking to the daemon",
  "platform.ts": "whether a pid the binary reported is alive",
  "text-width.ts": "the columns a table the binary printed takes",
  "text-shell.ts": "the quoted command line handed to the binary, or stored by it",
  "text-path.ts": "the lossless form in which the binary reports a path that is not UTF-8",
  "recipe-snapshot-rules.ts": "the names the binary gives its snapshot files",
  "cli-commands.ts": "the command table, to try every command on the binary",
};

/** The src modules a test file evaluates (import type left out) that E2E_MAY_EVALUATE does not list. */
function inProcessImports(source: string): string[] {
  return transpiler
    .scanImports(source)
    .flatMap((imp) => /^\.\.\/\.\.\/src\/(.+)$/.exec(imp.path)?.[1] ?? [])
    .filter((module) => !(module in E2E_MAY_EVALUATE));
}

describe("test lanes", () => {
  const E2E = resolve(import.meta.dir, "../e2e");

  test("a test/e2e file tests the binary: of src/ it evaluates only the binary's interface", () => {
    const files = readdirSync(E2E).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(20);
    const inProcess = files.flatMap((f) => inProcessImports(readFileSync(resolve(E2E, f), "utf8")).map((m) => `${f} → ${m}`));
    expect(inProcess).toEqual([]);
  });

  test("the check catches what it is for: a module run in-process, statically or dynamically; types pass", () => {
    expect(inProcessImports('import { Screen } from "../../src/term-screen.ts";\nnew Screen();')).toEqual(["term-screen.ts"]);
    expect(inProcessImports('const { Task } = await import("../../src/daemon-task.ts");')).toEqual(["daemon-task.ts"]);
    expect(inProcessImports('import { type Task, DEFAULT_IDLE_SECONDS } from "../../src/settings.ts";')).toEqual(["settings.ts"]);
    expect(inProcessImports('import type { RecipeEntry } from "../../src/recipe.ts";\nconst e: RecipeEntry[] = [];')).toEqual([]);
    expect(inProcessImports('import { type Fleet } from "../../src/recipe.ts";\nlet f: Fleet;')).toEqual([]);
    expect(inProcessImports('import { encodeControl } from "../../src/wire-framing.ts";\nimport { until } from "../harness/fleet.ts";')).toEqual([]);
  });

  test("every module the lane may evaluate is one there is", () => {
    expect(Object.keys(E2E_MAY_EVALUATE).filter((m) => !MODULES.includes(m))).toEqual([]);
  });
});

// arktype costs ~110 ms to import, xterm and its width tables more: the commands people run in loops
// and prompts, the dashboard, --help and a mistyped command must not pay for them.
describe("start-up imports", () => {
  const heavy = (modules: Set<string>) =>
    [...modules].filter((m) => m === "arktype" || m.startsWith("arktype/") || m.startsWith("@xterm/") || m === "term-widths.ts");
  const runner = ["main.ts", "cli.ts", "cli-commands.ts"];
  // What the daemon loads only when config.toml has hosts (cmd-daemon.ts watchHosts): the links to them.
  const HOST_LINKS = ["client-host-news.ts", "client-hosts.ts"];

  for (const command of ["ls", "attach", "send", "peek", "logs", "grep", "run", "kill", "rm", "status", "wait"]) {
    test(`fleetcom ${command}`, () => {
      expect(heavy(staticClosure([...runner, `cmd-${command}.ts`]))).toEqual([]);
    });
  }

  test("fleetcom (the dashboard, no session named)", () => {
    expect(heavy(staticClosure([...runner, "cmd-dashboard.ts"]))).toEqual([]);
  });

  test("the dashboard and attach hold no prompt library, no diff and no checkpoints until a key asks for one", () => {
    const deferred = ["@clack/prompts", "@clack/core", "client-diff.ts", "client-checkpoints.ts", "git.ts", "git-checkpoint.ts"];
    for (const command of ["cmd-dashboard.ts", "cmd-attach.ts"]) expect(deferred.filter((m) => staticClosure([...runner, command]).has(m))).toEqual([]);
  });

  // settings.ts with its TOML parser is ~1.3 ms of an attach's start: it is loaded only when a config
  // file or FLEETCOM_DETACH_KEY may name another detach key (ui-attach-settings.ts chosenDetachKey).
  test("attach loads no settings.ts and no TOML parser at start", () => {
    expect([...staticClosure([...runner, "cmd-attach.ts"])].filter((m) => m === "settings.ts" || m === "smol-toml")).toEqual([]);
  });

  test("fleetcom --help: every command's definition, which citty reads for the descriptions", () => {
    expect(heavy(staticClosure([...runner, ...MODULES.filter((m) => m.startsWith("cmd-"))]))).toEqual([]);
  });

  test("fleetcom no-such-command: the check for a session of that name", () => {
    expect(heavy(staticClosure([...runner, "cmd-dashboard.ts", "recipe-names.ts"]))).toEqual([]);
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

  test("fleetcom sessions and sessions --json load no citty (kit-plain-args.ts plainArgs runs its list)", () => {
    const run = staticClosure([...runner, "cmd-sessions.ts", ...importsOf("cmd-sessions.ts", ["dynamic-import"])]);
    expect(run.has("citty")).toBe(false);
  });

  // Every command with plain shapes runs them without citty (kit-plain-args.ts plainArgs), the daemon autostart starts included.
  for (const command of PLAIN_COMMANDS) {
    test(`fleetcom ${command}, and what its run imports, loads no citty (kit-plain-args.ts plainArgs)`, () => {
      const run = staticClosure([...runner, `cmd-${command}.ts`, ...importsOf(`cmd-${command}.ts`, ["dynamic-import"])]);
      expect(run.has("citty")).toBe(false);
    });
  }

  test("fleetcom sessions does not load the emulator", () => {
    expect([...staticClosure([...runner, "cmd-sessions.ts"])].filter((m) => m.startsWith("@xterm/"))).toEqual([]);
  });

  // The precompiled checks cost a ~30 KB `new Function` at their import (~10-17 ms of CPU here):
  // `config` reads settings and asks a running daemon, and validates no JSON, so it must not pay it.
  // citty and its node:util are ~10 ms of CPU on a loaded machine: `config` and `config --json` run without them (kit-plain-args.ts plainArgs).
  // Only a file that declares agents has `config` check them, with the validator (config-agents.ts).
  test("fleetcom config, and what its run imports, loads no validator and no citty", () => {
    const dynamic = importsOf("cmd-config.ts", ["dynamic-import"]).filter((m) => m !== "config-agents.ts");
    const run = staticClosure([...runner, "cmd-config.ts", ...dynamic]);
    expect([...run].filter((m) => m.startsWith("validator") || m === "wire-protocol.ts" || m === "citty" || heavy(new Set([m])).length > 0)).toEqual([]);
  });

  // With no daemon here (client-running-daemon.ts asks client-target.ts), these never need the
  // connection: client.ts, its socket, framing and FFI modules (~0.9 ms of a 6 ms command).
  // Left out: the picker (no name given), and what only a config.toml with agents or hosts loads.
  for (const [command, besides] of [
    ["sessions", []],
    ["recover", ["ui-picker-sessions.ts"]],
    ["load", ["ui-picker-sessions.ts"]],
    ["config", ["config-agents.ts", "client-hosts.ts"]],
  ] as const) {
    test(`fleetcom ${command} reaches client.ts only through the running daemon's check`, () => {
      const dynamic = importsOf(`cmd-${command}.ts`, ["dynamic-import"]).filter((m) => !(besides as readonly string[]).includes(m));
      expect(staticClosure([...runner, `cmd-${command}.ts`, ...dynamic]).has("client.ts")).toBe(false);
    });

    // node:os costs a starting process ~0.13 ms of CPU (docs/benchmarks.md, ninth session): these
    // paths take the platform from process.platform and load it on first use (platform.ts nodeOs).
    test(`fleetcom ${command} loads no node:os at start`, () => {
      const dynamic = importsOf(`cmd-${command}.ts`, ["dynamic-import"]).filter((m) => !(besides as readonly string[]).includes(m));
      expect(staticClosure([...runner, `cmd-${command}.ts`, ...dynamic]).has("node:os")).toBe(false);
    });
  }

  // A cold start's critical path: the client up to the daemon's spawn, and the daemon up to its first reply.
  test("the autostart and the daemon it starts load no node:os at start", () => {
    expect(staticClosure([...runner, "cmd-ls.ts", "client-autostart.ts", "client-service-manager.ts"]).has("node:os")).toBe(false);
    expect(staticClosure([...runner, "cmd-daemon.ts", ...importsOf("cmd-daemon.ts", ["dynamic-import"])]).has("node:os")).toBe(false);
  });

  // node:net and the streams under it are a few ms of a starting daemon's CPU before it listens: its
  // own socket is Bun's (daemon-socket.ts), and a readiness probe's connect loads node:net on its first try.
  test("the daemon an autostart starts loads no node:net, node:url, node:fs/promises or client connection at start", () => {
    const closure = staticClosure([...runner, "cmd-daemon.ts", ...importsOf("cmd-daemon.ts", ["dynamic-import"]).filter((m) => !HOST_LINKS.includes(m))]);
    expect(["node:net", "node:url", "node:fs/promises", "client.ts"].filter((m) => closure.has(m))).toEqual([]);
  });

  test("fleetcom --version loads nothing but the version", () => {
    expect([...staticClosure(["main.ts"])].sort()).toEqual(["main.ts", "version.ts"]);
  });
});
