// The web view's answers about logging in: trading a login token for a session (POST /login), and
// what a request without a good token is told, in words a person can act on: the link is spent, or
// there is no session, and the command that prints a new link. Nothing of the fleet is in them.
import { LOGIN_TOKEN_MINUTES, tradeLoginToken } from "./web-token.ts";

/** The header the page's script sends its login token in (a request no other page can make without a preflight, never answered). */
const LOGIN_HEADER = "x-fleetcom-login";

export const empty = (status: number, headers: Record<string, string> = {}) =>
  new Response(null, { status, headers: { "cache-control": "no-store", ...headers } });

/** POST /login with a login token in LOGIN_HEADER: a session token for the page to keep, once; 401 for a token that is not (or no longer) good. */
export function login(request: Request, here: Here): Response {
  const token = request.headers.get(LOGIN_HEADER);
  if (request.method !== "POST" || token === null) return empty(400);
  const session = tradeLoginToken(token);
  if (session === null) return notLoggedIn(here, "login");
  return Response.json({ session }, { headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" } });
}

/** Where the view listens and the names it serves: what `fleetcom web --url` needs to be told for a new link. */
export interface Here {
  port: number | undefined;
  names: string[];
}

/** The command that prints a new login link for this view: with `write`, one that may type. */
export function loginCommand(here: Here, write: boolean): string {
  return ["fleetcom web --url", ...(write ? ["--write"] : []), `--port ${here.port ?? "PORT"}`, ...here.names.map((n) => `--host-name ${n}`)].join(" ");
}

/**
 * A 401 that says why and what to do, as text the page shows (and a person reading the raw answer
 * can follow): a spent login link, or no session. It names nothing of the fleet.
 */
export function notLoggedIn(here: Here, what: "login" | "session"): Response {
  const why =
    what === "login"
      ? `This link is spent: it was used already, is more than ${LOGIN_TOKEN_MINUTES} minutes old, or was revoked.`
      : "Not logged in: this browser has no session here, or it was revoked.";
  const text = `${why} For a new link, run on the machine: ${loginCommand(here, false)} (with --write for one that may type into tasks).`;
  return new Response(text, { status: 401, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
}
