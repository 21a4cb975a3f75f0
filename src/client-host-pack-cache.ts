// The packed binary kept in the user's cache directory, one per version, binary and packing, so a
// second host gets at once what the first one cost to pack. Nothing is sent from it unchecked: its
// size and SHA-256 are recorded beside it when it is written, and a pack that is not what its record
// says (cut short by a crash, damaged on the disk, the record missing) is packed again and replaced.
// The pack is written to a temporary name and renamed into place only once whole, and the record
// after it; a cache that cannot be written costs the next host a packing, never this upload.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import { PIECE_BYTES, type Packing, type Unpacker } from "./client-host-pack.ts";
import { readRegularFile } from "./files.ts";
import { sha256Hex } from "./text-sha256.ts";
import { cacheDir } from "./paths.ts";
import { isProcessAlive } from "./platform.ts";
import { schema } from "./validator.ts";
import { VERSION } from "./version.ts";

const packRecord = schema("packRecord", (type) =>
  type({ binary: /^[0-9a-f]{64}$/, packing: "'xz' | 'zstd' | 'gzip'", bytes: "number.integer >= 0", sha256: /^[0-9a-f]{64}$/ }),
);
type PackRecord = typeof packRecord.infer;
/** A record is a line of JSON; anything longer is not one of ours. */
const RECORD_MAX_BYTES = 4096;

/** Where this version's packs are kept. */
export function packDir(version: string = VERSION): string {
  return join(cacheDir(), "packed", version);
}

/** The pack of the binary whose SHA-256 is `binary`, and its record. */
function packPaths(binary: string, packing: Packing, version: string): { pack: string; record: string } {
  const pack = join(packDir(version), `fleetcom-${binary.slice(0, 16)}.${packing}`);
  return { pack, record: `${pack}.json` };
}

/**
 * The packed stream of the binary whose SHA-256 is `binary`, in pieces: from the cache when a checked pack is
 * there, else from `pack`, each piece kept as it passes and the whole recorded once the last is out.
 */
export async function* cachedPieces(
  binary: string,
  packing: Packing,
  pack: () => AsyncIterable<Uint8Array>,
  version: string = VERSION,
): AsyncGenerator<Uint8Array> {
  if (packing === "none") {
    yield* pack();
    return;
  }
  const paths = packPaths(binary, packing, version);
  const kept = checkedPack(paths, binary, packing);
  if (kept) {
    for (let at = 0; at < kept.length; at += PIECE_BYTES) yield kept.subarray(at, at + PIECE_BYTES);
    return;
  }
  const writer = PackWriter.open(paths.pack);
  try {
    for await (const piece of pack()) {
      writer?.add(piece);
      yield piece;
    }
    writer?.commit(paths, binary, packing, version);
  } finally {
    writer?.abandon();
  }
}

/** The kept pack when its record names this binary and packing and its size and SHA-256 match; else null. */
function checkedPack(paths: { pack: string; record: string }, binary: string, packing: Packing): Buffer | null {
  try {
    // Through readRegularFile, as every file fleetcom reads: a FIFO or symlink put there is refused, never waited on.
    const record: unknown = JSON.parse(readRegularFile(paths.record, { noFollow: true, maxBytes: RECORD_MAX_BYTES }).toString("utf8"));
    if (!packRecord.allows(record) || record.binary !== binary || record.packing !== packing) return null;
    const kept = readRegularFile(paths.pack, { noFollow: true, maxBytes: record.bytes });
    if (kept.length !== record.bytes) return null;
    return sha256Hex(kept) === record.sha256 ? kept : null;
  } catch {
    return null;
  }
}

/** A pack being written to a temporary name beside its place; null when the cache cannot be written. */
class PackWriter {
  private readonly hasher = new Bun.CryptoHasher("sha256");
  private bytes = 0;
  private fd: number | null;

  private constructor(
    private readonly temp: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  static open(pack: string): PackWriter | null {
    const temp = `${pack}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(pack), { recursive: true, mode: 0o700 });
      removeDeadWritersTemps(dirname(pack));
      return new PackWriter(temp, openSync(temp, "w", 0o600));
    } catch {
      return null;
    }
  }

  add(piece: Uint8Array): void {
    if (this.fd === null) return;
    try {
      for (let done = 0; done < piece.length; ) done += writeSync(this.fd, piece, done, piece.length - done);
      this.hasher.update(piece);
      this.bytes += piece.length;
    } catch {
      this.abandon();
    }
  }

  /** Renames the whole pack into place, records it, and leaves only this version's packs in the cache. */
  commit(paths: { pack: string; record: string }, binary: string, packing: Unpacker, version: string): void {
    if (this.fd === null) return;
    try {
      fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = null;
      renameSync(this.temp, paths.pack);
      writeFileAtomic(paths.record, JSON.stringify({ binary, packing, bytes: this.bytes, sha256: this.hasher.digest("hex") } satisfies PackRecord));
      pruneOtherVersions(version);
    } catch {
      this.abandon();
    }
  }

  abandon(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    try {
      unlinkSync(this.temp);
    } catch {
      // renamed into place, or never made
    }
  }
}

/** `<pack>.<pid>.tmp`: what a writer killed before its last piece left. */
const TEMP_NAME = /\.(\d+)\.tmp$/;

function removeDeadWritersTemps(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(TEMP_NAME.exec(name)?.[1] ?? 0);
    if (pid > 0 && !isProcessAlive(pid)) rmSync(join(dir, name), { force: true });
  }
}

/** The packs of other versions: no host is given them again once this version is out. */
function pruneOtherVersions(version: string): void {
  const root = join(cacheDir(), "packed");
  for (const other of readdirSync(root)) if (other !== version) rmSync(join(root, other), { recursive: true, force: true });
}
