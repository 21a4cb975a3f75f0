// The web view's tokens. SECURITY INVARIANT: no token is ever written down, only its SHA-256, in one
// 0600 file in the config directory. A login token (in the URL `fleetcom web` prints) is good for one
// visit, which trades it for a session token (the cookie); `fleetcom web --revoke` empties the file,
// so every token and cookie stops working, in a running web view too: the file is read per request.
// Hashes are compared as plain strings: a timing difference says nothing about a token that is not
// already known, since the attacker cannot choose what the hashes are.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "./text-sha256.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import { FileRefused, readRegularFile } from "./files.ts";
import { configDir } from "./paths.ts";

type Kind = "login" | "session";

/** Far more entries than people make; past it the oldest go. */
const MAX_ENTRIES = 1000;
const LINE = /^(login|session) ([0-9a-f]{64})$/;

export function tokenFile(): string {
  return join(configDir(), "web-tokens");
}

function entries(): string[] {
  let text: string;
  try {
    text = readRegularFile(tokenFile(), { maxBytes: 1024 * 1024 }).toString("utf8");
  } catch (error) {
    if (error instanceof FileRefused || (error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return text.split("\n").filter((line) => LINE.test(line));
}

function save(lines: string[]): void {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  writeFileAtomic(
    tokenFile(),
    lines
      .slice(-MAX_ENTRIES)
      .map((l) => `${l}\n`)
      .join(""),
    0o600,
  );
}

function mint(kind: Kind, lines: string[]): { token: string; lines: string[] } {
  const token = randomBytes(32).toString("base64url");
  return { token, lines: [...lines, `${kind} ${sha256Hex(token)}`] };
}

/** A fresh login token for the URL; only its hash is kept. */
export function newLoginToken(): string {
  const { token, lines } = mint("login", entries());
  save(lines);
  return token;
}

/** The login token spent for a session token, or null when it is not (or no longer) one. */
export function tradeLoginToken(token: string): string | null {
  const lines = entries();
  const spent = `login ${sha256Hex(token)}`;
  if (!lines.includes(spent)) return null;
  const session = mint(
    "session",
    lines.filter((l) => l !== spent),
  );
  save(session.lines);
  return session.token;
}

export function isSession(token: string): boolean {
  return entries().includes(`session ${sha256Hex(token)}`);
}

/** Every login and session token stops working. */
export function revokeAll(): void {
  save([]);
}
