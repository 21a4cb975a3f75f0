// What a client sends, answered: its hello (the protocol checked, the welcome with the one-time
// notices), then each request (checked against its op's schema, run by its handler, replied to).
import type { Handlers } from "./daemon-ops.ts";
import type { Peer } from "./daemon-peers.ts";
import { UserError, errorMessage } from "./errors.ts";
import { definedEnvironment, homeDir, socketPath } from "./paths.ts";
import { VERSION } from "./version.ts";
import { PROTOCOL_VERSION } from "./wire-framing.ts";
import { type CrashNotice, type Hello, type Notices, opArgs, type Refusal, type Request, type Welcome } from "./wire-protocol.ts";

/** A hello that passed its schema, answered: the hello the client is greeted with and its welcome, or why it is dropped. */
export type HelloAnswer = { hello: Hello; welcome: Welcome } | { refusal: string; daemon: Refusal["daemon"] };

/** The handshake's side of the daemon: who it is this start, and the one-time notices. */
export class Handshake {
  /** Told in every welcome: which start of the daemon a client reached (a forwarded connection checks it). */
  readonly instance = crypto.randomUUID();
  /** The previous fleet of this runtime directory, lost and not yet recovered (daemon-clean-stop.ts). */
  crash: CrashNotice | null = null;
  /** One-time notices go to the first client that asks for them. */
  private noticesTold = false;

  /** `configProblems`: what the settings in force found wrong in the config file. */
  constructor(private readonly configProblems: () => Notices["config"]) {}

  answer(hello: Hello): HelloAnswer {
    if (hello.protocol !== PROTOCOL_VERSION) {
      return {
        refusal: `the running daemon speaks protocol ${PROTOCOL_VERSION} (fleetcom ${VERSION}), this client ${hello.protocol} (fleetcom ${hello.version}); run 'fleetcom --kill' (this ends the old daemon's tasks) and try again`,
        daemon: { protocol: PROTOCOL_VERSION, version: VERSION },
      };
    }
    // A client forwarded here by ssh from another machine gets what a bridge would have put in: this host's.
    const kept = hello.environment === "host" ? { ...hello, env: definedEnvironment(), cwd: homeDir() } : hello;
    const welcome = {
      type: "welcome",
      protocol: PROTOCOL_VERSION,
      version: VERSION,
      pid: process.pid,
      socket: socketPath(),
      instance: this.instance,
      ...this.noticesFor(hello),
    } satisfies Welcome;
    return { hello: kept, welcome };
  }

  /** The one-time notices, for the first client that asks: a lost previous fleet, config problems. */
  private noticesFor(hello: Hello): { notices?: Notices } {
    const config = this.configProblems();
    if (!hello.notices || this.noticesTold || (this.crash === null && config.length === 0)) return {};
    this.noticesTold = true;
    return { notices: { crash: this.crash, config } };
  }
}

/** Runs one request and replies: arguments its op's schema refuses, or an error, become a one-line error reply. */
export async function runRequest(handlers: Handlers, peer: Peer, req: Request, log: (message: string) => void): Promise<void> {
  const schema = opArgs[req.op];
  const args = req.args ?? {};
  if (!schema.allows(args)) {
    peer.conn.send({ type: "reply", id: req.id, ok: false, error: `${req.op}: ${await schema.problem(args)}` });
    return;
  }
  try {
    // `args` passed this op's own schema just above; TypeScript cannot tie the two through a union.
    const result = await handlers[req.op](peer, args as never);
    peer.conn.send({ type: "reply", id: req.id, ok: true, result: result ?? null });
  } catch (error) {
    if (!(error instanceof UserError)) log(`error in ${req.op}: ${(error as Error)?.stack ?? error}`);
    peer.conn.send({ type: "reply", id: req.id, ok: false, error: errorMessage(error) });
  }
}
