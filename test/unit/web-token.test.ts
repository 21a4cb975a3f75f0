import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { isolatedDirs } from "../harness/sandbox.ts";
import { isSession, LOGIN_TOKEN_MINUTES, newLoginToken, revokeAll, sessionGrant, tokenFile, tradeLoginToken } from "../../src/web-token.ts";

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
    expect(text).toMatch(/^login [0-9a-f]{64} \d+\nsession [0-9a-f]{64}\n$/);
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

  test(`a login token is good for ${LOGIN_TOKEN_MINUTES} minutes unspent, and not before it was made (a clock stepped back)`, () => {
    const made = Date.UTC(2026, 0, 1);
    const minutes = LOGIN_TOKEN_MINUTES * 60_000;
    const inTime = newLoginToken(made);
    expect(tradeLoginToken(inTime, made + minutes)).not.toBeNull();
    const late = newLoginToken(made);
    expect(tradeLoginToken(late, made + minutes + 1)).toBeNull();
    const early = newLoginToken(made);
    expect(tradeLoginToken(early, made - 1)).toBeNull();
    expect(tradeLoginToken(early, made)).not.toBeNull();
  });

  test("expired login tokens are dropped from the file when a new one is made", () => {
    const made = Date.UTC(2026, 0, 1);
    newLoginToken(made);
    newLoginToken(made + LOGIN_TOKEN_MINUTES * 60_000 + 1);
    expect(readFileSync(tokenFile(), "utf8").split("\n").filter(Boolean)).toHaveLength(1);
  });

  test("a token carries its grant: a write login gives a write session, a plain one a read session; revoking ends both", () => {
    const writer = tradeLoginToken(newLoginToken(Date.now(), "write"))!;
    const reader = tradeLoginToken(newLoginToken())!;
    expect([sessionGrant(writer), sessionGrant(reader), sessionGrant("nope")]).toEqual(["write", "read", null]);
    expect(readFileSync(tokenFile(), "utf8")).toMatch(/^session [0-9a-f]{64} write\nsession [0-9a-f]{64}\n$/);
    revokeAll();
    expect([sessionGrant(writer), sessionGrant(reader)]).toEqual([null, null]);
  });
});
