// How `hosts add` packs the binary for the wire: xz when both sides have it, else zstd, else gzip
// (which every Unix has), as the host can unpack it. xz's x86 filter turns the executable's relative
// jumps into absolute ones, which repeat, and is what takes it below zstd on a binary; it is lossless
// on any bytes, so a binary for another architecture only packs a little less well.
import { availableParallelism } from "node:os";
import { UserError } from "./errors.ts";

/** The programs a host may have to unpack an upload, the best first; the probe asks which are there. */
export const UNPACKERS = ["xz", "zstd", "gzip"] as const;
export type Unpacker = (typeof UNPACKERS)[number];
export type Packing = Unpacker | "none";

/**
 * zstd's level: the higher ones save a few percent more of the binary for many times the CPU here,
 * which the transfer does not win back on any link `hosts add` meets.
 */
const ZSTD_LEVEL = 9;
const GZIP_LEVEL = 6;
/**
 * xz's preset 2 with a dictionary as large as a piece: a megabyte below preset 2's own for the same
 * CPU (docs/benchmarks.md); the slower presets save little more for twice the CPU, paid once per
 * version (client-host-pack-cache.ts). One thread per process: each piece one plain stream,
 * whatever the xz's default.
 */
export const XZ_ARGS = ["--x86", "--lzma2=preset=2,dict=16MiB", "-T1", "-q", "-c"];

let xzHereAnswer: boolean | undefined;
/** Whether this machine has xz on its PATH, looked up once. */
export function xzHere(): boolean {
  xzHereAnswer ??= Bun.which("xz") !== null;
  return xzHereAnswer;
}

/** The best packing the host can unpack and this side can pack. */
export function packingFor(unpackers: readonly string[], canPackXz: boolean = xzHere()): Packing {
  return UNPACKERS.find((u) => unpackers.includes(u) && (u !== "xz" || canPackXz)) ?? "none";
}

/**
 * The binary is packed in pieces, each a whole xz stream, zstd frame or gzip member (the unpackers
 * read them one after another as one stream): the first is on the wire while the next are packed,
 * several at once (xz one process per core, zstd and gzip on Bun's worker threads).
 */
export const PIECE_BYTES = 16 * 1024 * 1024;

function piecesPackedAhead(packing: Unpacker): number {
  return packing === "xz" ? Math.max(2, availableParallelism()) : 2;
}

/** `bytes` as the host's unpacker reads them, piece by piece in order. */
export async function* packedPieces(bytes: Uint8Array, packing: Packing, pieceBytes = PIECE_BYTES): AsyncGenerator<Uint8Array> {
  if (packing === "none") {
    yield bytes;
    return;
  }
  // Nothing to send is still one frame: the unpackers refuse an empty stream as cut short.
  if (bytes.length === 0) {
    yield await packPiece(bytes, packing);
    return;
  }
  const pending: Promise<Uint8Array>[] = [];
  let at = 0;
  const packNext = () => {
    if (at >= bytes.length) return;
    const piece = packPiece(bytes.subarray(at, at + pieceBytes), packing);
    // Awaited in order below; a later piece's failure is not left unhandled meanwhile.
    piece.catch(() => {});
    pending.push(piece);
    at += pieceBytes;
  };
  for (let i = 0; i < piecesPackedAhead(packing); i++) packNext();
  while (pending.length > 0) {
    const piece = pending.shift()!;
    packNext();
    yield await piece;
  }
}

async function packPiece(piece: Uint8Array, packing: Unpacker): Promise<Uint8Array> {
  // A file read into memory, never a SharedArrayBuffer, which is all Bun's types guard against.
  const own = piece as Uint8Array<ArrayBuffer>;
  if (packing === "xz") return await xzPiece(own);
  if (packing === "zstd") return await Bun.zstdCompress(own, { level: ZSTD_LEVEL });
  const { gzip } = await import("node:zlib");
  return await new Promise((resolve, reject) => gzip(own, { level: GZIP_LEVEL }, (error, packed) => (error ? reject(error) : resolve(packed))));
}

async function xzPiece(piece: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const proc = Bun.spawn(["xz", ...XZ_ARGS], { stdin: piece, stdout: "pipe", stderr: "pipe" });
  const [packed, stderr, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new UserError(`packing the binary with xz failed: ${stderr.trim().split("\n").at(-1) || `exit ${code}`}`);
  return packed;
}

/** The command that reads the packed stream on stdin and writes what it unpacks to `to`. */
export function unpackCommand(packing: Packing, to: string): string {
  if (packing === "xz") return `xz -dcq > ${to}`;
  if (packing === "zstd") return `zstd -dcq > ${to}`;
  if (packing === "gzip") return `gzip -dc > ${to}`;
  return `cat > ${to}`;
}
