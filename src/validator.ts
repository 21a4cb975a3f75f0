// arktype schemas without arktype's start-up cost. Importing arktype sets up its keyword scopes, which
// costs most of a CPU-second on a loaded machine, so no module imports it at start. Each schema is
// defined as a function of arktype's `type` and named; `make build` runs that function at build time
// (validator-precompile.ts) and compiles the JavaScript arktype makes for its yes/no check into the
// binary, as validator-precompiled.ts. At run time `allows` runs that code, and arktype is imported
// only to word a refusal (`problem`). Where no precompiled code exists (from source: Deno, `bun
// src/main.ts`, the build itself) arktype is loaded up front instead.
// test/unit/validator.test.ts holds the precompiled checks equal to arktype's.
import type { type as arkType, Type } from "arktype";
import { CHECKS } from "./validator-precompiled.ts";

export type ArkType = typeof arkType;

const registry = new Map<string, Schema<unknown>>();
let ark: ArkType | null = null;

export class Schema<T> {
  /** The type the schema checks, for `typeof schema.infer` (type-level only, as arktype's). */
  declare readonly infer: T;
  private built: Type | null = null;

  constructor(
    readonly name: string,
    private readonly define: (type: ArkType) => Type,
    private readonly precompiled: ((data: unknown) => boolean) | undefined,
  ) {}

  allows(data: unknown): data is T {
    return this.precompiled ? this.precompiled(data) : this.type().allows(data);
  }

  /** The arktype schema itself, to compose into another definition or to word a refusal. */
  type(): Type<T> {
    if (!ark) throw new Error(`schema ${this.name} built before arktype was loaded`);
    this.built ??= this.define(ark);
    return this.built as Type<T>;
  }

  /** Why `data` is refused, in arktype's words (what a user sees); loads arktype on first use. */
  async problem(data: unknown): Promise<string> {
    await loadArktype();
    const out = this.type()(data);
    return out instanceof ark!.errors ? out.summary : "accepted";
  }
}

/**
 * A named schema: `define` gets arktype's `type` and is called on first use, never at import. A
 * schema composed into another is taken with `.type()` inside that one's `define`.
 */
export function schema<D extends Type>(name: string, define: (type: ArkType) => D): Schema<D["infer"]> {
  if (registry.has(name)) throw new Error(`schema ${name} defined twice`);
  const made = new Schema<D["infer"]>(name, define, CHECKS?.[name]);
  registry.set(name, made as Schema<unknown>);
  return made;
}

/** Every schema defined so far, by name (the precompiler and its equality test walk them). */
export function definedSchemas(): ReadonlyMap<string, Schema<unknown>> {
  return registry;
}

export async function loadArktype(): Promise<ArkType> {
  ark ??= (await import("arktype")).type;
  return ark;
}

if (!CHECKS) await loadArktype();
