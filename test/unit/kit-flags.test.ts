// How the command line's flags are scanned (kit-flags.ts): values skipped by each flag's kind, short
// clusters and negations known, and the flag meant suggested for an unknown one. What a user sees of
// it through the binary is test/e2e/flags.test.ts.
import { describe, expect, test } from "bun:test";
import { flagsOf, unknownFlag } from "../../src/kit-flags.ts";

describe("an unknown flag", () => {
  test("the scan follows each flag's kind: values are skipped, clusters and negations known", () => {
    const flags = flagsOf({
      follow: { type: "boolean", alias: "f" },
      quiet: { type: "boolean", alias: "q" },
      lines: { type: "string", alias: "n" },
      enter: { type: "boolean", default: true },
      task: { type: "positional" },
    });
    for (const ok of [
      ["-fn", "5", "1"],
      ["-n5", "1"],
      ["-nf"],
      ["-qf", "1"],
      ["--lines", "--weird", "1"],
      ["--lines=3"],
      ["--no-enter"],
      ["1", "--", "--anything"],
      ["-", "-5"],
    ]) {
      expect(unknownFlag(ok, flags)).toBeNull();
    }
    expect(unknownFlag(["-fx"], flags)?.flag).toBe("-fx");
    expect(unknownFlag(["--no-lines"], flags)).toMatchObject({ flag: "--no-lines" });
    expect(unknownFlag(["--folow"], flags)).toMatchObject({ flag: "--folow", suggestion: "--follow" });
    expect(unknownFlag(["--no-entr"], flags)).toMatchObject({ suggestion: "--no-enter" });
  });
});
