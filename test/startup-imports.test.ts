// Client start-up stays light: the commands people run in loops and prompts (--version, ls, attach,
// send, peek) must not load arktype, which costs ~110 ms to import. Checked on the static import
// graph, type-only imports excluded, because that is what the bundle evaluates at start-up.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");
const transpiler = new Bun.Transpiler({ loader: "ts" });

function staticClosure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = entries.map((e) => resolve(SRC, e));
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.startsWith("/")) continue;
    const code = readFileSync(file, "utf8").replace(/^#!.*/, "");
    for (const imp of transpiler.scanImports(code)) {
      if (imp.kind !== "import-statement") continue;
      queue.push(imp.path.startsWith(".") ? resolve(dirname(file), imp.path) : imp.path);
    }
  }
  return seen;
}

describe("start-up imports", () => {
  test("the graph walker does see arktype where it is used", () => {
    expect(staticClosure(["cmd-daemon.ts"]).has("arktype")).toBe(true);
  });

  for (const command of ["ls", "attach", "send", "peek"]) {
    test(`fleetcom ${command} does not load arktype`, () => {
      const modules = staticClosure(["main.ts", "cli.ts", `cmd-${command}.ts`]);
      expect([...modules].filter((m) => m === "arktype" || m.startsWith("arktype/"))).toEqual([]);
    });
  }

  // The daemon's terminal emulator and its width tables are for the daemon: text-width.ts has its own.
  for (const command of ["ls", "attach", "peek", "sessions"]) {
    test(`fleetcom ${command} does not load xterm or its addons`, () => {
      const modules = staticClosure(["main.ts", "cli.ts", `cmd-${command}.ts`, "ui-dashboard.ts", "ui-picker.ts"]);
      expect([...modules].filter((m) => m.startsWith("@xterm/") || m.endsWith("/term-widths.ts"))).toEqual([]);
    });
  }

  test("fleetcom --version loads nothing but the version", () => {
    expect([...staticClosure(["main.ts"])].map((m) => m.replace(`${SRC}/`, "")).sort()).toEqual(["main.ts", "version.ts"]);
  });
});
