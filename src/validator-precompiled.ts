// The precompiled checks, inlined by Bun at bundle time (validator-precompile.ts is a macro). Imported
// dynamically by validator.ts, so a runtime without Bun's macros (Deno) falls back to arktype.
import { precompile } from "./validator-precompile.ts" with { type: "macro" };

export const PRECOMPILED = precompile();
