// What a client says, in one line, when its daemon cannot be reached, refuses it, does not answer or
// sends what cannot be read; and how long it waits for a welcome. A connection the kernel accepted
// proves nothing: a stopped daemon, one out of file descriptors or a bridge that never answers leaves
// the connect successful and the welcome missing, and without a bound a one-shot command would wait
// for ever with nothing said.
// The welcome is the bound's end, not a reply: `wait`, `load` and the streams of `attach` and
// `--follow` may rightly take as long as they take once the daemon has answered.
import { oneHostBoundMs } from "./client-host-bounds.ts";
import { lockHolder } from "./client-target.ts";
import { EXIT, UserError } from "./errors.ts";
import { logPath, runtimeDir } from "./paths.ts";
import { printable } from "./text-printable.ts";
import { VERSION } from "./version.ts";
import { PROTOCOL_VERSION } from "./wire-framing.ts";
import type { Refusal } from "./wire-protocol.ts";

/** Another host, by the name these lines give it (a RemoteHost of client-ssh.ts). */
type NamedHost = { readonly name: string };

/** How long this machine's running daemon is given to welcome a client it has accepted. */
export const LOCAL_WELCOME_MS = 10_000;
/** The welcome's bound for a connection to `host` (null: this machine's daemon, `patient` when this command followed its start). */
export function welcomeBoundMs(host: NamedHost | null, patientMs: number | null): number {
  if (host) return oneHostBoundMs();
  return patientMs ?? LOCAL_WELCOME_MS;
}

/** The daemon holds its lock, so it is alive, but it does not take connections or answer them. */
export function busyDaemon(pid: number, log: string): UserError {
  return new UserError(`daemon ${pid} is running but not accepting connections (busy, stopped or out of file descriptors); see ${log}`, EXIT.unreachable);
}

/** What a client says when no welcome came within `boundMs`: the host, or this machine's daemon by its PID. */
export function noWelcome(host: NamedHost | null, boundMs: number): UserError {
  if (host) return new UserError(`${host.name} is unreachable: no answer within ${boundMs / 1000} s (ssh, or its daemon stopped or busy)`, EXIT.unreachable);
  const pid = lockHolder(runtimeDir());
  if (pid !== null) return busyDaemon(pid, logPath());
  return new UserError(`the daemon did not answer within ${boundMs / 1000} s; see ${logPath()}`, EXIT.unreachable);
}

/** A frame that cannot be read, or a message that broke its handler: the connection is over, said in one line naming who sent it. */
export function protocolError(host: NamedHost | null, error: unknown): UserError {
  const who = host ? `${host.name}'s daemon` : "the daemon";
  const what = error instanceof Error ? error.message : String(error);
  return new UserError(`${who} sent what this client cannot read (${printable(what).slice(0, 200)}); connection closed`, EXIT.unreachable);
}

/** Connect failures that say something truthful on their own: fleetcom or the system is out of file descriptors. */
export function connectFailure(code: string): UserError | null {
  if (code === "EMFILE") return new UserError("fleetcom is out of file descriptors (EMFILE) and cannot connect to the daemon", EXIT.unreachable);
  if (code === "ENFILE") return new UserError("the system is out of file descriptors (ENFILE); cannot connect to the daemon", EXIT.unreachable);
  return null;
}

/** No daemon holds the runtime directory, and the caller asked not to start one. */
export class DaemonNotRunning extends UserError {
  constructor() {
    super("the daemon is not running", EXIT.unreachable);
  }
}

/**
 * What a refused hello says. A daemon of another protocol on another host names both versions, and
 * the upgrade is `hosts add` again (which installs this version there).
 */
export function refusalText(refusal: Refusal, host: NamedHost | null): string {
  if (!host || !refusal.daemon) return refusal.error;
  const { version, protocol } = refusal.daemon;
  return `${host.name} runs fleetcom ${version} (protocol ${protocol}) and this is fleetcom ${VERSION} (protocol ${PROTOCOL_VERSION}); upgrade it with 'fleetcom hosts add ${host.name}', then 'fleetcom --host ${host.name} --kill' ends the old daemon and its tasks`;
}
