// The precompiled checks (the module validator-precompile.ts generates, which the build compiles into
// the binary) agree with arktype on every schema: the same answer for hand-made fixtures and for a
// seeded random corpus shaped like the wire's and the recipes' values. A refusal is worded by arktype
// itself (Schema.problem).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { definedSchemas, loadArktype, type Schema } from "../../src/validator.ts";
import { precompiledModule } from "../../src/validator-precompile.ts";
import "../../src/wire-protocol.ts";
import "../../src/recipe.ts";
import "../../src/recipe-sessions.ts";

const KEYS = [
  "type",
  "protocol",
  "version",
  "cwd",
  "env",
  "cols",
  "rows",
  "notices",
  "environment",
  "id",
  "op",
  "args",
  "task",
  "tasks",
  "typed",
  "command",
  "group",
  "name",
  "entries",
  "dir",
  "cmd",
  "history",
  "again",
  "earlier",
  "snapshot",
  "text",
  "enter",
  "paste",
  "keys",
  "lines",
  "ansi",
  "dirs",
  "storedName",
  "file",
  "dropped",
  "modified",
  "damaged",
];
const ATOMS: unknown[] = [
  "",
  "a",
  "hello",
  "request",
  "ls",
  "kill",
  "host",
  "sent",
  "3",
  0,
  1,
  -1,
  1.5,
  1000,
  1001,
  2147483647,
  2147483648,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  null,
  true,
  false,
  undefined,
];

/** A small deterministic generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function value(next: () => number, depth: number): unknown {
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
  const roll = next();
  if (depth > 3 || roll < 0.5) return pick(ATOMS);
  if (roll < 0.65) return Array.from({ length: Math.floor(next() * 3) }, () => value(next, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 5); i > 0; i--) object[pick(KEYS)] = value(next, depth + 1);
  return object;
}

const FIXTURES: unknown[] = [
  { type: "hello", protocol: 1, version: "1.0", cwd: "/", env: { A: "b" }, cols: 80, rows: 24 },
  { type: "hello", protocol: 1, version: "1.0", cwd: "/", env: { A: 1 }, cols: 80, rows: 24, notices: true },
  { type: "hello", protocol: 1, version: "1.0", cwd: "", env: {}, cols: 80, rows: 24, environment: "host" },
  { type: "hello", protocol: 1, version: "1.0", cwd: "", env: {}, cols: 80, rows: 24, environment: "elsewhere" },
  { type: "request", id: 0, op: "ls" },
  { type: "request", id: 1, op: "nope", args: {} },
  { task: { id: 3 } },
  { task: { typed: "api" } },
  { task: { id: "3" } },
  { tasks: [] },
  { tasks: [{ id: 1 }, { typed: "x" }] },
  { command: "sleep 1", group: null, name: "n" },
  { task: { id: 1 }, keys: ["Enter"], text: "x" },
  { task: { id: 1 }, keys: [] },
  { cols: 1000, rows: 1 },
  { cols: 1001, rows: 0 },
  { entries: [{ dir: "/", cmd: "x", group: null, name: null, id: 7 }], earlier: [1] },
  { entries: [{ dir: "/", cmd: "x", group: null, name: null, id: 0 }] },
  { version: 1, name: "s", dirs: { "/": ["x", { cmd: "y", group: "g" }] } },
  { version: 2, name: "s", dirs: {} },
  { name: "s", storedName: null, file: "f", tasks: 1, dropped: 0, dirs: ["a"], modified: "m", damaged: null },
];

/** The generated module, imported as the binary gets it (written out, since it is made at build time). */
async function generatedChecks(): Promise<Readonly<Record<string, (data: unknown) => boolean>>> {
  const dir = mkdtempSync(join(tmpdir(), "fleetcom-precompiled-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "validator-precompiled.js");
  writeFileSync(file, await precompiledModule());
  return (await import(file)).CHECKS;
}

describe("the precompiled checks", async () => {
  const checks = await generatedChecks();
  const schemas = [...definedSchemas()];

  test("exist for every schema, and for nothing else", () => {
    expect(Object.keys(checks).sort()).toEqual(schemas.map(([name]) => name).sort());
    expect(schemas.length).toBeGreaterThan(25);
  });

  test("answer as arktype does, on fixtures and a random corpus", async () => {
    await loadArktype();
    const corpus = [...FIXTURES, ...ATOMS];
    const next = random(25);
    for (let i = 0; i < 1500; i++) corpus.push(value(next, 0));
    const disagreements: string[] = [];
    let accepted = 0;
    for (const [name, schema] of schemas) {
      for (const data of corpus) {
        const ours = checks[name]!(data);
        if (ours !== schema.type().allows(data)) disagreements.push(`${name}: ${Bun.inspect(data)}`);
        if (ours) accepted++;
      }
    }
    expect(disagreements).toEqual([]);
    // The corpus reaches both answers, or agreement would prove nothing.
    expect(accepted).toBeGreaterThan(schemas.length);
  });

  test("a refusal is worded by arktype, path and all", async () => {
    const { opArgs } = await import("../../src/wire-protocol.ts");
    const kill: Schema<unknown> = opArgs.kill;
    expect(kill.allows({ tasks: [] })).toBe(false);
    expect(await kill.problem({ tasks: [] })).toBe("tasks must be non-empty");
    expect(await opArgs.tag.problem({ task: { id: "3" } })).toContain("task");
  });
});
