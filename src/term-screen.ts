// One headless terminal per task: it parses every byte the task's PTY prints, so the daemon can
// restore the screen on attach, show a preview line, print it for `peek`, and answer the task's
// terminal queries while no client is attached.
//
// INVARIANT: serializeForAttach(), written into a terminal of the same size in whatever state that
// terminal was left, reproduces what this screen shows exactly: the active buffer's rows, cursor,
// pen, modes and scroll region. It never switches the client's terminal between its normal and
// alternate screens: ui-attach.ts keeps that terminal on its alternate screen, so its scrollback is
// left alone. Cells are drawn by term-serialize.ts; state xterm has no API for is tracked
// in term-modes.ts (docs/terminal-state.md). Runs under Bun and Deno; on the output hot path only write() runs.
//
// Parsing is synchronous and lazy. Output that can change a mode or ask for an answer is parsed as it
// arrives, so a query is answered at once while nobody is attached. Plain text (term-backlog.ts) waits
// in a backlog until a read needs the screen (every read first catches up), and of a long run of it
// only what can still be on the screen or in the scrollback is ever parsed: a task that floods text
// with nobody looking costs a few native scans per chunk and no emulator memory. While a follower
// watches the lines (`logs --follow`, LineWatch) every byte is parsed as it arrives: a line is given
// the moment a line feed completes it, and none may be forgotten unseen.
//
// The emulator itself is made on the first byte it must parse or the first read that needs it: a
// task that has printed nothing (a server waiting, `sleep`) or only plain text nobody read, or that
// was typed into, holds no xterm, whose object graph is most of what a task costs the daemon. Until
// then the screen is a fresh terminal's: blank, the normal buffer, default modes, no reply sent.
import type * as Xterm from "@xterm/headless";
import type { IBufferCell } from "@xterm/headless";
import { createRequire } from "node:module";
import { type Style, serializeRows, sgr } from "./term-serialize.ts";
import { CSI } from "./text-ansi.ts";
import { Backlog, isPlain } from "./term-backlog.ts";
import { LineWatch, bufferLines, dropTrailingBlankLines } from "./term-lines.ts";
import { HiddenState, RESET_ATTACHING_TERMINAL, cursorTo, mainParams } from "./term-modes.ts";
import { rowText, rowsInUse, previewOfLines, previewOfRows, textOfRows, logicalLinesOfRows } from "./term-rows.ts";
import { useFleetcomWidths } from "./term-widths.ts";

let xterm: typeof Xterm | undefined;

/**
 * @xterm/headless, loaded with the first screen: evaluating it costs a starting daemon CPU before its
 * first reply (docs/benchmarks.md), which `ls` or `status` of an empty fleet never needs. `require` is
 * synchronous; in the binary Bun's bundler keeps the module but evaluates it only when called. Deno,
 * with no `require` in a module, takes node:module's: the CommonJS object either way (no named exports).
 */
function loadXterm(): typeof Xterm {
  xterm ??= (typeof require === "function" ? require("@xterm/headless") : createRequire(import.meta.url)("@xterm/headless")) as typeof Xterm;
  return xterm;
}

export interface ScreenOptions {
  cols: number;
  rows: number;
  /** Lines kept above the screen; 0 keeps none. */
  scrollback: number;
  /** Plain-text backlog at which forgetting its head is tried (default 256 KiB); tests make it small. */
  compactAt?: number;
}

/** What the daemon asks of a task's screen, running (Screen) or finished (FinishedScreen). */
export interface TaskScreen {
  write(data: Uint8Array | string): void;
  flushed(): Promise<void>;
  resize(cols: number, rows: number): void;
  serializeForAttach(): string;
  snapshotForAttach(): Promise<string>;
  textAtCurrentPoint(lines?: number): Promise<string>;
  previewLine(): string;
  /** A full-screen program shows its own screen (the alternate buffer): a viewer must draw it cell for cell. */
  fullScreen(): boolean;
  inputModes(): { bracketedPaste: boolean; applicationCursorKeys: boolean };
  rowsToCursor(): string[];
  text(lines?: number): string;
  logicalLines(): string[];
  /** The last `limit` lines of history as plain text (Screen.historyLines). */
  historyLines(limit: number): string[];
  /** The same with their colours, after every byte written so far. */
  styledHistoryLines(limit: number): Promise<string[]>;
  dispose(): void;
}

