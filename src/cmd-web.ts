// `fleetcom web [--write] [--port N] [--listen ADDR --tls-cert F --tls-key F]` and `fleetcom web
// --revoke`: the fleet in a browser (docs/web.md). Listens on 127.0.0.1 unless told otherwise, and
// off loopback only over TLS: a token and a cookie sent in the clear on a network are anyone's.
// On a terminal it prints one URL with a fresh login token, good for one visit within
// LOGIN_TOKEN_MINUTES (web-token.ts); anywhere else (a service's log, a pipe) only where it listens,
// as a URL without a token: `fleetcom web --url` prints a login URL on demand, `--url --write` one
// whose page may type whatever flags the running view was started with (web-token.ts).
import { defineCommand } from "citty";
import { isIP } from "node:net";
import { positiveWholeFlag } from "./kit-flags.ts";
import { errnoCode, errnoWords, errorMessage, usageError } from "./errors.ts";
import { readRegularFile } from "./files.ts";
import { printable } from "./text-printable.ts";
import { LOGIN_TOKEN_MINUTES } from "./web-token.ts";

export default defineCommand({
  meta: {
    name: "web",
    description: `Serve the fleet to a browser on 127.0.0.1 (read-only unless --write); on a terminal, prints a URL with a one-time token good for ${LOGIN_TOKEN_MINUTES} minutes`,
  },
  args: {
    write: {
      type: "boolean",
      description: "Let the page type into tasks, send text and keys, rerun and kill; with --url, a link that may, on a view started without --write too",
    },
    port: { type: "string", valueHint: "N", description: "Listen on this port (default: any free one)" },
    listen: {
      type: "string",
      valueHint: "ADDR[:PORT]",
      description: "Listen on this address instead of 127.0.0.1, and on PORT when given (off loopback, with --tls-cert and --tls-key)",
    },
    "tls-cert": { type: "string", valueHint: "FILE", description: "Serve HTTPS with this certificate (PEM)" },
    "tls-key": { type: "string", valueHint: "FILE", description: "…and this private key (PEM)" },
    revoke: { type: "boolean", description: "Invalidate every web token and session, then exit" },
    url: {
      type: "boolean",
      description: `Print a new login URL (good for one visit within ${LOGIN_TOKEN_MINUTES} minutes) for the web view already listening on --port (the service's), then exit`,
    },
    "host-name": {
      type: "string",
      valueHint: "NAME",
      description:
        "The name browsers reach the view by (a TLS front, your certificate's): the Host it accepts besides IP addresses and localhost, and the printed URL's",
    },
  },
  async run({ args }) {
    const { newLoginToken, revokeAll, tokenFile } = await import("./web-token.ts");
    if (args.revoke) {
      revokeAll();
      console.log(`every web token and session is revoked (${tokenFile()})`);
      return;
    }
    const listen = args.listen === undefined ? { hostname: "127.0.0.1" } : listenAddress(args.listen);
    const hostname = listen.hostname;
    if (listen.port !== undefined && args.port !== undefined && portFlag(args.port) !== listen.port)
      throw usageError(`web: --listen ${args.listen} and --port ${args.port} name two ports: give one`);
    if (!isLoopback(hostname) && !(args["tls-cert"] && args["tls-key"]))
      throw usageError(`web: --listen ${hostname} is off loopback: give --tls-cert and --tls-key, or keep 127.0.0.1 behind a TLS front (docs/web.md)`);
    if (Boolean(args["tls-cert"]) !== Boolean(args["tls-key"])) throw usageError("web: --tls-cert and --tls-key go together");
    const port = listen.port ?? (args.port === undefined ? 0 : portFlag(args.port));
    const tls = args["tls-cert"] && args["tls-key"] ? { cert: pem("--tls-cert", args["tls-cert"]), key: pem("--tls-key", args["tls-key"]) } : null;
    const named = args["host-name"] === undefined ? null : hostNameFlag(args["host-name"]);
    const shown = named ?? hostname;
    const host = shown.includes(":") ? `[${shown}]` : shown;
    const address = (listening: number) => `${tls ? "https" : "http"}://${host}:${listening}/`;
    const url = (listening: number) => `${address(listening)}?token=${newLoginToken(Date.now(), args.write ? "write" : "read")}`;
    if (args.url) {
      if (listen.port === undefined && args.port === undefined) throw usageError("web --url: give the --port the web view listens on (the service's is 7681)");
      console.log(url(port));
      return;
    }
    const { serveWeb } = await import("./web-server.ts");
    const view = await serveWeb({ hostname, port, write: Boolean(args.write), tls, names: named ? [named] : [] });
    const listening = view.port ?? port;
    // A login token is printed only to a person: a service manager's log is read by others (adm, systemd-journal).
    if (process.stdout.isTTY) console.log(url(listening));
    else console.log(`listening on ${address(listening)}; fleetcom web --url --port ${listening} prints a login URL`);
    // Until a polite stop (kill, a service manager, Ctrl-C), which ends each host's ssh with the view:
    // one still connecting to a host that never answers would otherwise run on, orphaned.
    await new Promise<void>((resolve) => {
      for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => resolve());
    });
    view.stop();
    process.exit(0);
  },
});

function pem(flag: string, path: string): string {
  try {
    return readRegularFile(path, { maxBytes: 1024 * 1024 }).toString("utf8");
  } catch (error) {
    const code = errnoCode(error);
    throw usageError(`web: ${flag} ${path}: ${(code && errnoWords(code)) ?? errorMessage(error)}`);
  }
}

/**
 * `--listen` as people write it: an address, or an address and a port (`127.0.0.1:8080`,
 * `[::1]:8080`, `localhost:8080`); an IPv6 address with no brackets is an address alone (`::1`).
 */
function listenAddress(raw: string): { hostname: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(raw);
  if (bracketed) return { hostname: bracketed[1]!, ...(bracketed[2] !== undefined && { port: listenPort(raw, bracketed[2]) }) };
  const colons = raw.split(":").length - 1;
  if (colons !== 1) return { hostname: raw };
  const at = raw.indexOf(":");
  return { hostname: raw.slice(0, at), port: listenPort(raw, raw.slice(at + 1)) };
}

function listenPort(raw: string, port: string): number {
  const value = /^\d+$/.test(port) ? Number(port) : Number.NaN;
  if (!(value >= 1 && value <= 65535)) throw usageError(`web: --listen ${raw}: '${port}' is not a port (1-65535)`);
  return value;
}

/** A DNS name (letters, digits, dots, hyphens): what a Host header names, never a URL or a port. */
function hostNameFlag(raw: string): string {
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(raw))
    throw usageError(`web: --host-name ${printable(raw)} is not a host name (like host.tailnet.ts.net)`);
  return raw.toLowerCase();
}

function portFlag(raw: string): number {
  const port = positiveWholeFlag("--port", raw)!;
  if (port > 65535) throw usageError(`web: --port ${port} is not a port (1-65535)`);
  return port;
}

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}
