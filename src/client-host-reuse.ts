// At a new version the host usually has the previous fleetcom, and most of it is the same bytes at
// the same offsets (Bun's runtime, which every build made with one Bun shares): `hosts add` asks
// the host for the SHA-256 of each block of that binary and sends only the blocks that differ, the
// host taking the others from its own copy. The host's answer is only a hint: the binary put
// together there is checked by the SHA-256 of the whole before anything is renamed into place
// (client-host-upload.ts), so a host that lies about its blocks gets no installed binary.
import { capture, hostOptions, type RemoteHost, sshCommandLine } from "./client-ssh.ts";
import { sha256Hex } from "./text-sha256.ts";
import { shellQuote } from "./text-shell.ts";

/**
 * The block both sides cut the binaries into: an application change spoils few of them (between
 * two builds, 9 of 112 here; blocks of 64 KiB would save a tenth more and cost the host sixteen
 * times the processes).
 */
export const BLOCK_BYTES = 1024 * 1024;
/** How long the host may take to hash its copy. */
const HASH_BOUND_MS = 60_000;
/** `<64 hex>  -`, as sha256sum and shasum print the hash of their stdin. */
const HASH_LINE = /^([0-9a-f]{64}) [ *]-$/;
/** Blocks of a binary `hosts add` would read (client-host-upload.ts reads at most 1 GiB). */
const MAX_BLOCKS = 1024;

/** What the upload sends when it reuses the host's copy: which blocks come from it, and the others. */
export interface Reuse {
  /** The host's copy, by its path there. */
  from: string;
  /** One letter per block of the new binary: `o` the host's block at that offset, `n` the next block sent. */
  plan: string;
  /** The blocks sent, one after another. */
  sent: Uint8Array;
}

/** The script that hashes each block of `from` there, in order, each read by dd straight into the hasher. */
export function blockHashScript(from: string): string {
  return `set -e
f=${shellQuote(from)}; n=$(wc -c < "$f"); n=$((n)); i=0
if command -v sha256sum >/dev/null 2>&1; then s=sha256sum; else s="shasum -a 256"; fi
while [ $((i * ${BLOCK_BYTES})) -lt "$n" ] && [ "$i" -lt ${MAX_BLOCKS} ]; do
  dd if="$f" bs=${BLOCK_BYTES} skip="$i" count=1 2>/dev/null | $s; i=$((i + 1))
done`;
}

/** The host's block hashes in order, or null when its answer is not that (then the whole binary is sent). */
export function parseBlockHashes(stdout: string): string[] | null {
  const lines = stdout.split("\n").filter((l) => l !== "");
  if (lines.length === 0 || lines.length > MAX_BLOCKS) return null;
  const hashes: string[] = [];
  for (const line of lines) {
    const match = HASH_LINE.exec(line);
    if (!match) return null;
    hashes.push(match[1]!);
  }
  return hashes;
}

/** The plan for `bytes` given the host's block hashes of `from`; null when too little of it would be reused to be worth a round trip's risk. */
export function planReuse(bytes: Uint8Array, from: string, theirs: readonly string[]): Reuse | null {
  let plan = "";
  const sent: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; at += BLOCK_BYTES, i++) {
    const block = bytes.subarray(at, at + BLOCK_BYTES);
    const same = i < theirs.length && theirs[i] === sha256Hex(block);
    plan += same ? "o" : "n";
    if (!same) sent.push(block);
  }
  if (!plan.includes("o")) return null;
  return { from, plan, sent: Buffer.concat(sent) };
}

/**
 * The shell that puts the binary together in "$t" from "$w/new" (the blocks sent, unpacked) and
 * the host's copy, by the plan: each `o` the copy's block at that offset, each `n` the next block
 * sent, each read by dd.
 */
export function assembleCommand(reuse: Reuse): string {
  return `(f=${shellQuote(reuse.from)}; p=${reuse.plan}; i=0; k=0
while [ -n "$p" ]; do
  c=\${p%"\${p#?}"}; p=\${p#?}
  if [ "$c" = o ]; then dd if="$f" bs=${BLOCK_BYTES} skip="$i" count=1 2>/dev/null; else dd if="$w/new" bs=${BLOCK_BYTES} skip="$k" count=1 2>/dev/null; k=$((k + 1)); fi
  i=$((i + 1))
done) > "$t"`;
}

/** The host's block hashes of `from`, through the shared connection; null when it did not give them. */
export async function askBlockHashes(host: RemoteHost, from: string): Promise<string[] | null> {
  const r = await capture(await sshCommandLine(host.ssh, `sh -c ${shellQuote(blockHashScript(from))}`, hostOptions(host)), HASH_BOUND_MS);
  return r.code === 0 ? parseBlockHashes(r.stdout) : null;
}