/**
 * A screen reduced to what is read from it once its task has exited: the attach replay of both
 * views, and the active buffer's rows as text (unwritten cells trimmed, written spaces kept) with
 * their wrap flags. All of it is UTF-8 bytes: strings built cell by cell are ropes that cost
 * megabytes until flattened, and bytes are flat, a byte per ASCII character (term-screen-finished.ts).
 */
export interface FinishedState {
  cols: number;
  rows: number;
  scrollback: number;
  /** What serializeForAttach() gave. */
  attach: Uint8Array;
  /** Scrollback, both buffers and modes, for replaying into a fresh emulator to reflow (replayWhole). */
  whole: Uint8Array;
  /** Every row followed by "\n"; row y ends at rowEnds[y] and starts after row y - 1 and its "\n". */
  text: Uint8Array;
  rowEnds: Uint32Array;
  wrapped: Uint8Array;
  baseY: number;
  preview: string;
}

/** The xterm internals the synchronous, lazy parse and the clears that keep history need; xterm is pinned, and tests pin these. */
interface Core {
  writeSync(data: string | Uint8Array): void;
  /** The active buffer. */
  buffer: CoreBuffer;
  buffers: { normal: CoreBuffer };
  /** Scrolls the active buffer's scroll region up a line; from a region at the top, the line goes into the scrollback. */
  scroll(blank: IBufferCell): void;
  /** The charset printing uses: undefined for ASCII (G0 = B), else a table of replaced characters. */
  _charsetService?: { charset: unknown };
  _inputHandler: {
    _parser: { currentState: number };
    _utf8Decoder: { interim: Uint8Array };
    _stringDecoder: { _interim: number };
    /** RIS as xterm does it: both buffers, the modes and the pen start afresh. */
    fullReset(): void;
  };
}

interface CoreBuffer {
  scrollTop: number;
  scrollBottom: number;
  /** The first row of the screen, below the scrollback (IBuffer.baseY), and the first shown. */
  ybase: number;
  ydisp: number;
  lines: { get(index: number): unknown; splice(start: number, deleteCount: number, ...items: unknown[]): void };
}

export class Screen implements TaskScreen {
  /** The emulator, once made (see the head of this file); `term` and `core` make it when read. */
  private emulator: { term: Xterm.Terminal; core: Core } | null = null;
  private cols: number;
  private rows: number;
  private replyListener: ((data: string) => void) | null = null;
  private readonly hidden = new HiddenState();
  private readonly scrollback: number;
  /** Plain text not parsed yet (see the head of this file). */
  private readonly backlog: Backlog;
  /** Line watches not stopped yet: while there is one, every byte is parsed as it arrives. */
  private followers = 0;
  private disposed = false;
  /** previewLine() until the screen next changes: `ls` of an idle fleet reads it again and again. */
  private preview: string | null = null;

  constructor({ cols, rows, scrollback, compactAt }: ScreenOptions) {
    this.cols = cols;
    this.rows = rows;
    this.scrollback = scrollback;
    this.backlog = new Backlog(compactAt);
  }

  private get term(): Xterm.Terminal {
    return (this.emulator ??= this.makeEmulator()).term;
  }

  private get core(): Core {
    return (this.emulator ??= this.makeEmulator()).core;
  }

  private makeEmulator(): { term: Xterm.Terminal; core: Core } {
    const term = new (loadXterm().Terminal)({
      cols: this.cols,
      rows: this.rows,
      scrollback: this.scrollback,
      allowProposedApi: true,
      // CSI 18 t (size in characters) is the one window report that needs no pixels or titles.
      windowOptions: { getWinSizeChars: true },
      // writeSync says once that it is unreliable: with no asynchronous handler registered, it is not.
      logLevel: "off",
    });
    const core = (term as unknown as { _core: Core })._core;
    if (typeof core?.writeSync !== "function") throw new Error("@xterm/headless has no writeSync: term-screen.ts needs it");
    this.emulator = { term, core };
    useFleetcomWidths(term);
    // First: xterm runs the hooks registered last first, and the reset here replaces xterm's own.
    this.keepHistoryOnClear();
    this.followHiddenState();
    if (this.replyListener) term.onData(this.replyListener);
    return this.emulator;
  }

