// The one shell-quoting helper every module uses (text-shell.ts): a joined argv is exactly that argv
// to /bin/sh, and a word goes bare only when no shell gives its characters a meaning.
import { describe, expect, test } from "bun:test";
import { shellJoin, shellQuote, shellWord } from "../../src/text-shell.ts";
import { SHELL_HOSTILE_WORDS } from "../harness/helpers.ts";

describe("the shell-quoting helper", () => {
  test("shellJoin gives /bin/sh back exactly the argv, for hostile words and reserved words first", () => {
    for (const argv of [
      ["printf", "[%s]\\n", "tab\there", ...SHELL_HOSTILE_WORDS],
      ["time", "x"],
      ["if", "x"],
      ["{", "x"],
    ]) {
      const line = shellJoin(argv);
      const r = Bun.spawnSync(["/bin/sh", "-c", `set -- ${line}; for w; do printf '[%s]\\n' "$w"; done`]);
      expect(r.stdout.toString()).toBe(argv.map((w) => `[${w}]\n`).join(""));
    }
    expect(shellJoin(["time", "make"])).toBe("'time' make");
    expect(shellJoin(["make", "time"])).toBe("make time");
  });

  test("a word is bare only when no shell gives any of its characters a meaning", () => {
    expect(["npm", "run", "dev", "--port=3000", "./a/b.js", "user@host:path", "50%", "a,b", "héllo", "日本"].map(shellWord)).toEqual([
      "npm",
      "run",
      "dev",
      "--port=3000",
      "./a/b.js",
      "user@host:path",
      "50%",
      "a,b",
      "héllo",
      "日本",
    ]);
    expect(["", "a b", "it's", "=x", "~", "~/x", "$x", "a*"].map(shellWord)).toEqual(["''", "'a b'", "'it'\\''s'", "'=x'", "'~'", "'~/x'", "'$x'", "'a*'"]);
    expect(shellQuote("abc")).toBe("'abc'");
  });
});
