// The small, forgiving file reads the agent modules share: a store or capture channel that is
// missing, unreadable or half-written is simply no evidence, never an error. Anything in a store
// can be swapped for a FIFO or a device at any moment, so every file is opened through
// files.ts openRegularFile, never by a blocking open.
import { Buffer } from "node:buffer";
import { closeSync, fstatSync, readdirSync, readSync, statSync, type Dirent } from "node:fs";
import { openRegularFile, readRegularFile } from "./files.ts";

/** The directory's entries, or none when it cannot be read. */
export function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** A capture file or a live registry entry is a few kilobytes; a long session's stays well under this. */
const TEXT_MAX = 16 * 1024 * 1024;

/** The file's text, or null when it cannot be read (or is not a regular file, or is over TEXT_MAX). */
export function textOf(path: string): string | null {
  try {
    return readRegularFile(path, { maxBytes: TEXT_MAX }).toString("utf8");
  } catch {
    return null;
  }
}

/** When the entry was created (birth time where the file system keeps it, else last change), or null. */
export function createdMs(path: string): number | null {
  try {
    const stat = statSync(path);
    return stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.mtimeMs;
  } catch {
    return null;
  }
}

/** The modification time, or null. */
export function modifiedMs(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

const FIRST_LINE_MAX = 4 * 1024 * 1024;

/** The first line of a JSON-lines file parsed, or null (unreadable, too long, not JSON). */
export function firstRecord(path: string): unknown {
  let fd: number;
  try {
    fd = openRegularFile(path);
  } catch {
    return null;
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.alloc(64 * 1024);
    while (total < FIRST_LINE_MAX) {
      const n = readSync(fd, buffer, 0, buffer.length, total);
      if (n === 0) break;
      const chunk = buffer.subarray(0, n);
      const newline = chunk.indexOf(10);
      chunks.push(Buffer.from(newline === -1 ? chunk : chunk.subarray(0, newline)));
      total += n;
      if (newline !== -1) break;
    }
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The complete lines appended to a file since `offset`, and the offset after them; a line still
 * being written is left for the next call. Nothing when the file cannot be read.
 */
export function linesSince(path: string, offset: number): { lines: string[]; offset: number } {
  let fd: number;
  try {
    fd = openRegularFile(path);
  } catch {
    return { lines: [], offset };
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return { lines: [], offset };
    const buffer = Buffer.alloc(size - offset);
    const n = readSync(fd, buffer, 0, buffer.length, offset);
    const end = buffer.subarray(0, n).lastIndexOf(10);
    if (end === -1) return { lines: [], offset };
    const lines = buffer
      .subarray(0, end)
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== "");
    return { lines, offset: offset + end + 1 };
  } catch {
    return { lines: [], offset };
  } finally {
    closeSync(fd);
  }
}

/** A store's last replies are at its end: this much of it is read for them. */
const TAIL_MAX = 1024 * 1024;

/**
 * The JSON records of a JSON-lines file's last MiB, in order (a line cut by the start of that window,
 * or not JSON, is left out); none when it cannot be read.
 */
export function lastRecords(path: string): unknown[] {
  let fd: number;
  try {
    fd = openRegularFile(path);
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_MAX);
    const buffer = Buffer.alloc(size - start);
    const n = readSync(fd, buffer, 0, buffer.length, start);
    return buffer
      .subarray(0, n)
      .toString("utf8")
      .split("\n")
      .map(parsedLine)
      .filter((record) => record !== undefined);
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

/** A message's text: a string, or the text parts of a content array (`{type: "text" | "output_text", text}`) joined. */
export function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const texts = content.map((part) => member(part, "text")).filter((t): t is string => typeof t === "string");
  return texts.length === 0 ? null : texts.join("\n");
}

/** One line of a JSON-lines file or a hook's payload, parsed; undefined when it is not JSON. */
export function parsedLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** A JSON object's member, or undefined for anything that is not an object. */
export function member(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}