  /**
   * A clear of the whole screen keeps what it erases, as tmux's scroll-on-clear does, so a watcher
   * that clears before each run keeps its earlier runs in the history (docs/terminal-state.md,
   * History): ED 2, and ED 0 from the top left corner, on the normal screen scroll its rows in use
   * into the scrollback before xterm erases it; RIS keeps the normal buffer's scrollback and rows in
   * use; ED 3 (erase the scrollback) erases nothing, unlike tmux, which would lose every earlier run
   * of `clear`, jest and vitest that way.
   */
  private keepHistoryOnClear(): void {
    const { parser } = this.term;
    parser.registerCsiHandler({ final: "J" }, (params) => {
      const mode = mainParams(params)[0] ?? 0;
      if (mode === 3) return true;
      const buffer = this.term.buffer.active;
      const home = buffer.cursorX === 0 && buffer.cursorY === 0;
      if (buffer.type === "normal" && (mode === 2 || (mode === 0 && home))) this.scrollScreenIntoHistory();
      return false;
    });
    parser.registerEscHandler({ final: "c" }, () => {
      this.resetKeepingHistory();
      return true;
    });
  }

  /** The normal screen's rows down to the last one in use, scrolled into the scrollback whatever the scroll region. */
  private scrollScreenIntoHistory(): void {
    const buffer = this.core.buffer;
    const { scrollTop, scrollBottom } = buffer;
    buffer.scrollTop = 0;
    buffer.scrollBottom = this.term.rows - 1;
    const normal = this.term.buffer.normal;
    const blank = normal.getNullCell();
    for (let n = rowsInUse(normal, this.term.rows); n > 0; n--) this.core.scroll(blank);
    buffer.scrollTop = scrollTop;
    buffer.scrollBottom = scrollBottom;
  }

  /** xterm's RIS, then the normal buffer's scrollback and screen rows in use put back above the fresh screen. */
  private resetKeepingHistory(): void {
    const before = this.core.buffers.normal;
    const end = before.ybase + rowsInUse(this.term.buffer.normal, this.term.rows);
    const kept: unknown[] = [];
    for (let y = Math.max(0, end - this.scrollback); y < end; y++) kept.push(before.lines.get(y));
    this.core._inputHandler.fullReset();
    const after = this.core.buffers.normal;
    // In slices: up to 100,000 lines spread as arguments could overflow the stack.
    for (let at = 0; at < kept.length; at += 10_000) after.lines.splice(at, 0, ...kept.slice(at, at + 10_000));
    after.ybase = after.ydisp = kept.length;
  }

  /**
   * Follows what xterm keeps but exposes no API for (term-modes.ts). The hooks run before xterm's
   * own handlers and return false, so xterm still applies them.
   */
  private followHiddenState(): void {
    const { parser } = this.term;
    const hidden = this.hidden;
    const activeType = () => this.term.buffer.active.type;
    const observe = (apply: () => void) => {
      apply();
      return false;
    };
    parser.registerCsiHandler({ prefix: "?", final: "h" }, (p) => observe(() => hidden.setPrivateModes(p, true)));
    parser.registerCsiHandler({ prefix: "?", final: "l" }, (p) => observe(() => hidden.setPrivateModes(p, false)));
    parser.registerCsiHandler({ final: "r" }, (p) => observe(() => hidden.setScrollRegion(p, this.term.rows, activeType())));
    parser.registerCsiHandler({ intermediates: " ", final: "q" }, (p) => observe(() => (hidden.cursorStyle = mainParams(p)[0] || undefined)));
    parser.registerCsiHandler({ intermediates: "!", final: "p" }, () => observe(() => hidden.softReset(activeType())));
    parser.registerEscHandler({ final: "c" }, () => observe(() => hidden.fullReset()));
  }

  /** PTY output as it came; xterm decodes UTF-8 split across chunks. */
  write(data: Uint8Array | string): void {
    if (this.disposed) return;
    if (this.followers === 0 && typeof data !== "string" && isPlain(data)) {
      this.backlog.push(data);
      this.preview = null;
      // What can no longer show is forgotten; a backlog that cannot be, and has grown too large, is parsed.
      if (this.backlog.due) {
        this.forget();
        if (this.backlog.tried() === "parse") this.parseBacklog();
      }
      return;
    }
    this.catchUp();
    this.parse(data);
  }

