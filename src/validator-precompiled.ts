// Each schema's precompiled check, by name. Here, in the sources, there are none: processes run from
// source (Deno, `bun src/main.ts`, the unit tests) load arktype up front. scripts/build.ts replaces this
// module in the binary with the code validator-precompile.ts generates, so the checks are compiled
// into the bundle (and its bytecode) like the rest of the program.
export const CHECKS: Readonly<Record<string, (data: unknown) => boolean>> | null = null;
