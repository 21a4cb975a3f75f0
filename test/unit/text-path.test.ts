// A path's bytes carried in a string (text-path.ts): directory names that are not UTF-8 survive the
// round trip, and a plain one is left as it is. The binary keeping such a directory is
// test/e2e/commands-conformance.test.ts.
import { describe, expect, test } from "bun:test";
import { Buffer } from "node:buffer";
import { hasRawBytes, pathBytes, pathFromBytes } from "../../src/text-path.ts";

describe("a path's bytes", () => {
  test("the lossless form: UTF-8 as it is, every other byte one escape, and back", () => {
    const cases = [
      Buffer.from("plain/ü/日本/😀"),
      Buffer.from([0x2f, 0xff, 0xfe, 0x41]),
      Buffer.from([0xc3]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xe2, 0x82]),
      Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0x80]),
    ];
    for (const bytes of cases) expect(pathBytes(pathFromBytes(bytes))).toEqual(bytes);
    expect(pathFromBytes(Buffer.from("plain/ü/日本/😀"))).toBe("plain/ü/日本/😀");
    expect(pathFromBytes(Buffer.from([0x61, 0xff]))).toBe("a\udcff");
    expect(hasRawBytes("plain/ü/😀")).toBe(false);
  });
});
