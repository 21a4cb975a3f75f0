// text-width.ts counts columns as the daemon's terminal does (term-screen.ts with term-widths.ts):
// checked for every code point, and for clusters by writing them into a terminal and reading where
// its cursor went.
import { afterAll, describe, expect, test } from "bun:test";
import { Terminal } from "@xterm/headless";
import { cut } from "../../src/text-width.ts";
import { fleetcomProvider, useFleetcomWidths } from "../../src/term-widths.ts";
import { clusters, codePointWidth, ONE_COLUMN_EACH, textWidth } from "../../src/text-width.ts";
import { seededRandom } from "../harness/helpers.ts";
import { CORPUS, TMUX_33_DIFFERS } from "../harness/width-corpus.ts";

const COLS = 200;
const term = new Terminal({ cols: COLS, rows: 4, allowProposedApi: true });
useFleetcomWidths(term);
afterAll(() => term.dispose());

/** Columns the terminal's cursor moves when `text` is printed from the start of a cleared screen. */
async function drawnWidth(text: string): Promise<number> {
  return (await drawnWidths([text]))[0]!;
}

// CSI ? z (unused by any terminal) marks where each sample ends: the handler reads the cursor at that
// point of the parse, so thousands of samples go through one write instead of one event-loop turn each.
const MARK = "\x1b[?z";
let marks: number[] = [];
term.parser.registerCsiHandler({ prefix: "?", final: "z" }, () => {
  marks.push(term.buffer.active.cursorX + COLS * term.buffer.active.cursorY);
  return true;
});

function drawnWidths(texts: string[]): Promise<number[]> {
  marks = [];
  return new Promise((resolve) => term.write(texts.map((text) => `\x1b[2J\x1b[H${text}${MARK}`).join(""), () => resolve(marks)));
}

const hex = (text: string) => [...text].map((c) => c.codePointAt(0)!.toString(16)).join(" ");

