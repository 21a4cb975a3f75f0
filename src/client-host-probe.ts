// What `hosts add` asks a host in one round trip, and what it accepts of the answer. The host may lie
// (a forced command, a hostile account): every field is bounded by length and shape before any of it
// is printed, used in a command line or written into config.toml, where a home of megabytes would
// push the file past its bound and every setting with it. An answer out of shape refuses the host in
// one line that names it; nothing is saved.
import { capture, type SshFacts, sshCommandLine, sshReason } from "./client-ssh.ts";
import { UNPACKERS, type Unpacker } from "./client-host-pack.ts";
import { EXIT, UserError } from "./errors.ts";
import { isPrintable, printable } from "./text-printable.ts";
import { shellQuote } from "./text-shell.ts";
import { VERSION } from "./version.ts";

/** How long `hosts add` gives ssh to look at the host. */
const PROBE_BOUND_MS = 30_000;
/** The most the probe may print: a few short lines, and a line per version installed there. */
const PROBE_MAX_BYTES = 64 * 1024;
/** PATH_MAX on Linux: no home is longer. */
const MAX_PATH_BYTES = 4096;
/** `uname -sm`: two words of letters, digits and a little punctuation (`Linux x86_64`, `CYGWIN_NT-10.0 x86_64`). */
const SYSTEM = /^[\w.()/-]{1,64} [\w.()/-]{1,64}$/;
/** A version as `fleetcom --version` prints it. */
const VERSION_SHAPE = /^[0-9A-Za-z.+-]{1,64}$/;
/** The other versions named: enough for any real host. */
const MAX_FOUND = 32;

// `uname -sm`, the home, then KEY=VALUE lines. Run by `sh` whatever the login shell is; the
// fleetcom it asks is called by its path, never through PATH.
const PROBE = `uname -sm; printf '%s\\n' "$HOME"
l=$(loginctl show-user "$(id -un)" --property=Linger --value 2>/dev/null); echo "linger=\${l:-unknown}"
if systemctl --user is-enabled fleetcom.service >/dev/null 2>&1; then echo service=yes; else echo service=no; fi
b="$HOME/.local/share/fleetcom/${VERSION}/fleetcom"; [ -x "$b" ] && echo "installed=$("$b" --version 2>/dev/null)"
for f in "$HOME"/.local/share/fleetcom/*/fleetcom; do [ -x "$f" ] && echo "found=$f"; done
for u in ${UNPACKERS.join(" ")}; do command -v "$u" >/dev/null 2>&1 && echo "unpack=$u"; done; true`;

export interface Probe {
  system: string;
  home: string;
  linger: "yes" | "no" | "unknown";
  service: boolean;
  installed: string | null;
  found: string[];
  /** The programs there that can unpack an upload (client-host-pack.ts). */
  unpackers: Unpacker[];
}

/** Asks the host at `dest` (added as `name`) what `hosts add` needs, within PROBE_BOUND_MS and PROBE_MAX_BYTES. */
export async function probeHost(name: string, dest: string, facts: SshFacts): Promise<Probe> {
  const r = await capture(await sshCommandLine(dest, `sh -c ${shellQuote(PROBE)}`, facts), PROBE_BOUND_MS, undefined, PROBE_MAX_BYTES);
  if (r.code !== 0) throw new UserError(`cannot reach ${name} (${printable(dest)}): ${sshReason(r.stderr, r.code, r.signal)}`, EXIT.unreachable);
  return parseProbe(name, r.stdout);
}

/** The probe's answer, each field checked; a system or home out of shape refuses the host. */
export function parseProbe(name: string, stdout: string): Probe {
  const [rawSystem = "", home = "", ...rest] = stdout.split("\n");
  const system = rawSystem.trim();
  if (!SYSTEM.test(system)) throw new UserError(`${name}: 'uname -sm' there did not give a system and architecture (got '${shown(system)}')`);
  if (!isHomePath(home))
    throw new UserError(
      `${name}: the remote shell did not give its home directory as an absolute path of at most ${MAX_PATH_BYTES} bytes (got '${shown(home)}')`,
    );
  const value = (key: string) => rest.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
  const linger = value("linger")[0];
  const installed = value("installed")[0]?.trim() ?? "";
  const ours = `${home}/.local/share/fleetcom/`;
  return {
    system,
    home,
    linger: linger === "yes" || linger === "no" ? linger : "unknown",
    service: value("service")[0] === "yes",
    installed: VERSION_SHAPE.test(installed) ? installed : null,
    found: value("found")
      .filter((f) => f.startsWith(ours) && f.endsWith("/fleetcom") && isHomePath(f))
      .slice(0, MAX_FOUND),
    unpackers: UNPACKERS.filter((u) => value("unpack").includes(u)),
  };
}

function isHomePath(path: string): boolean {
  return path.startsWith("/") && Buffer.byteLength(path) <= MAX_PATH_BYTES && isPrintable(path);
}

/** The start of what was given, escaped: a refusal stays one short line whatever the host sent. */
function shown(text: string): string {
  return text.length > 80 ? `${printable(text.slice(0, 80))}… (${Buffer.byteLength(text)} bytes)` : printable(text);
}
