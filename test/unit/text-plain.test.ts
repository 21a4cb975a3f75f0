// The `peek --follow` filter, as a pure function of the chunks a task's output arrives in.
import { describe, expect, test } from "bun:test";
import { MAX_HELD, PlainTextStream, plainText } from "../../src/text-plain.ts";

describe("the peek --follow filter (L1)", () => {
  // 7-bit and C1 spellings of OSC 0 (title), OSC 52 (clipboard), CSI (SGR), DCS, and a lone CR.
  const hostile = "A\u009d0;C1TITLE\u009cB\u009d52;c;cHduZWQ=\u009cC\x1b]52;c;ZXNj\x07D\u009b31mE\u0090dcs\u009cF\x1b[0mG\x1b]0;t\x1b\\H\r\n";

  test("removes C1 control sequences as it removes 7-bit ones", () => {
    expect(plainText(hostile)).toBe("ABCDEFGH\n");
  });

  test("gives the same text however the stream is cut into chunks", () => {
    for (let at = 0; at <= hostile.length; at++) {
      for (let second = at; second <= hostile.length; second += 7) {
        const stream = new PlainTextStream();
        const out = stream.push(hostile.slice(0, at)) + stream.push(hostile.slice(at, second)) + stream.push(hostile.slice(second));
        expect(out).toBe("ABCDEFGH\n");
      }
    }
  });

  test("no control character survives, whatever the input", () => {
    const stream = new PlainTextStream();
    let out = "";
    for (let code = 0; code < 0xa0; code++) out += stream.push(`${String.fromCharCode(code)}x`);
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/); // tab and newline are text
  });

  test("a control string longer than the hold limit is dropped up to its end, not kept", () => {
    const stream = new PlainTextStream();
    let out = stream.push(`before\u009d52;c;`);
    for (let i = 0; i < 3; i++) out += stream.push("A".repeat(MAX_HELD));
    out += stream.push("AAAA\u009cafter\n");
    expect(out).toBe("beforeafter\n");
  });
});