describe("text width", () => {
  test("every printable code point is as wide as in the daemon's terminal", () => {
    const provider = fleetcomProvider();
    const differ: string[] = [];
    for (let code = 0x20; code <= 0x10ffff; code++) {
      if ((code >= 0x7f && code < 0xa0) || (code >= 0xd800 && code < 0xe000)) continue;
      const terminal = (provider.charProperties(code, 0) >> 1) & 3;
      if (codePointWidth(code) !== terminal) differ.push(`${code.toString(16)}: ${codePointWidth(code)} here, ${terminal} there`);
    }
    expect(differ.slice(0, 20)).toEqual([]);
  });

  test("emoji sequences, flags, CJK and combining marks are as wide as the terminal draws them", async () => {
    const samples = [...CORPUS, ...TMUX_33_DIFFERS].map(([, sample]) => sample);
    samples.push(
      "\u0600\u0661\u0662",
      "\u1100\u1161\u11a8",
      "\u0915\u094d\u0937",
      "\u0e01\u0e33",
      "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
    );
    for (const sample of samples) expect(`${hex(sample)}: ${textWidth(sample)}`).toBe(`${hex(sample)}: ${await drawnWidth(sample)}`);
  });

  test("emoji made wide by VS16 and a skin tone are two columns, as in modern terminals", () => {
    for (const [, sample] of TMUX_33_DIFFERS) expect(`${hex(sample)}: ${textWidth(sample)}`).toBe(`${hex(sample)}: 2`);
    expect(textWidth("\u2705 ok")).toBe(5);
    expect(textWidth("\u{1F468}\u200D\u{1F469}\u200D\u{1F467}")).toBe(2);
    expect(textWidth("\u{1F1EB}\u{1F1F7}\u{1F1E9}")).toBe(3); // a flag and a lone regional indicator
  });

  test("random mixes of joiners, selectors, modifiers, marks and wide characters agree with the terminal", async () => {
    // Prepended marks (U+0600) before a regional indicator are left out: xterm's own count is odd there.
    const pool = [
      "a",
      "1",
      "#",
      " ",
      "e",
      "\u0301",
      "\u0308",
      "\u0903",
      "\u0915",
      "\u094d",
      "\u0937",
      "\u0e01",
      "\u0e33",
      "\u0e48",
      "\u0644",
      "\u0627",
      "\u200d",
      "\ufe0f",
      "\ufe0e",
      "\u20e3",
      "\u2764",
      "\u2600",
      "\u6f22",
      "\uac00",
      "\u1100",
      "\u1161",
      "\u11a8",
      "\u{1f468}",
      "\u{1f469}",
      "\u{1f467}",
      "\u{1f3fd}",
      "\u{1f44d}",
      "\u{1f1eb}",
      "\u{1f1f7}",
      "\u{1f3f3}",
      "\u{1f3f4}",
      "\u{1f308}",
      "\u{e0067}",
      "\u{e007f}",
      "\u{1f979}",
      "\u{1fae0}",
    ];
    const random = seededRandom(12);
    const texts = Array.from({ length: 3000 }, () => {
      let text = "";
      for (let n = 1 + Math.floor(random() * 6); n > 0; n--) text += pool[Math.floor(random() * pool.length)];
      return text;
    });
    const drawn = await drawnWidths(texts);
    expect(drawn).toHaveLength(texts.length);
    const differ = texts.flatMap((text, i) => (textWidth(text) === drawn[i] ? [] : [`${hex(text)}: ${textWidth(text)} here, ${drawn[i]} drawn`]));
    expect(differ.slice(0, 10)).toEqual([]);
  });

  test("cut never splits a cluster and never goes past the width", () => {
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}";
    expect(cut(`${family}${family}`, 3)).toBe(`${family}…`);
    expect(cut("e\u0301e\u0301e\u0301", 2)).toBe("e\u0301…");
    expect(cut("\u2705\u2705\u2705", 4)).toBe("\u2705…");
    expect(textWidth(cut("\u6f22\u5b57\u6f22\u5b57", 6))).toBeLessThanOrEqual(6);
  });

  test("every code point measured by its length stands alone and is one column wide", () => {
    const wrong: string[] = [];
    let members = 0;
    const widths = (text: string) => [...clusters(text)].map(([, width]) => width).join(",");
    for (let code = 0; code <= 0xffff; code++) {
      const char = String.fromCharCode(code);
      if (!ONE_COLUMN_EACH.test(char)) continue;
      members++;
      // Joining what comes before it (a mark, a selector, ZWJ) or what comes after it (a prepended
      // mark, a jamo, ZWJ before a pictograph) would make fewer clusters than code points.
      const alone = widths(`a${char}b`) === "1,1,1" && widths(`${char}\u1161`) === `1,${codePointWidth(0x1161)}` && widths(`${char}\u{1F600}`) === "1,2";
      if (!alone || codePointWidth(code) !== 1) wrong.push(code.toString(16));
    }
    expect(members).toBeGreaterThan(1_000);
    expect(wrong.slice(0, 20)).toEqual([]);
  });

  test("text of such code points is measured and cut as the cluster walk does", () => {
    const random = seededRandom(46);
    const alphabet = [..."ab ~\u00b7\u00d7\u203a\u2026\u2191\u2193\u23ce\u2423\u2500\u2583\u25c6\u2713\u273b\u276f"];
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      expect(ONE_COLUMN_EACH.test(text)).toBe(true);
      const walked = [...clusters(text)];
      expect(textWidth(text)).toBe(walked.reduce((sum, [, width]) => sum + width, 0));
      const width = Math.floor(random() * 32);
      const kept = walked
        .slice(0, Math.max(0, width - 1))
        .map(([cluster]) => cluster)
        .join("");
      expect(cut(text, width)).toBe(walked.length <= width ? text : width <= 0 ? "" : `${kept}…`);
    }
  });
});
