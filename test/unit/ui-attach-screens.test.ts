// The attached client takes the task's screen switches out of the stream (ui-attach-screens.ts),
// wherever the chunks of the stream happen to be cut.
import { describe, expect, test } from "bun:test";
import { AltScreenFilter } from "../../src/ui-attach-screens.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The stream cut into the given chunks: what the terminal gets, and how many chunks reported a switch. */
function filtered(...chunks: string[]): { text: string; switches: number } {
  const filter = new AltScreenFilter();
  let text = "";
  let switches = 0;
  for (const chunk of chunks) {
    const { bytes, switched } = filter.push(encoder.encode(chunk));
    text += decoder.decode(bytes);
    if (switched) switches++;
  }
  return { text, switches };
}

describe("screen switches in the attached stream", () => {
  test("1049, 1047 and 47, set or reset, are taken out and reported; other modes pass", () => {
    expect(filtered("a\x1b[?1049hb\x1b[?25lc\x1b[?47ld\x1b[?1047h")).toEqual({ text: "ab\x1b[?25lcd", switches: 1 });
    expect(filtered("\x1b[?1h\x1b[?2004h\x1b[1049h\x1b]0;t\x07x")).toEqual({ text: "\x1b[?1h\x1b[?2004h\x1b[1049h\x1b]0;t\x07x", switches: 0 });
  });

  test("the other modes of a combined sequence are kept", () => {
    expect(filtered("\x1b[?1049;1h\x1b[?25;47l")).toEqual({ text: "\x1b[?1h\x1b[?25l", switches: 1 });
  });

  test("a switch cut across chunks at any byte is still found, and nothing else is lost", () => {
    const stream = "before\x1b[?1049hvim\x1b[?1049lafter\x1b";
    for (let cut = 1; cut < stream.length; cut++) {
      const { text, switches } = filtered(stream.slice(0, cut), stream.slice(cut), "[m");
      expect(text).toBe("beforevimafter\x1b[m");
      expect(switches).toBeGreaterThanOrEqual(1);
    }
  });

  test("UTF-8 and plain chunks pass untouched", () => {
    const chunk = encoder.encode("漢字 ✅ \x1b[31mred\x1b[0m");
    expect(new AltScreenFilter().push(chunk).bytes).toBe(chunk);
  });
});
