import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LogStore } from "../../src/daemon-logs.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store(logMax = 100 * 1024 * 1024): { store: LogStore; dir: string } {
  const root = mkdtempSync(join(tmpdir(), "fleetcom-unit-logs-"));
  dirs.push(root);
  const dir = join(root, "history");
  return { store: new LogStore({ dir, logMax, intervalMs: 60_000, log: () => {} }), dir };
}

/** A small seeded generator, so a failure names the same chunking again. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** Lines as a terminal prints them: CRLF ends, some coloured, some with characters of two to four UTF-8 bytes. */
function terminalLines(count: number): { printed: string; kept: string[] } {
  const kept: string[] = [];
  let printed = "";
  for (let i = 0; i < count; i++) {
    const text = i % 7 === 0 ? `line ${i} é — 漢字 🎉` : `line ${i} ${"x".repeat(i % 90)}`;
    kept.push(text);
    printed += i % 5 === 0 ? `\x1b[32m${text}\x1b[0m\r\n` : `${text}\r\n`;
  }
  return { printed, kept };
}

/** `bytes` cut at random places (a character's bytes are split too), as a PTY's reads fall. */
function chunked(bytes: Uint8Array, random: () => number, largest: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(random() * largest);
    chunks.push(bytes.slice(at, at + size));
    at += size;
  }
  return chunks;
}

function readAll(logs: LogStore, key: string): string[] {
  const lines: string[] = [];
  let from: number | undefined;
  do {
    const page = logs.read(key, {}, false, from);
    if (page.text !== "") lines.push(...page.text.slice(0, -1).split("\n"));
    from = page.next ?? undefined;
  } while (from !== undefined);
  return lines;
}

test("every line printed is read back once, in order, however the output was chunked and batched", () => {
  const { printed, kept } = terminalLines(20_000);
  const bytes = new TextEncoder().encode(printed);
  for (const [seed, largest] of [
    [1, 7],
    [2, 4096],
    [3, 70_000],
  ] as const) {
    const { store: logs } = store();
    const log = logs.open("1");
    let at = 1_000;
    const chunks = chunked(bytes, seeded(seed), largest);
    chunks.forEach((chunk, i) => {
      log.push(chunk, at++);
      // Batches as a flood writes them (the part held open) and as the timer does (closed after).
      if (i % 97 === 0) logs.flush(i % 3 !== 0);
    });
    logs.flush();
    expect(readAll(logs, "1")).toEqual(kept);
  }
});

test("a batch far larger than the writer's buffer is written whole, each line after its time", () => {
  const { store: logs } = store();
  const log = logs.open("1");
  const lines = Array.from({ length: 60_000 }, (_, i) => `${i} ${"y".repeat(60)}`);
  // One chunk of several megabytes: one piece of text, larger than what the writer encodes at once.
  log.push(new TextEncoder().encode(lines.map((l) => `${l}\r\n`).join("")), 5_000);
  log.push(new TextEncoder().encode("last\r\n"), 6_000);
  logs.flush();
  const timed = logs.read("1", {}, true).text.slice(0, -1).split("\n");
  expect(timed.length).toBe(lines.length + 1);
  expect(timed[0]).toBe(`${new Date(5_000).toISOString()} ${lines[0]}`);
  expect(timed.at(-2)).toBe(`${new Date(5_000).toISOString()} ${lines.at(-1)}`);
  expect(timed.at(-1)).toBe(`${new Date(6_000).toISOString()} last`);
});

test("at a small log_max the newest lines stay, contiguous and in order, and the parts stay within the cap", () => {
  const logMax = 64 * 1024;
  const { store: logs, dir } = store(logMax);
  const log = logs.open("1");
  const count = 50_000;
  const bytes = new TextEncoder().encode(Array.from({ length: count }, (_, i) => `${i}\r\n`).join(""));
  // A flood's batches, the part held open from one to the next: rotation still closes it and begins the next.
  for (const chunk of chunked(bytes, seeded(4), 5000)) {
    log.push(chunk, Date.now());
    logs.flush(true);
  }
  logs.flush();
  const lines = readAll(logs, "1");
  const first = Number(lines[0]);
  expect(first).toBeGreaterThan(0);
  expect(lines).toEqual(Array.from({ length: count - first }, (_, i) => String(first + i)));
  const onDisk = readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
  expect(onDisk).toBeLessThanOrEqual(logMax + 2 * 64 * 1024);
});

test("a follower hears each line cut after it began, once, in order", () => {
  const { store: logs } = store();
  const log = logs.open("1");
  log.push(new TextEncoder().encode("before\r\n"), 1_000);
  const heard: string[] = [];
  const following = log.follow({}, false, (line) => heard.push(line));
  expect(following.kept).toEqual(["before"]);
  const { printed, kept } = terminalLines(3_000);
  for (const chunk of chunked(new TextEncoder().encode(printed), seeded(5), 3000)) log.push(chunk, 2_000);
  logs.flush();
  following.stop();
  expect(heard).toEqual(kept);
});

/** How many of this process's descriptors are open on a part of task `key`'s log in `dir`. */
function partsOpen(dir: string, key: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(join(dir, `${key}.`));
    } catch {
      return false;
    }
  }).length;
}

test.skipIf(process.platform !== "linux")("a flood's part is held open between its batches and closed at the timer's flush", () => {
  const { store: logs, dir } = store();
  const log = logs.open("1");
  log.push(new TextEncoder().encode("one\r\n"), 1_000);
  logs.flush(true);
  log.push(new TextEncoder().encode("two\r\n"), 1_001);
  logs.flush(true);
  expect(partsOpen(dir, "1")).toBe(1);
  logs.flush();
  expect(partsOpen(dir, "1")).toBe(0);
  expect(readAll(logs, "1")).toEqual(["one", "two"]);
  log.push(new TextEncoder().encode("three\r\n"), 1_002);
  logs.flush(true);
  logs.remove("1");
  expect(partsOpen(dir, "1")).toBe(0);
});

test("a part replaced by a symlink while a flood holds it open is refused at the next open, never written through", () => {
  const { store: logs, dir } = store();
  const log = logs.open("1");
  log.push(new TextEncoder().encode("one\r\n"), 1_000);
  logs.flush(true);
  const part = join(dir, readdirSync(dir).find((name) => name.startsWith("1."))!);
  const target = join(dir, "..", "target.txt");
  writeFileSync(target, "untouched\n");
  rmSync(part);
  symlinkSync(target, part);
  // Still the flood's batch: it goes to the part it holds (the file it opened), not through the link.
  log.push(new TextEncoder().encode("two\r\n"), 1_001);
  logs.flush(true);
  // The timer's flush closes it; the next batch opens the part again, and finds the link.
  logs.flush();
  log.push(new TextEncoder().encode("three\r\n"), 1_002);
  logs.flush(true);
  expect(logs.status().error).toBe(`task 1: ${part}: a symlink, not a log file`);
  expect(readFileSync(target, "utf8")).toBe("untouched\n");
});
