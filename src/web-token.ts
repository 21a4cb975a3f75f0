// The web view's tokens. SECURITY INVARIANT: no token is ever written down, only its SHA-256, in one
// 0600 file in the config directory. A login token (in the URL `fleetcom web` prints) is good for one
// visit within LOGIN_TOKEN_MINUTES of being made, which trades it for a session token (which the page
// keeps, web-server.ts); `fleetcom web --revoke` empties the file,
// so every token and cookie stops working, in a running web view too: the file is read per request.
// A token carries its grant: a `write` one (`fleetcom web --url --write`) lets its page type into
// tasks on a view started without --write. It is minted by the same user, through the same 0600 file,
// who could have started that view with --write, so it widens nothing they could not already do.
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
/** What a session may do: look, or look and type (send, keys, rerun, kill). */
export type Grant = "read" | "write";

/** Far more entries than people make; past it the oldest go. */
const MAX_ENTRIES = 1000;
/** A login line carries when it was made (ms since the epoch): an unspent token is good this long, so a URL left in a log or a scrollback goes stale. */
const LINE = /^(login [0-9a-f]{64} \d{1,15}|session [0-9a-f]{64})( write)?$/;
/** How long a printed login URL stays good unspent; `--help` and docs/web.md say it. */
export const LOGIN_TOKEN_MINUTES = 10;

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

function mint(kind: Kind, grant: Grant, lines: string[], now: number): { token: string; lines: string[] } {
  const token = randomBytes(32).toString("base64url");
  const line = kind === "login" ? `login ${sha256Hex(token)} ${now}` : `session ${sha256Hex(token)}`;
  return { token, lines: [...lines, grant === "write" ? `${line} write` : line] };
}

const grantOf = (line: string): Grant => (line.endsWith(" write") ? "write" : "read");

/** Still good at `now`: made no more than LOGIN_TOKEN_MINUTES before it (and not after it: a clock stepped back spends nothing). */
function fresh(line: string, now: number): boolean {
  const made = Number(line.split(" ")[2]);
  return made <= now && now - made <= LOGIN_TOKEN_MINUTES * 60_000;
}

/** A fresh login token for the URL; only its hash is kept, with when it was made and its grant. Expired ones are dropped. */
export function newLoginToken(now = Date.now(), grant: Grant = "read"): string {
  const { token, lines } = mint(
    "login",
    grant,
    entries().filter((l) => !l.startsWith("login ") || fresh(l, now)),
    now,
  );
  save(lines);
  return token;
}

/** The login token spent for a session token of the same grant, or null when it is not one, is spent, or has expired. */
export function tradeLoginToken(token: string, now = Date.now()): string | null {
  const lines = entries();
  const prefix = `login ${sha256Hex(token)} `;
  const spent = lines.find((l) => l.startsWith(prefix));
  if (spent === undefined || !fresh(spent, now)) return null;
  const session = mint(
    "session",
    grantOf(spent),
    lines.filter((l) => l !== spent),
    now,
  );
  save(session.lines);
  return session.token;
}

export function isSession(token: string): boolean {
  return sessionGrant(token) !== null;
}

/** What the session token grants, or null when it is none (never was, or revoked). */
export function sessionGrant(token: string): Grant | null {
  const line = `session ${sha256Hex(token)}`;
  const found = entries().find((l) => l === line || l === `${line} write`);
  return found === undefined ? null : grantOf(found);
}

/** Every login and session token stops working. */
export function revokeAll(): void {
  save([]);
}
