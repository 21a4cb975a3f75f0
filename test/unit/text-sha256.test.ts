import { describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { sha256Hex } from "../../src/text-sha256.ts";

describe("sha256Hex", () => {
  test("gives the FIPS 180-2 vector for 'abc'", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  test("agrees with node:crypto on strings (UTF-8) and bytes", () => {
    for (const text of ["", "/run/user/1000/fleetcom", "Größe 中 🙂"]) expect(sha256Hex(text)).toBe(createHash("sha256").update(text).digest("hex"));
    for (let i = 0; i < 20; i++) {
      const bytes = new Uint8Array(randomBytes(i * 37));
      expect(sha256Hex(bytes)).toBe(createHash("sha256").update(bytes).digest("hex"));
    }
  });
});
