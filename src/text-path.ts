// A path's bytes as a string, losslessly. Unix paths are bytes, while JavaScript strings, JSON and
// the socket protocol carry text: a directory named `bad\xffname` turns into `bad�name`, which names
// no directory, so no task could start there. Here each byte that is not part of valid UTF-8 becomes
// the lone surrogate U+DC80 + byte (Python's "surrogateescape"), which no valid text holds, so the
// string says exactly which bytes the path has and travels through JSON unchanged. Only file system
// calls turn it back into bytes (pathBytes). Recipe files are written as text: there such a byte is
// U+FFFD, lossily (recipe.ts), and `save` says so.
import { Buffer } from "node:buffer";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

const ESCAPED_BYTE = /[\udc80-\udcff]/;

/** The string form of a path's bytes: UTF-8 where valid, U+DC80 + byte for every other byte. */
export function pathFromBytes(bytes: Uint8Array): string {
  let out = "";
  let plainFrom = 0;
  let i = 0;
  const flush = (to: number) => {
    if (to > plainFrom) out += Buffer.from(bytes.buffer, bytes.byteOffset + plainFrom, to - plainFrom).toString("utf8");
  };
  while (i < bytes.length) {
    const length = validSequenceAt(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    flush(i);
    out += String.fromCharCode(0xdc00 + bytes[i]!);
    i += 1;
    plainFrom = i;
  }
  flush(i);
  return out;
}

/** The bytes a string from pathFromBytes stands for (any other string: its UTF-8). */
export function pathBytes(path: string): Buffer {
  if (!ESCAPED_BYTE.test(path)) return Buffer.from(path, "utf8");
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < path.length; i++) {
    const unit = path.charCodeAt(i);
    const lone = unit >= 0xdc80 && unit <= 0xdcff && !(i > 0 && isHighSurrogate(path.charCodeAt(i - 1)));
    if (!lone) continue;
    parts.push(Buffer.from(path.slice(from, i), "utf8"), Buffer.from([unit - 0xdc00]));
    from = i + 1;
  }
  parts.push(Buffer.from(path.slice(from), "utf8"));
  return Buffer.concat(parts);
}

/** True when the path holds bytes that are not UTF-8, so only pathBytes() can name it. */
export function hasRawBytes(path: string): boolean {
  return ESCAPED_BYTE.test(path) && pathBytes(path).toString("utf8") !== path;
}

/**
 * path.resolve() for strings in the lossless form: the runtime's own resolve turns an escaped byte
 * into U+FFFD, so such paths are resolved as Latin-1 text, one character per byte, which it keeps.
 */
export function resolvePath(...paths: string[]): string {
  if (!paths.some(hasRawBytes)) return resolve(...paths);
  const bytewise = paths.map((p) => pathBytes(p).toString("latin1"));
  return pathFromBytes(Buffer.from(resolve(...bytewise), "latin1"));
}

/**
 * This process's working directory in the lossless form. process.cwd() decodes the path as UTF-8
 * and puts U+FFFD for what it cannot; only then is the real path read as bytes (realpath, so a
 * symlinked directory is given by its target in that one case).
 */
export function currentDirectory(): string {
  const cwd = process.cwd();
  if (!cwd.includes("\ufffd")) return cwd;
  try {
    return pathFromBytes(realpathSync.native(".", { encoding: "buffer" }));
  } catch {
    return cwd;
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** The length of the valid UTF-8 sequence starting at `i` (1–4), or 0 when the byte there starts none. */
function validSequenceAt(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < bytes.length && bytes[i + k]! >= lo && bytes[i + k]! <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0; // no UTF-16 surrogates
  if (b0 >= 0xe1 && b0 <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
