import { describe, expect, test } from "bun:test";
import { diffExcerpt, parseFileLines, reviewPrompt } from "../../src/text-review.ts";

const PATCH = [
  "diff --git a/a.txt b/a.txt",
  "--- a/a.txt",
  "+++ b/a.txt",
  "@@ -1,4 +1,4 @@",
  " one",
  "-two",
  "+TWO",
  " three",
  " four",
  "@@ -10,2 +10,3 @@",
  " ten",
  "+ten and a half",
  " eleven",
  "",
].join("\n");

describe("parseFileLines", () => {
  test("FILE:LINE and FILE:LINE-LINE; a path may hold colons; anything else is null", () => {
    expect(parseFileLines("src/a.ts:12")).toEqual({ file: "src/a.ts", from: 12, to: 12 });
    expect(parseFileLines("src/a.ts:3-9")).toEqual({ file: "src/a.ts", from: 3, to: 9 });
    expect(parseFileLines("c:d.ts:4")).toEqual({ file: "c:d.ts", from: 4, to: 4 });
    for (const bad of ["a.ts", "a.ts:", "a.ts:0", "a.ts:9-3", ":4", "a.ts:x"]) expect(parseFileLines(bad)).toBeNull();
  });
});

describe("diffExcerpt", () => {
  test("the changed line with the removed line before it, under its hunk's header", () => {
    expect(diffExcerpt(PATCH, 2, 2)).toBe("@@ -1,4 +1,4 @@\n-two\n+TWO");
  });
  test("a range over two hunks keeps both headers and only the lines in range", () => {
    expect(diffExcerpt(PATCH, 3, 11)).toBe("@@ -1,4 +1,4 @@\n three\n four\n@@ -10,2 +10,3 @@\n ten\n+ten and a half");
  });
  test("lines the diff does not reach give nothing", () => {
    expect(diffExcerpt(PATCH, 6, 8)).toBe("");
    expect(diffExcerpt("", 1, 1)).toBe("");
  });
});

describe("reviewPrompt", () => {
  test("where, the fenced excerpt, then the comment", () => {
    expect(reviewPrompt("a.txt", 2, 2, "-two\n+TWO", "why upper case?", "diff")).toBe(
      "Review comment on a.txt line 2:\n```diff\n-two\n+TWO\n```\nwhy upper case?",
    );
    expect(reviewPrompt("a.txt", 2, 4, "x", "c", "text")).toContain("a.txt lines 2-4:\n```text\n");
  });
  test("an excerpt holding a fence gets a longer one, so the block cannot be closed early", () => {
    expect(reviewPrompt("r.md", 1, 1, "+```js", "c", "diff")).toBe("Review comment on r.md line 1:\n````diff\n+```js\n````\nc");
  });
});
