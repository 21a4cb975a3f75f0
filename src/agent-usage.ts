// A conversation's token usage (a task's, or a saved one's: daemon-usage.ts), read from its agent's
// own store (docs/usage.md): which file or database holds the conversation, read incrementally
// (only what was appended since the last read, from the offset kept per file), at most READ_MAX
// bytes a refresh, each file opened through files.ts openRegularFile (a FIFO or a device in the
// store is never opened blocking). A line that is not JSON is skipped and counted, never fatal; a
// store that records no tokens gives null, shown `—`. The records' meaning is agent-usage-records.ts's.
import { Buffer } from "node:buffer";
import { closeSync, fstatSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { openRegularFile } from "./files.ts";
import { entriesOf, firstRecord, member, parsedLine } from "./agent-files.ts";
import { homeDir } from "./paths.ts";
import { claudeSlug, claudeTranscript } from "./agent-claude.ts";
import { codexHome, rolloutOf } from "./agent-codex.ts";
import { geminiProjectId } from "./agent-gemini.ts";
import { opencodeDatabase, sessionRows } from "./agent-opencode.ts";
import type { Agent, StoreLocation } from "./agent.ts";
import { type TokenUsage, NO_TOKENS } from "./task-usage.ts";
import {
  type Ledger,
  type RecordReader,
  type UsageEntry,
  claudeUsageReader,
  codexUsageReader,
  geminiUsageReader,
  OPENCODE_USAGE_SQL,
  opencodeUsageRows,
  qwenUsageReader,
} from "./agent-usage-records.ts";

/** Past this many messages the oldest are folded into one sum: a later line about one of them cannot be told apart any more. */
const LEDGER_MAX = 20_000;

/** The messages of one conversation, each counted once as its last record says. */
export class UsageLedger implements Ledger {
  private readonly entries = new Map<string, UsageEntry>();
  private folded = { ...NO_TOKENS };
  private last: UsageEntry | null = null;

  put(key: string, entry: UsageEntry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.last = entry;
    if (this.entries.size > LEDGER_MAX) this.foldOldest();
  }

  clear(): void {
    this.entries.clear();
    this.folded = { ...NO_TOKENS };
    this.last = null;
  }

  /** The conversation's tokens; null when no record said any. */
  usage(): TokenUsage | null {
    if (this.last === null) return null;
    const sum = { ...this.folded };
    for (const entry of this.entries.values()) addTokens(sum, entry);
    return { model: this.last.model, ...sum, context: this.last.context };
  }

  private foldOldest(): void {
    const [key, entry] = this.entries.entries().next().value as [string, UsageEntry];
    addTokens(this.folded, entry);
    this.entries.delete(key);
  }
}

function addTokens(sum: typeof NO_TOKENS, entry: typeof NO_TOKENS): void {
  sum.input += entry.input;
  sum.output += entry.output;
  sum.cacheRead += entry.cacheRead;
  sum.cacheWrite += entry.cacheWrite;
}

/** At most this much of a store is read at one refresh; a longer backlog is read over the next ones. */
export const READ_MAX = 4 * 1024 * 1024;

/**
 * One JSON-lines file read as it grows: the complete lines appended since the last read, each given
 * to the agent's reader. A line longer than READ_MAX is skipped as malformed. A file that shrank or
 * was replaced (another inode) is read again from its start.
 */
export class JsonlUsage {
  readonly ledger = new UsageLedger();
  /** Lines that were not JSON (or too long to read), skipped. */
  malformed = 0;
  /** When the file was last written, as of the last read (epoch ms); null before one. */
  writtenAt: number | null = null;
  private offset = 0;
  private inode: number | null = null;
  /** The rest of a line too long to read is being skipped. */
  private skippingLine = false;

  constructor(
    readonly path: string,
    private readonly makeReader: () => RecordReader,
    private reader = makeReader(),
  ) {}

  /**
   * Reads what was appended since the last call (up to READ_MAX bytes); nothing when the file cannot
   * be read. True when more than READ_MAX was waiting: the next call reads on.
   */
  refresh(): boolean {
    let fd: number;
    try {
      fd = openRegularFile(this.path);
    } catch {
      return false;
    }
    try {
      const stat = fstatSync(fd);
      if (stat.ino !== this.inode || stat.size < this.offset) this.restart(stat.ino);
      this.writtenAt = stat.mtimeMs;
      if (stat.size <= this.offset) return false;
      const buffer = Buffer.alloc(Math.min(stat.size - this.offset, READ_MAX));
      const n = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.take(buffer.subarray(0, n));
      // A read short of the file's end; what is left after one up to its end is a line still being written.
      return buffer.length === READ_MAX && stat.size > this.offset;
    } catch {
      // unreadable this time: the same bytes are read at the next refresh
      return false;
    } finally {
      closeSync(fd);
    }
  }

  private restart(inode: number): void {
    this.inode = inode;
    this.offset = 0;
    this.skippingLine = false;
    this.ledger.clear();
    this.reader = this.makeReader();
  }

  private take(bytes: Buffer): void {
    const end = bytes.lastIndexOf(10);
    if (end === -1) {
      // A whole read with no line end: a line longer than READ_MAX, skipped to its end.
      if (bytes.length === READ_MAX) {
        if (!this.skippingLine) this.malformed += 1;
        this.skippingLine = true;
        this.offset += bytes.length;
      }
      return;
    }
    const lines = bytes.subarray(0, end).toString("utf8").split("\n");
    if (this.skippingLine) lines.shift();
    this.skippingLine = false;
    for (const line of lines) this.line(line);
    this.offset += end + 1;
  }

  private line(line: string): void {
    if (line.trim() === "") return;
    const record = parsedLine(line);
    if (record === undefined) this.malformed += 1;
    else this.reader(record, this.ledger);
  }
}

/** A conversation's usage as its store says it now. */
export interface UsageStore {
  /** Reads what the store gained since the last refresh, a bounded part of it: true when more waits for the next. */
  refresh(): boolean;
  usage(): TokenUsage | null;
  /** When the store last recorded something of the conversation (epoch ms), as of the last refresh; null when unknown. */
  writtenAt(): number | null;
  /** Lines of the store skipped as malformed so far. */
  readonly malformed: number;
}

/** Several files of one conversation (Gemini writes a new one at each resume): their sums together. */
class JsonlFiles implements UsageStore {
  private readonly files = new Map<string, JsonlUsage>();

  constructor(
    private readonly list: () => string[],
    private readonly reader: () => RecordReader,
  ) {}

  get malformed(): number {
    return [...this.files.values()].reduce((sum, f) => sum + f.malformed, 0);
  }

  refresh(): boolean {
    for (const path of this.list()) if (!this.files.has(path)) this.files.set(path, new JsonlUsage(path, this.reader));
    let more = false;
    for (const file of this.files.values()) more = file.refresh() || more;
    return more;
  }

  writtenAt(): number | null {
    return newest([...this.files.values()].map((f) => f.writtenAt));
  }

  usage(): TokenUsage | null {
    const usages = [...this.files.values()].map((f) => f.ledger.usage()).filter((u): u is TokenUsage => u !== null);
    return combined(usages);
  }
}

function newest(times: readonly (number | null)[]): number | null {
  const known = times.filter((t): t is number => t !== null);
  return known.length === 0 ? null : Math.max(...known);
}

/** The usages of several files of one conversation summed; model and context from the one read last. */
function combined(usages: readonly TokenUsage[]): TokenUsage | null {
  if (usages.length === 0) return null;
  const sum = { ...NO_TOKENS };
  for (const u of usages) addTokens(sum, u);
  const latest = usages.at(-1)!;
  return { model: latest.model, ...sum, context: latest.context };
}

/** opencode's database: its session's messages asked again only when the database (or its WAL) changed. */
class OpencodeSession implements UsageStore {
  readonly malformed = 0;
  private readonly ledger = new UsageLedger();
  private seen = "";
  private lastMessageAt: number | null = null;

  constructor(
    private readonly database: string,
    private readonly id: string,
  ) {}

  refresh(): boolean {
    const stamp = [this.database, `${this.database}-wal`].map(changeStamp).join("/");
    if (stamp === this.seen) return false;
    this.seen = stamp;
    this.ledger.clear();
    this.lastMessageAt = opencodeUsageRows(sessionRows(this.database, OPENCODE_USAGE_SQL, this.id), this.ledger);
    return false;
  }

  usage(): TokenUsage | null {
    return this.ledger.usage();
  }

  // The database holds every session, so its own time says nothing of this one: its messages' times do.
  writtenAt(): number | null {
    return this.lastMessageAt;
  }
}

function changeStamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return "-";
  }
}

