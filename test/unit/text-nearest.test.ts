// The word meant by a slip (text-nearest.ts), as unknown flags and commands suggest it.
import { describe, expect, test } from "bun:test";
import { nearest } from "../../src/text-nearest.ts";

describe("the nearest word", () => {
  test("one slip per three letters, a swap is one slip, a unique start counts", () => {
    expect(nearest("nmae", ["name", "group", "cwd"])).toBe("name");
    expect(nearest("atach", ["attach", "status"])).toBe("attach");
    expect(nearest("dry", ["dry-run", "json"])).toBe("dry-run");
    expect(nearest("zzz", ["json", "name"])).toBeNull();
    expect(nearest("lo", ["long-one", "long-two"])).toBeNull();
  });
});