  private parse(data: Uint8Array | string): void {
    this.preview = null;
    try {
      this.core.writeSync(data);
    } catch {
      // A bug in the emulator loses this chunk from the screen rather than killing the daemon;
      // clients still get the raw output.
    }
  }

  /**
   * Parses the backlog: every read of the screen comes after this. A large backlog may hold several
   * times the tail that can still show (term-backlog.ts FORGET_GROWTH: a task's end or a peek in
   * the middle of a flood), so what can no longer show is forgotten first.
   */
  private catchUp(): void {
    if (this.backlog.large) this.forget();
    this.parseBacklog();
  }

  private parseBacklog(): void {
    for (const chunk of this.backlog.take()) this.parse(chunk);
  }

  /** Forgets the head of the backlog that can no longer show, when that is exact (term-backlog.ts). */
  private forget(): void {
    if (this.atGround()) this.backlog.forgetBefore(2 * this.rows + this.scrollback);
  }

  /**
   * Whether the backlog would be parsed from the ground state with the whole screen scrolling, the
   * condition on which forgetting its head is exact (term-backlog.ts): no sequence or UTF-8
   * character left open by what was parsed before it, no scroll region.
   */
  private atGround(): boolean {
    if (!this.emulator) return true;
    const input = this.core._inputHandler;
    const buffer = this.core.buffer;
    return (
      input?._parser?.currentState === 0 &&
      input._utf8Decoder?.interim?.[0] === 0 &&
      input._stringDecoder?._interim === 0 &&
      buffer?.scrollTop === 0 &&
      buffer.scrollBottom === this.term.rows - 1
    );
  }

  /** Nothing written yet, so no emulator made: the screen is a fresh terminal's, every row blank. */
  private blank(): boolean {
    return !this.emulator && this.backlog.bytes === 0;
  }

