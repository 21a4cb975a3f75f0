// Run at build time by scripts/build.ts (never by the program): builds every schema defined with
// validator.ts under arktype and writes the JavaScript arktype compiles for its yes/no check (its
// "Allows" traversal) as a module, which the build puts in place of validator-precompiled.ts. The
// binary then checks with arktype's own code without loading arktype (arktypeio/arktype#810 asks for
// this), and that code is part of the bundle, so `--bytecode` covers it like the rest of the program.
// @ark/schema is arktype's compiler, at the version arktype pins.
import { NodeCompiler } from "@ark/schema";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A compiled node as the precompiler reads it (arktype's internal node, not its public Type). */
interface CompiledNode {
  id: string;
  kind: string;
  references: CompiledNode[];
  includesTransform: boolean;
  allowsRequiresContext: boolean;
  compile(compiler: NodeCompiler): void;
}

/**
 * The source of the module that replaces validator-precompiled.ts in the binary: arktype's compiled
 * methods as top-level functions that call each other directly, and `CHECKS`, each schema's name
 * mapped to its root function. Functions, not one object literal of hundreds of methods: building
 * that object, a property at a time, costs every process that loads the module (docs/benchmarks.md).
 */
export async function precompiledModule(): Promise<string> {
  const { definedSchemas } = await import("./validator.ts");
  for (const file of modulesDefiningSchemas()) await import(`./${file}`);
  const functions = new Map<string, string>();
  const checks: string[] = [];
  for (const [name, schema] of definedSchemas()) {
    const root = schema.type().internal as unknown as CompiledNode;
    // A morph changes what arktype returns; the daemon uses what it received, so none may exist.
    if (root.includesTransform || root.allowsRequiresContext) throw new Error(`schema ${name}: precompiled checks cannot transform or need context`);
    checks.push(`  ${JSON.stringify(name)}: ${root.id}Allows,`);
    for (const node of [root, ...root.references]) if (!functions.has(node.id)) functions.set(node.id, allowsFunction(node, name));
  }
  return [
    "// Generated at build time by validator-precompile.ts from the schemas of this build.",
    ...functions.values(),
    `export const CHECKS = {\n${checks.join("\n")}\n};`,
    "",
  ].join("\n");
}

/**
 * arktype writes each node's check as a method (`idAllows(data, ctx) {…}`) that calls the others as
 * `this.otherAllows(…)`; here it becomes a function declaration calling them by name.
 */
function allowsFunction(node: CompiledNode, schema: string): string {
  const compiler = new NodeCompiler({ kind: "Allows" }).indent();
  node.compile(compiler);
  const method = compiler.write(`${node.id}Allows`);
  // Anything from arktype's registry would need arktype at run time.
  if (method.includes("$ark")) throw new Error(`schema ${schema}: node ${node.id} (${node.kind}) refers to arktype's registry`);
  const js = `function ${method.replace(/\bthis\.(\w+Allows)\(/g, "$1(")}`;
  // Any other use of `this` would have meant the methods' object, which no longer exists.
  if (/\bthis\b/.test(js)) throw new Error(`schema ${schema}: node ${node.id} (${node.kind}) uses 'this' other than to call a check`);
  return js;
}

/** The source files beside this one that define schemas. */
function modulesDefiningSchemas(): string[] {
  return readdirSync(import.meta.dir).filter(
    (f) => f.endsWith(".ts") && !f.startsWith("validator") && readFileSync(join(import.meta.dir, f), "utf8").includes('from "./validator.ts"'),
  );
}
