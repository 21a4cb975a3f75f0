// The rules of a task's log (docs/logs.md) as pure functions: what its part files are called, how a
// task's output becomes timed lines, how those lines are kept on disk and read back, and the times
// `logs --since/--until` take. The I/O lives in daemon-logs.ts (writing, rotating, reading).
//
// ON DISK: a log is parts `<key>.<n>.log` in the history directory (recipe-history.ts), numbered up
// from 1; the highest is written to, the lowest is the first to go. A part is lines of text, each
// line as the task printed it with its escape sequences and controls taken out; a line that starts
// with the record separator \x1e gives the time (epoch milliseconds) of the lines after it, written
// only when the time changes. No text line can start with \x1e (controls are taken out), so the form
// needs no escaping, and a part read alone (the oldest gone) still starts with its time.
import { UserError } from "./errors.ts";

const PART = /^([1-9]\d{0,9})\.([1-9]\d{0,9})\.log$/;
const TIME_MARK = "\x1e";

// CSI (with its parameters), OSC and DCS/PM/APC strings (to BEL or ST), and two-byte escapes.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]/g;
// Controls but the tab and the line feed (\r is handled first), and the C1 range. A tab stays: it parts
// the words on the screen (go test's `ok\tpkg\t0.01s`), and a log without it runs them together.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const HAS_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
// Entering or leaving the alternate screen: a full-screen program's redraws are no lines.
const ALT_SCREEN = /\x1b\[\?(?:1049|1047|47)([hl])/g;

/** How many parts a full log is cut into: the oldest part is what a rotation drops. */
export const LOG_PARTS = 8;

export function logPartName(key: string, part: number): string {
  return `${key}.${part}.log`;
}

/** The task key and part number of a part file's name, or null when it is none. */
export function parseLogPartName(name: string): { key: string; part: number } | null {
  const match = PART.exec(name);
  return match ? { key: match[1]!, part: Number(match[2]) } : null;
}

/** How large a part grows before the next is begun. */
export function logPartBytes(logMax: number): number {
  return Math.max(4096, Math.floor(logMax / LOG_PARTS));
}

/** The parts to remove (oldest first) so that the rest fit in `logMax`; the part written to always stays. */
export function partsToDrop(parts: { part: number; bytes: number }[], logMax: number): number[] {
  const sorted = [...parts].sort((a, b) => a.part - b.part);
  let total = sorted.reduce((sum, p) => sum + p.bytes, 0);
  const dropped: number[] = [];
  for (const p of sorted.slice(0, -1)) {
    if (total <= logMax) break;
    total -= p.bytes;
    dropped.push(p.part);
  }
  return dropped;
}

/**
 * A task's output as it arrives, cut into complete lines: escape sequences and controls out, a line
 * redrawn with \r kept as it last stood (a progress bar's last state), nothing drawn on the
 * alternate screen. What follows the last line feed waits for the next chunk.
 */
export class LineCutter {
  private partial = "";
  /** Whether the last chunk ended in a byte of a multi-byte character, which the next may complete. */
  private splitBefore = false;
  private altScreen = false;
  private readonly decoder = new TextDecoder();
  /** A line never ended (a progress bar that only returns) is given once it is this long. */
  static readonly MAX_PARTIAL = 64 * 1024;

  /** The complete lines this chunk ends, joined by and ending with "\n" ("" when none). */
  push(chunk: Uint8Array): string {
    // A streaming decode costs twice a whole one; it is needed only while a character may be split
    // across chunks, that is when this chunk or the one before ended in a byte of a multi-byte one.
    const last = chunk[chunk.length - 1];
    const split = last === undefined || last >= 0x80;
    let text = this.decoder.decode(chunk, this.splitBefore || split ? { stream: true } : undefined);
    this.splitBefore = split;
    // One look for an escape serves both the alternate screen's and cleanLines' (most output has none).
    const escapes = text.includes("\x1b");
    if (escapes && text.includes("\x1b[?")) text = this.outsideAltScreen(text);
    const end = text.lastIndexOf("\n");
    if (end === -1) {
      this.partial += text;
      if (this.partial.length <= LineCutter.MAX_PARTIAL) return "";
      return this.take(`${this.partial}\n`, "");
    }
    // The partial line is looked at alone (it is short), not the whole joined with it.
    return this.take(this.partial + text.slice(0, end + 1), text.slice(end + 1), escapes || this.partial.includes("\x1b"));
  }

  /** What waits for its line feed, as a last line (the run ended); "" when nothing does. */
  end(): string {
    const rest = this.partial;
    this.partial = "";
    // A run that died on the alternate screen leaves the next run's lines to be kept.
    this.altScreen = false;
    const line = cleanLines(`${rest}\n`);
    return line === "\n" ? "" : line;
  }

  /** `lines` cleaned, `rest` kept for the next chunk; `escapes`: whether `lines` may hold an escape sequence. */
  private take(lines: string, rest: string, escapes?: boolean): string {
    this.partial = rest;
    return cleanLines(lines, escapes);
  }

  private outsideAltScreen(text: string): string {
    let kept = "";
    let from = 0;
    for (const match of text.matchAll(ALT_SCREEN)) {
      if (!this.altScreen) kept += text.slice(from, match.index);
      this.altScreen = match[1] === "h";
      from = match.index + match[0].length;
    }
    return this.altScreen ? kept : kept + text.slice(from);
  }
}

/**
 * Whole lines (each ending in "\n") as the log keeps them: escapes and controls out, each redrawn
 * line as it last stood. `escapes`: whether `text` may hold an escape sequence (a caller that looked
 * already says so). Plain lines ending in \r\n, most of what a flood prints, take one replace and
 * one look for a control.
 */
export function cleanLines(text: string, escapes = text.includes("\x1b")): string {
  let out = escapes ? text.replace(ESCAPES, "") : text;
  // A terminal ends its lines with \r\n: those go by the fast literal replace first; only a \r left
  // after them redraws a line (a progress bar), which the slower rule keeps as it last stood.
  if (out.includes("\r")) out = out.replaceAll("\r\n", "\n");
  if (!HAS_CONTROL.test(out)) return out;
  if (out.includes("\r")) out = out.replace(/\r+\n/g, "\n").replace(/^[^\n]*\r/gm, "");
  return out.replace(CONTROLS, "");
}

/** The line that gives the time of the lines after it. */
export function timeMark(at: number): string {
  return `${TIME_MARK}${at}\n`;
}

/** One line of a log, read back: when it was printed, and its text. */
export interface LogLine {
  at: number;
  text: string;
}

/** A part's text as timed lines; a line before any time mark (a damaged part) takes `since`'s time. */
export function parseLogPart(text: string, previousAt = 0): LogLine[] {
  const lines: LogLine[] = [];
  let at = previousAt;
  const rows = text.split("\n");
  // Every line ends with "\n": what follows the last one is "" or a line cut short by a full disk.
  rows.pop();
  for (const row of rows) {
    if (row.startsWith(TIME_MARK)) {
      const t = Number(row.slice(1));
      if (Number.isFinite(t)) at = t;
    } else lines.push({ at, text: row });
  }
  return lines;
}

/** What `logs` asks of a log: lines from `since`, before `until` (epoch ms), the last `last` of those. */
export interface LogFilter {
  since?: number | undefined;
  until?: number | undefined;
  last?: number | undefined;
}

export function filterLog(lines: LogLine[], filter: LogFilter): LogLine[] {
  const { since, until, last } = filter;
  let chosen =
    since === undefined && until === undefined ? lines : lines.filter((l) => (since === undefined || l.at >= since) && (until === undefined || l.at < until));
  if (last !== undefined && chosen.length > last) chosen = chosen.slice(chosen.length - last);
  return chosen;
}

/** `2026-12-04T21:03:05.120Z first line`: a line after its time, as `docker logs -t` shows it. */
export function withTimestamp(line: LogLine): string {
  return `${new Date(line.at).toISOString()} ${line.text}`;
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const CLOCK = /^(\d{1,2}):(\d\d)(?::(\d\d))?$/;
const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[Zz]|[+-]\d\d:\d\d)?$/;

/**
 * The moment a `--since`/`--until` value names: a duration back from now (`10m`, `1.5h`, `30s`), a
 * clock time today in local time (`12:00`, `09:30:15`; yesterday's when today's is still ahead),
 * or an RFC 3339 time (`2026-12-04T12:00:00Z`; local time without a zone). Throws a UserError that
 * names the flag.
 */
export function parseLogTime(flag: string, value: string, now = new Date()): number {
  const v = value.trim();
  const duration = DURATION.exec(v);
  if (duration) return now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!]!;
  const clock = CLOCK.exec(v);
  if (clock && Number(clock[1]) < 24 && Number(clock[2]) < 60 && Number(clock[3] ?? 0) < 60) {
    const at = new Date(now);
    at.setHours(Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0), 0);
    if (at.getTime() > now.getTime()) at.setDate(at.getDate() - 1);
    return at.getTime();
  }
  if (RFC3339.test(v)) {
    const at = Date.parse(v.replace(" ", "T"));
    if (!Number.isNaN(at)) return at;
  }
  throw new UserError(`${flag}: '${value}' is not a duration (10m, 2h), a clock time (12:00) or an RFC 3339 time (2026-12-04T12:00:00Z)`);
}

/** `1.5 MiB`, `12 KiB`, `300 B`: a log's size as status shows it. */
export function sizeShown(bytes: number): string {
  const shown = (n: number, unit: string) => `${n.toFixed(1).replace(/\.0$/, "")} ${unit}`;
  if (bytes >= 1024 * 1024) return shown(bytes / (1024 * 1024), "MiB");
  if (bytes >= 1024) return shown(bytes / 1024, "KiB");
  return `${bytes} B`;
}

/** `100M`, `64K`, `1.5G`: a size as `log_max` is written (whole or to one decimal). */
export function sizeWritten(bytes: number): string {
  const units: [number, string][] = [
    [1024 ** 3, "G"],
    [1024 ** 2, "M"],
    [1024, "K"],
  ];
  for (const [unit, suffix] of units) if (bytes >= unit) return `${Number((bytes / unit).toFixed(1))}${suffix}`;
  return String(bytes);
}
