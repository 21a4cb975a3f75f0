// How `hosts add` puts this version's binary on a host: packed here (client-host-pack.ts: xz, zstd or
// gzip as the host can unpack it; as it is only where none is there), unpacked there to a
// temporary name, its SHA-256 and its --version checked, and only then renamed into place. A stream
// cut short or damaged on the way fails the unpacking or the checksum: the temporary file is removed
// and whatever fleetcom was at the path before is left as it was.
import { EXIT, UserError } from "./errors.ts";
import { cachedPieces } from "./client-host-pack-cache.ts";
import { type Packing, packedPieces, packingFor, unpackCommand } from "./client-host-pack.ts";
import { askBlockHashes, assembleCommand, planReuse, type Reuse } from "./client-host-reuse.ts";
import { capture, hostOptions, type RemoteHost, sshCommandLine, sshReason } from "./client-ssh.ts";
import { FileRefused, readRegularFile } from "./files.ts";
import { printable } from "./text-printable.ts";
import { sha256Hex } from "./text-sha256.ts";
import { shellQuote } from "./text-shell.ts";
import { VERSION } from "./version.ts";

/** How long `hosts add` gives the upload to finish. */
const UPLOAD_BOUND_MS = 10 * 60_000;
/** The largest binary `hosts add` reads to send. */
const MAX_BINARY_BYTES = 1024 * 1024 * 1024;

/**
 * The script the host runs (by `sh`): unpack to a temporary name beside the target, check the
 * unpacked file's SHA-256 and its --version, then rename it over the target. Every refusal is one
 * line on stderr ending in what is left there.
 */
export function installScript(hash: string, packing: Packing, version: string = VERSION, reuse: Reuse | null = null): string {
  const kept = "nothing installed, the fleetcom there is as it was";
  const cutShort = `then echo "the upload arrived cut short or damaged (${packing} could not unpack it); ${kept}" >&2; exit 3; fi`;
  const unpack = reuse
    ? `w="$d/.fleetcom.blocks.$$"; mkdir "$w"
if ! ${unpackCommand(packing, `"$w/new"`)}; ${cutShort}
${assembleCommand(reuse)} || true`
    : `if ! ${unpackCommand(packing, `"$t"`)}; ${cutShort}`;
  return `set -e
d="$HOME/.local/share/fleetcom/${version}"; mkdir -p "$d"; t="$d/.fleetcom.upload.$$"; w=
trap 'rm -rf "$t" \${w:+"$w"}' EXIT
${unpack}
if command -v sha256sum >/dev/null 2>&1; then h=$(sha256sum "$t"); else h=$(shasum -a 256 "$t"); fi
h=\${h%% *}
if [ "$h" != "${hash}" ]; then echo "checksum mismatch after the upload (sent ${hash}, got $h); ${kept}" >&2; exit 3; fi
chmod 755 "$t"
v=$("$t" --version 2>&1) || { echo "the uploaded binary does not run there ($v); ${kept}" >&2; exit 4; }
[ "$v" = "${version}" ] || { echo "the uploaded binary says it is fleetcom $v, not ${version}; ${kept}" >&2; exit 4; }
mv -f "$t" "$d/fleetcom"
rm -rf \${w:+"$w"}
trap - EXIT`;
}

/**
 * Uploads `source` packed for the host, which unpacks, verifies and renames it into place; what
 * crossed the wire. Given fleetcoms already there (`others`), the blocks the last of them shares
 * with this binary are taken from it there; should that go wrong (a host that lied about its
 * blocks), the whole binary is sent once more.
 */
export async function installBinary(
  host: RemoteHost,
  source: string,
  unpackers: readonly string[],
  others: readonly string[] = [],
): Promise<{ packing: Packing; sent: number; reusedFrom: string | null }> {
  const bytes = readBinary(source);
  const packing = packingFor(unpackers);
  const hash = sha256Hex(bytes);
  const from = others.at(-1);
  const theirs = from === undefined ? null : await askBlockHashes(host, from);
  const reuse = from !== undefined && theirs ? planReuse(bytes, from, theirs) : null;
  if (reuse) {
    const r = await upload(host, packedPieces(reuse.sent, packing), installScript(hash, packing, VERSION, reuse));
    if (r.failure === null) return { packing, sent: r.sent, reusedFrom: reuse.from };
    const whole = await upload(host, wholeBinary(bytes, hash, packing), installScript(hash, packing));
    if (whole.failure !== null) throw new UserError(`${host.name}: install failed: ${whole.failure}`, EXIT.failure);
    return { packing, sent: r.sent + whole.sent, reusedFrom: null };
  }
  const r = await upload(host, wholeBinary(bytes, hash, packing), installScript(hash, packing));
  if (r.failure !== null) throw new UserError(`${host.name}: install failed: ${r.failure}`, EXIT.failure);
  return { packing, sent: r.sent, reusedFrom: null };
}

/** The whole binary packed, from the cache when this version was packed before (client-host-pack-cache.ts). */
function wholeBinary(bytes: Uint8Array, hash: string, packing: Packing): AsyncIterable<Uint8Array> {
  return cachedPieces(hash, packing, () => packedPieces(bytes, packing));
}

/** Runs `script` there with the packed `pieces` on its stdin: the bytes sent, and ssh's or the script's reason when it failed. */
async function upload(host: RemoteHost, pieces: AsyncIterable<Uint8Array>, script: string): Promise<{ sent: number; failure: string | null }> {
  let sent = 0;
  const counted = async function* () {
    for await (const piece of pieces) {
      sent += piece.length;
      yield piece;
    }
  };
  const { Readable } = await import("node:stream");
  const stream = counted();
  const r = await capture(await sshCommandLine(host.ssh, `sh -c ${shellQuote(script)}`, hostOptions(host)), UPLOAD_BOUND_MS, Readable.from(stream));
  // An upload that ended before its last piece leaves the packing's cleanup to run: nothing half kept.
  await stream.return(undefined);
  return { sent, failure: r.code === 0 ? null : sshReason(r.stderr, r.code, r.signal) };
}

function readBinary(source: string): Uint8Array {
  try {
    return readRegularFile(source, { maxBytes: MAX_BINARY_BYTES });
  } catch (error) {
    throw new UserError(error instanceof FileRefused ? error.message : `--binary ${printable(source)}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}
