import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { isolatedDirs } from "../harness/sandbox.ts";
import { isSession, newLoginToken, revokeAll, tokenFile, tradeLoginToken } from "../../src/web-token.ts";

const dirs = isolatedDirs("fleetcom-web-token-");
const saved = process.env.FLEETCOM_CONFIG_DIR;
beforeEach(() => {
  process.env.FLEETCOM_CONFIG_DIR = dirs.config;
  revokeAll();
});
afterAll(() => {
  if (saved === undefined) delete process.env.FLEETCOM_CONFIG_DIR;
  else process.env.FLEETCOM_CONFIG_DIR = saved;
});

describe("web tokens", () => {
  test("a login token is good for one visit, which gives a session token", () => {
    const login = newLoginToken();
    const session = tradeLoginToken(login);
    expect(session).not.toBeNull();
    expect(isSession(session!)).toBe(true);
    expect(tradeLoginToken(login)).toBeNull();
    expect(isSession(login)).toBe(false);
  });

  test("only hashes are written, in a file only its owner reads", () => {
    const login = newLoginToken();
    const session = tradeLoginToken(newLoginToken())!;
    const text = readFileSync(tokenFile(), "utf8");
    expect(text).not.toContain(login);
    expect(text).not.toContain(session);
    expect(text).toMatch(/^login [0-9a-f]{64}\nsession [0-9a-f]{64}\n$/);
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
  });

  test("revoking ends every login and session token", () => {
    const login = newLoginToken();
    const session = tradeLoginToken(newLoginToken())!;
    revokeAll();
    expect(isSession(session)).toBe(false);
    expect(tradeLoginToken(login)).toBeNull();
  });

  test("a token that is no token, an empty one and a hash itself are refused", () => {
    const session = tradeLoginToken(newLoginToken())!;
    const hash = readFileSync(tokenFile(), "utf8").split(" ")[1]!.trim();
    for (const bad of ["", "x", hash, `${session} `, session.slice(1)]) expect(isSession(bad)).toBe(false);
  });
});
