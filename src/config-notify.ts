// notify's destinations as the config file and FLEETCOM_NOTIFY write them (docs/notify.md): a
// command line, an ntfy topic or a webhook, each either a plain string (every event) or a table
// `{ to = "…", events = […] }` that names the events it wants. Pure.
import { Buffer } from "node:buffer";
import { nearest } from "./text-nearest.ts";

/** What can be pushed: a wait (`input`, `permission`), an end (`finished`, `failed`), a restart policy that gave up, a service not ready. */
export const NOTIFY_EVENTS = ["input", "permission", "finished", "failed", "crash-loop", "not-ready"] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** A destination as the settings keep it: as written, and the events it wants (every one when a plain string). */
export type NotifyTarget = string | { to: string; events: NotifyEvent[] };

/** Where a notice goes: a command line run with `/bin/sh -c`, an ntfy topic, or a webhook that takes JSON. */
export type NotifyDestination =
  | { kind: "command"; written: string; command: string }
  | { kind: "ntfy"; written: string; url: string; authorization: string | null; click: string | null }
  | { kind: "webhook"; written: string; url: string };

type Parsed<T> = { ok: T; warnings?: string[] } | { error: string };

const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
const DESTINATION_FORMS = "ntfy://host/topic, ntfy+http://host:port/topic, https://… or http://…";

/** The destination's text, whichever form it was written in. */
export function targetText(target: NotifyTarget): string {
  return typeof target === "string" ? target : target.to;
}

/** Whether a destination wants this event: a plain string wants them all. */
export function wants(target: NotifyTarget, event: NotifyEvent): boolean {
  return typeof target === "string" || target.events.includes(event);
}

/** How `status` and `fleetcom config` show a destination: as written, its events after it. */
export function targetShown(target: NotifyTarget): string {
  return typeof target === "string" ? target : `${target.to} [${target.events.join(", ")}]`;
}

/**
 * One destination as written. What starts like a URL (`scheme://`) is one of the forms above and
 * nothing else, so a mistyped URL is refused rather than run as a command; anything else is a command
 * line. `ntfy://` publishes over https; `ntfy+http://` over plain http, for a server on this machine
 * or a LAN (and the tests' receiver on 127.0.0.1).
 */
export function notifyDestination(raw: string): Parsed<NotifyDestination> {
  const written = raw.trim();
  if (!URL_LIKE.test(written)) return { ok: { kind: "command", written: raw, command: raw } };
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    return { error: `'${written}' is not a URL (${DESTINATION_FORMS})` };
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === "http" || scheme === "https") return { ok: { kind: "webhook", written, url: url.href } };
  if (scheme !== "ntfy" && scheme !== "ntfy+http") return { error: `'${written}': unknown scheme ${scheme}:// (${DESTINATION_FORMS})` };
  // WHATWG URL parses a scheme it does not know with an opaque host: read host, port and path from the text.
  const parts = /^[^:]+:\/\/(?:([^@/]*)@)?([^/?#]+)(\/[^?#]*)?(\?[^#]*)?$/.exec(written);
  const topic = parts?.[3]?.slice(1) ?? "";
  if (!parts || !NTFY_TOPIC.test(topic))
    return { error: `'${written}': expected ${scheme}://host[:port]/topic, the topic of letters, digits, - and _ (at most 64)` };
  const [, userinfo, host] = parts;
  const click = new URLSearchParams(parts[4] ?? "").get("click");
  // A header carries it: as a URL's ASCII form, and only a page a phone can open.
  if (click !== null && !/^https?:\/\//i.test(click)) return { error: `'${written}': click=${click} is not an http(s) URL` };
  if (click !== null && !URL.canParse(click)) return { error: `'${written}': click=${click} is not a URL` };
  const base = `${scheme === "ntfy" ? "https" : "http"}://${host}/${topic}`;
  if (!URL.canParse(base)) return { error: `'${written}': ${host} is not a host name` };
  // ntfy's access control takes the user and password as Basic auth (written percent-encoded, as in any URL).
  const authorization = userinfo ? `Basic ${Buffer.from(safeDecode(userinfo)).toString("base64")}` : null;
  return { ok: { kind: "ntfy", written, url: new URL(base).href, authorization, click: click === null ? null : new URL(click).href } };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A single destination (FLEETCOM_NOTIFY, or `notify = "…"`): blank is none. */
export function notifyOne(value: string): Parsed<NotifyTarget[]> {
  if (value.trim() === "") return { ok: [] };
  const parsed = notifyDestination(value);
  return "ok" in parsed ? { ok: [parsed.ok.written] } : parsed;
}

/** The destinations of a list, each bad one left out with one line naming it. */
export function notifyList(values: unknown[]): Parsed<NotifyTarget[]> {
  const ok: NotifyTarget[] = [];
  const warnings: string[] = [];
  for (const value of values) {
    const parsed = notifyItem(value);
    if (parsed === null) continue;
    if ("ok" in parsed) ok.push(parsed.ok);
    else warnings.push(parsed.error);
  }
  return { ok, warnings };
}

/** One item of the list: a destination in quotes, or a table naming its events; null for a blank one. */
function notifyItem(value: unknown): Parsed<NotifyTarget> | null {
  if (typeof value === "string") {
    if (value.trim() === "") return null;
    const parsed = notifyDestination(value);
    return "ok" in parsed ? { ok: parsed.ok.written } : parsed;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { error: `expected a destination in quotes or { to = "…", events = […] }, got ${Array.isArray(value) ? "an array" : JSON.stringify(value)}` };
  const { to, events, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return { error: `unknown field '${extra}' in a destination's table (to, events)` };
  if (typeof to !== "string" || to.trim() === "") return { error: `a destination's table needs to = "…", the destination in quotes` };
  const parsed = notifyDestination(to);
  if ("error" in parsed) return parsed;
  const named = eventList(parsed.ok.written, events);
  return "error" in named ? named : { ok: { to: parsed.ok.written, events: named.ok } };
}

/** `events = […]`: known events only; a misspelt one refuses the destination, naming the nearest event. */
function eventList(to: string, events: unknown): Parsed<NotifyEvent[]> {
  if (!Array.isArray(events) || events.length === 0 || events.some((e) => typeof e !== "string"))
    return { error: `'${to}': events: expected a list of events in quotes (${NOTIFY_EVENTS.join(", ")})` };
  for (const event of events as string[]) {
    if ((NOTIFY_EVENTS as readonly string[]).includes(event)) continue;
    const near = nearest(event, NOTIFY_EVENTS);
    return { error: `'${to}': unknown event '${event}'${near ? ` (did you mean ${near}?)` : ""}; the events are ${NOTIFY_EVENTS.join(", ")}` };
  }
  return { ok: [...new Set(events as NotifyEvent[])] };
}