/** Codex's rollout, found once it exists (a thread has none before its first turn). */
class CodexRollout implements UsageStore {
  private file: JsonlUsage | null = null;

  constructor(
    private readonly home: string,
    private readonly id: string,
  ) {}

  get malformed(): number {
    return this.file?.malformed ?? 0;
  }

  refresh(): boolean {
    if (this.file === null) {
      const path = rolloutOf(this.home, this.id);
      if (path === null) return false;
      this.file = new JsonlUsage(path, codexUsageReader);
    }
    return this.file.refresh();
  }

  usage(): TokenUsage | null {
    return this.file?.ledger.usage() ?? null;
  }

  writtenAt(): number | null {
    return this.file?.writtenAt ?? null;
  }
}

/** Every Gemini session file of the conversation: the chats directory's files named after it whose first record names it. */
function geminiSessionFiles(where: StoreLocation, id: string): string[] {
  const project = geminiProjectId(where.env, where.cwd);
  if (project === null) return [];
  const dir = join(homeDir(where.env), ".gemini", "tmp", project, "chats");
  return entriesOf(dir)
    .filter((e) => e.isFile() && e.name.startsWith("session-") && e.name.endsWith(`-${id.slice(0, 8)}.jsonl`))
    .map((e) => join(dir, e.name))
    .filter((path) => member(firstRecord(path), "sessionId") === id);
}

const READERS = { claude: claudeUsageReader, codex: codexUsageReader, gemini: geminiUsageReader, qwen: qwenUsageReader };

/**
 * Where an agent keeps a conversation's tokens; null for an agent whose store records none (Grok,
 * Command Code, a declared agent without `usage`). A declared agent's file is read in the shape it names.
 */
export function usageStoreFor(agent: Pick<Agent, "name" | "usageFile">, id: string, where: StoreLocation): UsageStore | null {
  const { cwd, env } = where;
  const declared = agent.usageFile?.(id, where);
  if (declared) return new JsonlFiles(() => [declared.path], READERS[declared.shape]);
  switch (agent.name) {
    case "claude":
      return new JsonlFiles(() => [claudeTranscript(env, cwd, id)], claudeUsageReader);
    case "codex":
      return new CodexRollout(codexHome(env), id);
    case "gemini":
      return new JsonlFiles(() => geminiSessionFiles(where, id), geminiUsageReader);
    case "qwen":
      return new JsonlFiles(() => [join(homeDir(env), ".qwen", "projects", claudeSlug(cwd), "chats", `${id}.jsonl`)], qwenUsageReader);
    case "opencode":
      return new OpencodeSession(opencodeDatabase(env), id);
    default:
      return null;
  }
}
