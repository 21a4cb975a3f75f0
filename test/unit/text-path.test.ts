// A path's bytes carried in a string (text-path.ts): directory names that are not UTF-8 survive the
// round trip, and a plain one is left as it is. The binary keeping such a directory is
// test/e2e/commands-conformance.test.ts.
import { describe, expect, test } from "bun:test";
import { Buffer } from "node:buffer";
import { pathToFileURL } from "node:url";
import { fileUrl, hasRawBytes, pathBytes, pathFromBytes } from "../../src/text-path.ts";

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

test("a path's file URL is the one node:url's pathToFileURL gives, whatever characters the path holds", () => {
  const names = [
    ...Array.from({ length: 0x2ff }, (_, i) => `a${String.fromCharCode(i + 1)}b`),
    "plain",
    "with space",
    "100%",
    "a%20b",
    "hash#tag",
    "what?",
    "back\\slash",
    "line\nfeed",
    "cr\rtab\t",
    "ü日本😀",
    "[x]{y}`z`",
    "semi;colon,comma",
    "quote\"'",
    "<>|^",
    "~user",
    "a+b=c&d",
    "dot.",
    "\u0001ctl\u007f",
    "\u00a0nbsp\u2028",
  ];
  for (const name of names) {
    const path = `/home/u/${name}/opencode-attention.js`;
    expect(fileUrl(path)).toBe(pathToFileURL(path).href);
  }
  expect(fileUrl("/")).toBe(pathToFileURL("/").href);
});
