// The character widths of the daemon's terminals: Unicode grapheme clusters as modern terminals and
// tmux draw them (a ZWJ sequence, a flag, an emoji with VS16 or a skin tone in one wide cell), from
// @xterm/addon-unicode-graphemes, with the Unicode 14 wide characters its tables predate added from
// text-width.ts, whose widths `ls`, `sessions`, the dashboard and the picker use. Without this xterm
// counts by Unicode 6, where ✅ and 🫠 are one column: every cell after them on the row moved one
// column on reattach and in `peek`.
// Loaded with the first terminal, as term-screen.ts loads xterm (evaluating the addon costs a starting
// daemon CPU that an empty fleet's first reply never needs: docs/benchmarks.md).
import type * as Graphemes from "@xterm/addon-unicode-graphemes";
import type { IUnicodeVersionProvider, Terminal } from "@xterm/headless";
import { createRequire } from "node:module";
import { inRanges, LATER_WIDE } from "./text-width.ts";

const VERSION = "15-graphemes-fleetcom";

/** The addon's grapheme provider; it keeps no state per terminal, so all terminals share it. */
function graphemeProvider(): IUnicodeVersionProvider {
  const graphemes = (
    typeof require === "function" ? require("@xterm/addon-unicode-graphemes") : createRequire(import.meta.url)("@xterm/addon-unicode-graphemes")
  ) as typeof Graphemes;
  const providers: IUnicodeVersionProvider[] = [];
  const collect = { unicode: { register: (p: IUnicodeVersionProvider) => providers.push(p), activeVersion: "" } };
  // The loaders disagree: the bundler may hand over the addon's ES module (named exports only), Bun's
  // runtime its CommonJS bundle (both), Deno that bundle's module object under `default`; read
  // through a plain object so the bundler does not warn about the other.
  const mod = { ...graphemes } as Record<string, unknown> as Record<string, typeof graphemes | undefined>;
  const { UnicodeGraphemesAddon } = "UnicodeGraphemesAddon" in graphemes ? graphemes : mod.default!;
  // The addon is typed against the browser build's Terminal; it reads only `unicode`, which `collect` has.
  type AddonHost = Parameters<InstanceType<typeof UnicodeGraphemesAddon>["activate"]>[0];
  new UnicodeGraphemesAddon().activate(collect as unknown as AddonHost);
  const provider = providers.find((p) => p.version === "15-graphemes");
  if (!provider) throw new Error("@xterm/addon-unicode-graphemes registered no '15-graphemes' provider");
  return provider;
}

/**
 * The addon's provider with LATER_WIDE two columns wide. charProperties() packs a code point's
 * grapheme state, width and join flag as `state << 3 | width << 1 | join` (xterm's
 * UnicodeService.createPropertyValue); only the width bits change. test/text-width.test.ts checks
 * every code point against text-width.ts, so a change of that layout fails there.
 */
export function fleetcomProvider(base = graphemeProvider()): IUnicodeVersionProvider {
  return {
    version: VERSION,
    wcwidth: (code) => (laterWide(code) ? 2 : base.wcwidth(code)),
    charProperties(code, preceding) {
      const properties = base.charProperties(code, preceding);
      return laterWide(code) ? (properties & ~0b110) | (2 << 1) : properties;
    },
  };
}

/** On the output hot path: most text is below the first LATER_WIDE range and costs one compare. */
function laterWide(code: number): boolean {
  return code >= LATER_WIDE[0]![0] && inRanges(code, LATER_WIDE);
}

let shared: IUnicodeVersionProvider | undefined;

/** Makes `term` count columns as text-width.ts does. Needs `allowProposedApi`. */
export function useFleetcomWidths(term: Terminal): void {
  shared ??= fleetcomProvider();
  term.unicode.register(shared);
  term.unicode.activeVersion = VERSION;
}