  /** Resolves once everything written so far has been parsed. */
  flushed(): Promise<void> {
    this.catchUp();
    return Promise.resolve();
  }

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.cols = cols;
    this.rows = rows;
    if (this.emulator) {
      this.catchUp();
      this.term.resize(cols, rows);
    }
    this.preview = null;
    this.hidden.resetRegions();
  }

  /**
   * Replies the terminal sends to the task's queries (see docs/terminal-state.md for the list).
   * Headless xterm has no keyboard or mouse and nothing here calls `input()`, so this carries
   * replies only.
   */
  onReply(listener: (data: string) => void): void {
    this.replyListener = listener;
    this.emulator?.term.onData(listener);
  }

  /**
   * What an attaching client's terminal must receive to show exactly this screen, after every byte
   * written so far (see snapshotForAttach). The same bytes redraw a client that fell behind or saw
   * the task switch screens.
   */
  serializeForAttach(): string {
    this.catchUp();
    return RESET_ATTACHING_TERMINAL + this.visibleRows() + this.modes() + this.regionAndCursor() + this.pen();
  }

  /**
   * serializeForAttach() taken exactly after every byte written so far and before any byte written
   * later, so a client can be sent this and then every later chunk without a gap or an overlap.
   */
  snapshotForAttach(): Promise<string> {
    return this.readAtCurrentPoint(() => this.serializeForAttach());
  }

  /** text() at the same exact point, for `peek --follow`. */
  textAtCurrentPoint(lines?: number): Promise<string> {
    return this.readAtCurrentPoint(() => this.text(lines));
  }

  /** Runs `read` after the bytes written so far and before any later ones: parsing is synchronous. */
  private readAtCurrentPoint<T>(read: () => T): Promise<T> {
    this.catchUp();
    return Promise.resolve(read());
  }

  /**
   * The rows on screen, of whichever buffer is active: the client's terminal shows one screen, and
   * a task that switches buffers while attached is redrawn (ui-attach.ts). The scrollback stays here
   * (`peek -n`): the client's alternate screen could not keep it.
   */
  private visibleRows(): string {
    const buffer = this.term.buffer.active;
    const { cols, rows } = this.term;
    return serializeRows(buffer, buffer.baseY, buffer.baseY + rows, cols);
  }

  /**
   * Bytes that make a fresh emulator of this size hold this one's state, scrollback included: the
   * normal buffer's every row, then the alternate screen if it is active. Only a finished screen
   * reflowed for a new size reads this (term-screen-finished.ts); clients get serializeForAttach().
   */
  private replayWhole(): string {
    const { normal, alternate, active } = this.term.buffer;
    const { cols, rows } = this.term;
    let out = RESET_ATTACHING_TERMINAL + serializeRows(normal, 0, normal.length, cols);
    if (active.type === "alternate") {
      out += `${cursorTo(normal.cursorY + 1, normal.cursorX + 1)}${CSI}?1049h`;
      out += serializeRows(alternate, alternate.length - rows, alternate.length, cols);
    }
    return out + this.modes() + this.regionAndCursor() + this.pen();
  }

  private modes(): string {
    return this.hidden.modesSequence(this.term.modes);
  }

  private regionAndCursor(): string {
    return this.hidden.regionAndCursorSequence(this.term.buffer.active, this.term.modes.originMode);
  }

  /**
   * The pen the task will draw its next characters with. xterm has no API for it; this is the
   * field @xterm/addon-serialize reads too. Should it move, the pen is left default rather than
   * failing the attach (the restore tests catch it).
   */
  private pen(): string {
    const internals = this.term as unknown as { _core?: { _inputHandler?: { _curAttrData?: Style } } };
    const pen = internals._core?._inputHandler?._curAttrData;
    return pen && !pen.isAttributeDefault() ? sgr(pen) : "";
  }

  /**
   * How the task wants its keyboard input, as all it printed set it: pasted text inside ESC[200~…
   * ESC[201~ (bracketed paste, DECSET 2004), arrows as ESC O A (application cursor keys, DECCKM).
   * With no emulator made, all of it was plain text, which sets no mode (term-backlog.ts): a fresh
   * terminal's modes, and a key typed into a plain task loads no xterm (~3.5 MB).
   */
  inputModes(): { bracketedPaste: boolean; applicationCursorKeys: boolean } {
    if (!this.emulator) return { bracketedPaste: false, applicationCursorKeys: false };
    const { bracketedPasteMode, applicationCursorKeysMode } = this.term.modes;
    return { bracketedPaste: bracketedPasteMode, applicationCursorKeys: applicationCursorKeysMode };
  }

  /** The screen's rows from the top down to the cursor's row, right-trimmed. */
  rowsToCursor(): string[] {
    this.catchUp();
    const buffer = this.term.buffer.active;
    const rows: string[] = [];
    for (let y = buffer.baseY; y <= buffer.baseY + buffer.cursorY; y++) rows.push(rowText(buffer, y));
    return rows;
  }

  fullScreen(): boolean {
    return this.emulator?.term.buffer.active.type === "alternate";
  }

  /** The last non-blank line of the screen, right-trimmed; "" when the screen is blank. */
  previewLine(): string {
    if (this.blank()) return "";
    if (this.preview !== null) return this.preview;
    // A flood watched by `ls`, the dashboard or run's moment of watching is not parsed to show one line.
    const screenLines = this.backlogLines(this.rows);
    if (screenLines) return (this.preview = previewOfLines(screenLines, this.cols));
    this.catchUp();
    const buffer = this.term.buffer.active;
    return (this.preview = previewOfRows(buffer.baseY, this.term.rows, (y) => rowText(buffer, y)));
  }

  /**
   * The screen as plain text: rows right-trimmed, trailing blank rows dropped. With `lines`, the
   * last that many rows of scrollback and screen together.
   */
  text(lines?: number): string {
    this.catchUp();
    const buffer = this.term.buffer.active;
    return textOfRows(buffer.length, buffer.baseY, (y) => rowText(buffer, y), lines);
  }

  /** Every line of scrollback and screen as the program wrote it: wrapped rows joined, right-trimmed. */
  logicalLines(): string[] {
    this.catchUp();
    const buffer = this.term.buffer.active;
    return logicalLinesOfRows(
      buffer.length,
      (y) => buffer.getLine(y)?.translateToString(false) ?? "",
      (y) => buffer.getLine(y)?.isWrapped === true,
    );
  }

  /**
   * History (`peek --history`, `grep`, the pager, the copy kept on disk): the normal buffer's
   * scrollback and screen, then the alternate screen while a full-screen program shows one; rows
   * the terminal wrapped joined into the line the program wrote, blank lines at the end left out,
   * at most the last `limit` lines. `styled` lines carry their colours (term-serialize.ts styledLine).
   */
  historyLines(limit: number, styled = false): string[] {
    if (this.blank()) return [];
    const lines = (!styled && this.backlogLines(this.rows + this.scrollback)) || this.parsedHistoryLines(styled);
    dropTrailingBlankLines(lines);
    return limit > 0 ? lines.slice(-limit) : [];
  }

  private parsedHistoryLines(styled: boolean): string[] {
    this.catchUp();
    const { normal, active } = this.term.buffer;
    const cols = this.term.cols;
    const lines = bufferLines(normal, 0, normal.length, cols, styled);
    if (active.type === "alternate") {
      dropTrailingBlankLines(lines);
      lines.push(...bufferLines(active, active.baseY, active.length, cols, styled));
    }
    return lines;
  }

  /**
   * The lines of the normal buffer's last `rows` rows read from the backlog when its text alone decides
   * them (term-backlog.ts: all the task printed, nothing parsed yet; a head forgotten; or enough line
   * feeds to parse from the ground state) and the state it would be parsed in prints it as lastLines()
   * assumes; else null. The history writer and the previews read a flood again and again: catching up
   * would fill a scrollback no one looks at, and a few lines would make an emulator for nothing.
   */
  private backlogLines(rows: number): string[] | null {
    if (this.emulator) {
      if ((!this.backlog.covers && !this.atGround()) || this.term.buffer.active.type !== "normal") return null;
      const { wraparoundMode, insertMode } = this.term.modes;
      const charsets = this.core._charsetService;
      if (!wraparoundMode || insertMode || !charsets || charsets.charset !== undefined) return null;
    }
    return this.backlog.lines(this.cols, rows, this.rows, !this.emulator);
  }

  styledHistoryLines(limit: number): Promise<string[]> {
    return this.readAtCurrentPoint(() => this.historyLines(limit, true));
  }

  /**
   * For `logs --follow`: the complete lines so far, and every line completed after them, with no
   * gap and no overlap (term-lines.ts LineWatch). Stop the watch when the follower goes.
   */
  followLines(onLine: (line: string) => void): Promise<LineWatch> {
    return this.readAtCurrentPoint(() => {
      this.followers += 1;
      return new LineWatch(
        this.term,
        () => this.hidden.regions.normal,
        onLine,
        () => (this.followers -= 1),
      );
    });
  }

  /**
   * Hands `adopt` this screen's FinishedState, taken after every byte written so far, and then
   * disposes the emulator. Reads are synchronous, so none is left waiting on it, and whoever swaps
   * the screen in `adopt` does it before anything else can ask.
   */
  finish(adopt: (state: FinishedState) => void): void {
    adopt(this.finishedState());
    this.dispose();
  }

  /** The FinishedState as parsed so far (see finish and readAtCurrentPoint for when that is exact). */
  finishedState(): FinishedState {
    this.catchUp();
    const buffer = this.term.buffer.active;
    const rows: string[] = new Array(buffer.length);
    const wrapped = new Uint8Array(buffer.length);
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y);
      rows[y] = line?.translateToString(true) ?? "";
      wrapped[y] = line?.isWrapped ? 1 : 0;
    }
    const encoded = rows.map((row) => utf8.encode(row));
    const text = new Uint8Array(encoded.reduce((sum, row) => sum + row.length + 1, 0));
    const rowEnds = new Uint32Array(rows.length);
    let at = 0;
    encoded.forEach((row, y) => {
      text.set(row, at);
      rowEnds[y] = at += row.length;
      text[at++] = 0x0a;
    });
    return {
      cols: this.term.cols,
      rows: this.term.rows,
      scrollback: this.scrollback,
      attach: utf8.encode(this.serializeForAttach()),
      whole: utf8.encode(this.replayWhole()),
      text,
      rowEnds,
      wrapped,
      baseY: buffer.baseY,
      preview: this.previewLine(),
    };
  }

  /** finishedState() taken exactly after every byte written so far. */
  finishedStateAtCurrentPoint(): Promise<FinishedState> {
    return this.readAtCurrentPoint(() => this.finishedState());
  }

  dispose(): void {
    this.disposed = true;
    this.backlog.take();
    this.emulator?.term.dispose();
  }
}

const utf8 = new TextEncoder();
