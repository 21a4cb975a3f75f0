// The screen of a task that has exited. Its emulator (cells, scrollback, parser: megabytes at full
// scrollback, docs/benchmarks.md) is disposed once the last byte is parsed; what peek, attach, `peek --follow`
// and the `ls` preview read from it is kept as text in a FinishedState (term-screen.ts), which is what
// they would have read from the emulator.
//
// Resizing (an attach from a terminal of another size) replays the kept screen into a fresh
// emulator of the old size, resizes that, and keeps its state: the same reflow the live screen
// would have done. Reads queue behind a resize in progress, as they queue behind the parser live.
import type { IDisposable } from "@xterm/headless";
import { type FinishedState, type TaskScreen, Screen } from "./term-screen.ts";
import { logicalLinesOfRows, textOfRows } from "./term-rows.ts";
import { dropTrailingBlankLines } from "./term-lines.ts";

const utf8 = new TextDecoder();

export class FinishedScreen implements TaskScreen {
  private cols: number;
  private rows: number;
  /** Resizes not yet applied, in order; reads that need the exact screen wait for it. */
  private settled: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(private state: FinishedState) {
    this.cols = state.cols;
    this.rows = state.rows;
  }

  /** The task has exited: nothing more is printed. */
  write(_data: Uint8Array | string): void {}

  flushed(): Promise<void> {
    return this.settled;
  }

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.cols = cols;
    this.rows = rows;
    this.settled = this.settled.then(async () => {
      if (this.disposed) return;
      const next = await relaid(this.state, cols, rows);
      if (!this.disposed) this.state = next;
    });
  }

  onReply(_listener: (data: string) => void): IDisposable {
    return { dispose() {} };
  }

  serializeForAttach(): string {
    return utf8.decode(this.state.attach);
  }

  async snapshotForAttach(): Promise<string> {
    await this.settled;
    return this.serializeForAttach();
  }

  async textAtCurrentPoint(lines?: number): Promise<string> {
    await this.settled;
    return this.text(lines);
  }

  /** A finished task's program has left its full screen. */
  fullScreen(): boolean {
    return false;
  }

  previewLine(): string {
    return this.state.preview;
  }

  /** A task that has exited takes no input: no mode asks for other keys. */
  inputModes(): { bracketedPaste: boolean; applicationCursorKeys: boolean } {
    return { bracketedPaste: false, applicationCursorKeys: false };
  }

  /** The screen's rows, top down: the cursor is not kept once the task has exited. */
  rowsToCursor(): string[] {
    const { rowEnds, baseY } = this.state;
    return Array.from({ length: rowEnds.length - baseY }, (_, i) => this.row(baseY + i).trimEnd());
  }

  text(lines?: number): string {
    const { rowEnds, baseY } = this.state;
    return textOfRows(rowEnds.length, baseY, (y) => this.row(y).trimEnd(), lines);
  }

  logicalLines(): string[] {
    const { rowEnds, wrapped } = this.state;
    return logicalLinesOfRows(
      rowEnds.length,
      (y) => this.row(y),
      (y) => wrapped[y] === 1,
    );
  }

  /** History as the kept rows hold it: the buffer that showed when the task ended (Screen.historyLines). */
  historyLines(limit: number): string[] {
    const lines = dropTrailingBlankLines(this.logicalLines());
    return limit > 0 ? lines.slice(-limit) : [];
  }

  /** Colours are not kept as text: the kept screen is replayed into an emulator, as a resize does. */
  async styledHistoryLines(limit: number): Promise<string[]> {
    await this.settled;
    const screen = new Screen({ cols: this.state.cols, rows: this.state.rows, scrollback: this.state.scrollback });
    try {
      screen.write(this.state.whole);
      await screen.flushed();
      return screen.historyLines(limit, true);
    } finally {
      screen.dispose();
    }
  }

  private row(y: number): string {
    const { text, rowEnds } = this.state;
    return utf8.decode(text.subarray(y === 0 ? 0 : rowEnds[y - 1]! + 1, rowEnds[y]));
  }

  dispose(): void {
    this.disposed = true;
  }
}

/** The state a live screen of the old size, given the kept screen and then resized, would have. */
async function relaid(state: FinishedState, cols: number, rows: number): Promise<FinishedState> {
  const screen = new Screen({ cols: state.cols, rows: state.rows, scrollback: state.scrollback });
  try {
    screen.write(state.whole);
    await screen.flushed();
    screen.resize(cols, rows);
    return await screen.finishedStateAtCurrentPoint();
  } finally {
    screen.dispose();
  }
}
