// Restore fidelity: whatever a task wrote, serializeForAttach() written into a plain terminal of the
// same size, on its alternate screen as ui-attach.ts keeps it, must make that terminal show what a twin
// terminal fed the task's bytes directly shows, and behave the same from then on (Screen's own
// terminal is private; its twin has the same options and input).
import { afterEach, describe, expect, test } from "bun:test";
import { type IBuffer, type IBufferCell, Terminal } from "@xterm/headless";
import { AltScreenFilter } from "../../src/ui-attach-screens.ts";
import { Screen } from "../../src/term-screen.ts";
import { useFleetcomWidths } from "../../src/term-widths.ts";
import { seededRandom } from "../harness/helpers.ts";

const COLS = 120;
const ROWS = 40;
const CSI = "\x1b[";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function plainTerminal(cols = COLS, rows = ROWS, scrollback = 2000): Terminal {
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  useFleetcomWidths(term);
  cleanups.push(() => term.dispose());
  return term;
}

function newScreen(cols = COLS, rows = ROWS, scrollback = 2000): Screen {
  const screen = new Screen({ cols, rows, scrollback });
  cleanups.push(() => screen.dispose());
  return screen;
}

function writeTo(term: Terminal, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

/** A Screen and its twin, both fed the same bytes. */
async function taskWrites(data: string, size = { cols: COLS, rows: ROWS, scrollback: 2000 }) {
  const screen = newScreen(size.cols, size.rows, size.scrollback);
  const twin = plainTerminal(size.cols, size.rows, size.scrollback);
  screen.write(data);
  await Promise.all([screen.flushed(), writeTo(twin, data)]);
  return { screen, twin };
}

const attachedTo = new WeakMap<Terminal, Screen>();

/** The client's terminal as attach.ts uses it: the task drawn on its alternate screen. */
async function restoreInto(screen: Screen, cols = COLS, rows = ROWS, dirt = ""): Promise<Terminal> {
  const client = plainTerminal(cols, rows);
  if (dirt) await writeTo(client, dirt);
  await writeTo(client, `${CSI}?1049h${screen.serializeForAttach()}`);
  attachedTo.set(client, screen);
  return client;
}

// ---- comparing two terminals ----------------------------------------------------------------

function describeCell(cell: IBufferCell): string {
  return [
    JSON.stringify(cell.getChars()),
    cell.getWidth(),
    `fg:${cell.getFgColorMode()}:${cell.getFgColor()}`,
    `bg:${cell.getBgColorMode()}:${cell.getBgColor()}`,
    cell.isBold(),
    cell.isItalic(),
    cell.isUnderline(),
    cell.isInverse(),
    cell.isDim(),
    cell.isStrikethrough(),
    cell.isBlink(),
    cell.isInvisible(),
    cell.isOverline(),
  ].join(" ");
}

/**
 * The rows on screen, cell by cell; the first difference is reported with its place. The top row's
 * wrapped flag is left out: the row it continues is in the scrollback, which is not sent.
 */
function screenDifferences(expected: IBuffer, actual: IBuffer, cols: number, rows: number): string[] {
  const differences: string[] = [];
  const a = expected.getNullCell();
  const b = actual.getNullCell();
  for (let y = 0; y < rows && differences.length < 5; y++) {
    const lineA = expected.getLine(expected.baseY + y)!;
    const lineB = actual.getLine(actual.baseY + y)!;
    if (y > 0 && lineA.isWrapped !== lineB.isWrapped) differences.push(`row ${y} wrapped ${lineA.isWrapped}`);
    for (let x = 0; x < cols; x++) {
      const cellA = describeCell(lineA.getCell(x, a)!);
      const cellB = describeCell(lineB.getCell(x, b)!);
      if (cellA !== cellB) {
        differences.push(`${expected.type} (${x},${y}): ${cellA} | ${cellB}`);
        break;
      }
    }
  }
  return differences;
}

/** State xterm exposes only by answering queries: cursor visibility, SGR mouse, scroll region. */
async function queriedState(term: Terminal): Promise<string[]> {
  const replies: string[] = [];
  const listener = term.onData((data) => replies.push(data));
  await writeTo(term, `${CSI}?25$p${CSI}?1006$p${CSI}?1016$p\x1bP$qr\x1b\\`);
  listener.dispose();
  return replies;
}

/** The client shows what the twin shows, on its alternate screen, with the same cursor and state. */
async function expectSameTerminal(expected: Terminal, actual: Terminal): Promise<void> {
  expect(actual.buffer.active.type).toBe("alternate");
  expect(screenDifferences(expected.buffer.active, actual.buffer.active, expected.cols, expected.rows)).toEqual([]);
  const cursor = (t: Terminal) => [t.buffer.active.cursorX, t.buffer.active.cursorY];
  expect(cursor(actual)).toEqual(cursor(expected));
  expect(actual.modes).toEqual(expected.modes);
  expect(await queriedState(actual)).toEqual(await queriedState(expected));
}

/**
 * The task writes `data`: the twin gets it as it is, the attached client as ui-attach.ts passes it on
 * (screen switches taken out, then a redraw); both must still agree, so the pen, region and origin
 * behave alike.
 */
async function expectSameAfter(data: string, expected: Terminal, actual: Terminal): Promise<void> {
  const screen = attachedTo.get(actual)!;
  screen.write(data);
  const { bytes, switched } = new AltScreenFilter().push(new TextEncoder().encode(data));
  await Promise.all([writeTo(expected, data), writeTo(actual, bytes)]);
  if (switched) await writeTo(actual, await screen.snapshotForAttach());
  await expectSameTerminal(expected, actual);
}

// ---- what tasks write -----------------------------------------------------------------------

function plainLines(count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) out += `line ${i} ${"x".repeat(i % 90)}\r\n`;
  return out;
}

function colouredLines(count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) {
    out +=
      `${CSI}1;31m${i}${CSI}0m ${CSI}38;5;${i % 256}mpal${CSI}48;2;${i % 256};40;90mtrue${CSI}0m ` +
      `${CSI}3;4mé中😀${CSI}0m ${CSI}2;7mdim-inverse${CSI}0m\r\n`;
  }
  return out;
}

/** A vim/htop-like frame: every row placed with CUP, 256-colour and truecolour, erase to line end. */
function fullScreenFrame(rows: number): string {
  let out = "";
  for (let row = 1; row <= rows; row++) {
    out += `${CSI}${row};1H${CSI}0m`;
    if (row % 3 === 0) out += `${CSI}38;5;${(row * 7) % 256};48;2;10;${row * 5};60m`;
    if (row % 4 === 0) out += `${CSI}1;4m`;
    out += `row ${row} ${"#".repeat(row)} 中${CSI}K`;
  }
  return out;
}

// ---- restore fidelity -----------------------------------------------------------------------

describe("restoring a screen on attach", () => {
  test("plain lines come back (the scrollback stays in the daemon)", async () => {
    const { screen, twin } = await taskWrites(plainLines(2040));
    await expectSameTerminal(twin, await restoreInto(screen));
  });

  test("coloured text with accents, wide characters and emoji comes back cell for cell", async () => {
    const { screen, twin } = await taskWrites(colouredLines(2040));
    await expectSameTerminal(twin, await restoreInto(screen));
  });

  test("bold right after dim text stays bold, and the 16 palette colours keep their SGR form", async () => {
    const { screen, twin } = await taskWrites(`${CSI}2mdim${CSI}1mdim+bold${CSI}22;1mbold${CSI}2;22mnone${CSI}38;5;3m256-three${CSI}33mthree\r\n`);
    await expectSameTerminal(twin, await restoreInto(screen));
  });

  test("wrapped lines stay wrapped, including a wide character pushed to the next row and blank tails", async () => {
    const long = `${"word ".repeat(70)}\r\n`;
    const wideAtEdge = `${"a".repeat(COLS - 1)}中after\r\n`;
    const erasedTail = `${"b".repeat(COLS + 10)}${CSI}A${CSI}${COLS - 20}G${CSI}K\r\n\n`;
    const colouredTail = `${"c".repeat(COLS + 10)}${CSI}A${CSI}${COLS - 20}G${CSI}44m${CSI}K${CSI}0m\r\n\n`;
    const { screen, twin } = await taskWrites(plainLines(50) + long + wideAtEdge + erasedTail + colouredTail + long);
    await expectSameTerminal(twin, await restoreInto(screen));
  });

  test("wrapped lines at the bottom of a full screen stay wrapped as they scroll into the scrollback", async () => {
    const { screen, twin } = await taskWrites(`${CSI}45m${"w".repeat(COLS * 3 + 7)}${CSI}0m\r\n`.repeat(30));
    await expectSameTerminal(twin, await restoreInto(screen));
  });

  test("a cursor in the middle of a line after a coloured prompt stays where it was, with its pen", async () => {
    const { screen, twin } = await taskWrites(`${colouredLines(30)}${CSI}32mprompt ❯ ${CSI}1;35mtyped text${CSI}12D`);
    const client = await restoreInto(screen);
    await expectSameTerminal(twin, client);
    await expectSameAfter("Z", twin, client);
  });

  test("a full-screen app on the alternate screen over 2000 lines of scrollback comes back exactly, and so does the screen it leaves", async () => {
    const app = `${CSI}1;33;44m${CSI}?1049h${CSI}?25l${CSI}?1h${CSI}?2004h${CSI}?1000h${CSI}?1006h` + `${fullScreenFrame(ROWS)}${CSI}1;33m${CSI}12;34H`;
    const { screen, twin } = await taskWrites(plainLines(2040) + app);
    const client = await restoreInto(screen);
    await expectSameTerminal(twin, client);
    expect(client.modes.mouseTrackingMode).toBe("vt200");
    expect(client.modes.bracketedPasteMode).toBe(true);
    await expectSameAfter("typed", twin, client);
    await expectSameAfter(`${CSI}?1049l`, twin, client);
  });

  test("a scroll region with origin mode keeps the cursor inside the region and scrolls only the region", async () => {
    const { screen, twin } = await taskWrites(`${plainLines(60)}${CSI}5;30r${CSI}?6h${CSI}7;12Hinside`);
    const client = await restoreInto(screen);
    await expectSameTerminal(twin, client);
    await expectSameAfter(`${CSI}1;1Horigin`, twin, client);
    await expectSameAfter(`${CSI}26;1H${"\n".repeat(5)}scrolled`, twin, client);
  });

  test("the alternate screen's own scroll region is restored, not the normal screen's", async () => {
    const { screen, twin } = await taskWrites(`${CSI}3;20r${CSI}?1049h${CSI}10;30r${CSI}15;1Hin alt`);
    const client = await restoreInto(screen);
    await expectSameTerminal(twin, client);
    await expectSameAfter(`${CSI}30;1H${"\n".repeat(3)}x`, twin, client);
    await expectSameAfter(`${CSI}?1049l${CSI}20;1H${"\n".repeat(3)}y`, twin, client);
  });

  test("a terminal left dirty by an earlier program is reset before the screen is drawn", async () => {
    const dirt =
      `${plainLines(300)}${CSI}?1049h${CSI}41;1m junk ${CSI}3;10r${CSI}?6h${CSI}?25l${CSI}4h${CSI}?7l` +
      `${CSI}?1003h${CSI}?1006h${CSI}?2004h${CSI}?1h\x1b=${CSI}?1004h${CSI}5;5Hmore junk`;
    const { screen, twin } = await taskWrites(`${plainLines(70)}${CSI}33mready${CSI}0m `);
    await expectSameTerminal(twin, await restoreInto(screen, COLS, ROWS, dirt));
  });

  test("a hidden cursor, SGR mouse encoding, focus events and the keypad mode come back", async () => {
    const { screen, twin } = await taskWrites(`${CSI}?25l${CSI}?1002h${CSI}?1006h${CSI}?1004h\x1b=${CSI}4h${CSI}?7l`);
    await expectSameTerminal(twin, await restoreInto(screen));
  });

  test("modes the task turned off again are not restored", async () => {
    const { screen, twin } = await taskWrites(`${CSI}?25l${CSI}?1000;1006h${CSI}2;9r${CSI}?2004h${CSI}?25h${CSI}?1000;1006l${CSI}r${CSI}?2004l`);
    await expectSameTerminal(twin, await restoreInto(screen));
  });

  test("encodings xterm does not implement are still re-emitted for the client's real terminal", async () => {
    const { screen } = await taskWrites(`${CSI}?1000h${CSI}?1015h`);
    expect(screen.serializeForAttach()).toContain(`${CSI}?1015h`);
  });

  test("the cursor style is re-emitted, and a soft reset forgets it along with the region", async () => {
    const styled = await taskWrites(`${CSI}6 q`);
    expect(styled.screen.serializeForAttach()).toContain(`${CSI}6 q`);
    const reset = await taskWrites(`${CSI}6 q${CSI}?25l${CSI}4;8r${CSI}!p`);
    expect(reset.screen.serializeForAttach()).not.toContain(`${CSI}6 q`);
    await expectSameTerminal(reset.twin, await restoreInto(reset.screen));
  });

  test("after RIS the cursor is shown and no scroll region or mouse encoding remains", async () => {
    const { screen } = await taskWrites(`${CSI}?25l${CSI}?1006h${CSI}4;8r\x1bcfresh`);
    const restored = screen.serializeForAttach();
    expect(restored.endsWith(`${CSI}?25h`)).toBe(true);
    expect(restored).not.toContain(`${CSI}4;8r`);
    expect(restored).not.toContain(`${CSI}?1006h`);
  });

  test("a resize resets the scroll region, as xterm does", async () => {
    const { screen, twin } = await taskWrites(`${plainLines(10)}${CSI}3;9r`);
    screen.resize(100, 30);
    twin.resize(100, 30);
    const client = await restoreInto(screen, 100, 30);
    await expectSameTerminal(twin, client);
    await expectSameAfter(`${CSI}30;1H\nbottom`, twin, client);
  });

  test("a screen with scrollback off restores its visible rows", async () => {
    const size = { cols: 80, rows: 24, scrollback: 0 };
    const { screen, twin } = await taskWrites(colouredLines(100), size);
    await expectSameTerminal(twin, await restoreInto(screen, 80, 24));
  });

  test("a task that enters and leaves the alternate screen while attached is redrawn each time", async () => {
    const { screen, twin } = await taskWrites(`${colouredLines(50)}${CSI}32mprompt$ ${CSI}0m`);
    const client = await restoreInto(screen);
    await expectSameAfter(`vim\r\n${CSI}?1049h${CSI}H${CSI}2J${fullScreenFrame(ROWS)}${CSI}5;5H`, twin, client);
    await expectSameAfter(`${CSI}?1049l${CSI}?25h`, twin, client);
    await expectSameAfter(`${CSI}?47h${CSI}Hless${CSI}?47l${CSI}?1047h${CSI}?1h${CSI}?1047;1l`, twin, client);
  });

  test("a snapshot holds exactly the bytes written before it was asked for", async () => {
    const screen = newScreen();
    const twin = plainTerminal();
    const before = `${plainLines(50)}${CSI}1;32mhalf`;
    const after = `-way${CSI}0m\r\n${plainLines(5)}`;
    screen.write(before);
    const snapshot = screen.snapshotForAttach();
    screen.write(after);
    const client = plainTerminal();
    await writeTo(client, `${CSI}?1049h${await snapshot}`);
    await writeTo(client, after);
    await writeTo(twin, before + after);
    await expectSameTerminal(twin, client);
  });
});

// ---- text ---------------------------------------------------------------------------------------

describe("the screen as text", () => {
  test("the preview is the last non-blank line, right-trimmed", async () => {
    const { screen } = await taskWrites(`first\r\n${CSI}31msecond line${CSI}0m   \r\n\r\n   \r\n`, {
      cols: 40,
      rows: 10,
      scrollback: 100,
    });
    expect(screen.previewLine()).toBe("second line");
  });

  test("the preview, kept between reads, follows every later write (plain or not) and a resize", () => {
    const screen = newScreen(20, 4, 10);
    const bytes = (text: string) => new TextEncoder().encode(text);
    /** The last non-blank row of text(), which reads the rows afresh every time. */
    const fresh = () =>
      screen
        .text()
        .split("\n")
        .filter((row) => row !== "")
        .at(-1) ?? "";
    screen.write(bytes("one\r\n"));
    expect(screen.previewLine()).toBe("one");
    expect(screen.previewLine()).toBe("one");
    screen.write(bytes("two"));
    expect(screen.previewLine()).toBe("two");
    screen.write(`${CSI}2K\rthree`);
    expect(screen.previewLine()).toBe("three");
    screen.write(bytes(` ${"x".repeat(30)}`));
    expect(screen.previewLine()).toBe("x".repeat(16));
    screen.write(`${CSI}A${CSI}2K`);
    expect(screen.previewLine()).toBe(fresh());
    screen.resize(12, 3);
    expect(screen.previewLine()).toBe(fresh());
    expect(fresh()).not.toBe("x".repeat(16));
  });

  test("a blank screen has an empty preview and empty text", async () => {
    const { screen } = await taskWrites("");
    expect(screen.previewLine()).toBe("");
    expect(screen.text()).toBe("");
  });

  test("the preview and text follow the alternate screen while it is active", async () => {
    const { screen } = await taskWrites(`shell prompt\r\n${CSI}?1049h${CSI}3;5Hin the app`);
    expect(screen.previewLine()).toBe("    in the app");
    expect(screen.text()).toBe("\n\n    in the app");
  });

  test("text is the visible screen without escape codes or trailing blank rows", async () => {
    const { screen } = await taskWrites(`${plainLines(100)}${CSI}1;31mlast${CSI}0m  é中😀\r\n\r\n`, {
      cols: 40,
      rows: 5,
      scrollback: 1000,
    });
    expect(screen.text()).toBe(["line 98 xxxxxxxx", "line 99 xxxxxxxxx", "last  é中😀"].join("\n"));
  });

  test("text with a line count reaches back into the scrollback", async () => {
    const { screen } = await taskWrites(plainLines(100), { cols: 200, rows: 5, scrollback: 1000 });
    const lines = screen.text(20).split("\n");
    expect(lines).toHaveLength(20);
    expect(lines[0]).toStartWith("line 80 ");
    expect(lines[19]).toStartWith("line 99 ");
  });

  test("with scrollback off, a line count cannot reach past the screen", async () => {
    const { screen } = await taskWrites(plainLines(100), { cols: 200, rows: 5, scrollback: 0 });
    expect(screen.text(50).split("\n")).toEqual([
      `line 96 ${"x".repeat(6)}`,
      `line 97 ${"x".repeat(7)}`,
      `line 98 ${"x".repeat(8)}`,
      `line 99 ${"x".repeat(9)}`,
    ]);
  });
});

// ---- clears keep history --------------------------------------------------------------------

describe("a clear of the whole screen scrolls it into history, as tmux's scroll-on-clear does", () => {
  /** How watchers clear before each run (docs/terminal-state.md, History). */
  const CLEARS: [string, string][] = [
    ["ED 2, home (the field report's watcher)", `${CSI}2J${CSI}H`],
    ["clear(1) for xterm-256color, cargo watch -c", `${CSI}H${CSI}2J${CSI}3J`],
    ["jest --watch", `${CSI}2J${CSI}3J${CSI}H`],
    ["vitest's rerun: RIS, ED 3", `\x1bc${CSI}3J`],
    ["tsc --watch: RIS", "\x1bc"],
    ["Node's console.clear: home, erase below", `${CSI}1;1H${CSI}0J`],
  ];

  for (const [who, clear] of CLEARS) {
    test(`${who}: the run before stays in the history, the screen shows only the new run`, async () => {
      const { screen, twin } = await taskWrites(`run 1 line 1\r\n\r\nrun 1 line 3\r\n${clear}run 2 line 1\r\n`, { cols: 40, rows: 10, scrollback: 100 });
      expect(screen.historyLines(100)).toEqual(["run 1 line 1", "", "run 1 line 3", "run 2 line 1"]);
      expect(screen.text()).toBe("run 2 line 1");
      // The screen and every mode are what the clear leaves in a terminal that keeps no history.
      await expectSameTerminal(twin, await restoreInto(screen, 40, 10));
    });
  }

  test("a follower (logs --follow) is given every line of each run, whichever clear came between", async () => {
    for (const [who, clear] of CLEARS) {
      const screen = newScreen(40, 10, 100);
      const given: string[] = [];
      const watch = await screen.followLines((line) => given.push(line));
      screen.write(`run 1 line 1\r\nrun 1 line 2\r\n${clear}run 2 line 1\r\nrun 2 line 2\r\n`);
      watch.stop();
      expect({ who, given }).toEqual({ who, given: ["run 1 line 1", "run 1 line 2", "run 2 line 1", "run 2 line 2"] });
    }
  });

  test("three runs of a watcher, each longer than the screen, are all in the history, in order", async () => {
    let out = "";
    for (let run = 1; run <= 3; run++) {
      out += `${CSI}H${CSI}2J${CSI}3J`;
      for (let line = 1; line <= 15; line++) out += `run ${run} line ${line}\r\n`;
    }
    const { screen } = await taskWrites(out, { cols: 40, rows: 10, scrollback: 100 });
    const expected = [1, 2, 3].flatMap((run) => Array.from({ length: 15 }, (_, i) => `run ${run} line ${i + 1}`));
    expect(screen.historyLines(100)).toEqual(expected);
    expect(screen.historyLines(20)).toEqual(expected.slice(-20));
  });

  test("the lines kept through a reset are bounded by the scrollback; with none, none are kept", async () => {
    const some = await taskWrites(`${plainLines(30)}\x1bcafter\r\n`, { cols: 100, rows: 10, scrollback: 12 });
    expect(some.screen.historyLines(100)).toEqual([...plainLines(30).trimEnd().split("\r\n").slice(-12), "after"]);
    const none = await taskWrites(`${plainLines(30)}\x1bcafter\r\n`, { cols: 100, rows: 10, scrollback: 0 });
    expect(none.screen.historyLines(100)).toEqual(["after"]);
    // More lines than are put back in one go.
    const many = newScreen(20, 10, 12_000);
    many.write(`${Array.from({ length: 15_000 }, (_, i) => i).join("\r\n")}\r\n\x1bcafter\r\n`);
    const lines = many.historyLines(100_000);
    expect([lines.length, lines[0], lines.at(-2), lines.at(-1)]).toEqual([12_001, "3000", "14999", "after"]);
  });

  test("a scroll region does not hold the screen back, and stays set", async () => {
    const { screen, twin } = await taskWrites(`top\r\nmiddle\r\nbottom\r\n${CSI}2;5r${CSI}2J${CSI}Hnext`, { cols: 40, rows: 10, scrollback: 100 });
    expect(screen.historyLines(100)).toEqual(["top", "middle", "bottom", "next"]);
    await expectSameTerminal(twin, await restoreInto(screen, 40, 10));
  });

  test("a clear on the alternate screen (a full-screen app) keeps nothing of the app's frame", async () => {
    const { screen, twin } = await taskWrites(`shell line\r\n${CSI}?1049h${fullScreenFrame(10)}${CSI}2J${CSI}Hframe 2`, {
      cols: 40,
      rows: 10,
      scrollback: 100,
    });
    expect(screen.historyLines(100)).toEqual(["shell line", "frame 2"]);
    await expectSameTerminal(twin, await restoreInto(screen, 40, 10));
    screen.write(`${CSI}?1049l`);
    expect(screen.historyLines(100)).toEqual(["shell line"]);
  });

  test("erasing below the cursor anywhere but home erases, as before", async () => {
    const { screen } = await taskWrites(`one\r\ntwo\r\nthree\r\n${CSI}2;1H${CSI}0Jnew`, { cols: 40, rows: 10, scrollback: 100 });
    expect(screen.historyLines(100)).toEqual(["one", "new"]);
  });
});

// ---- query replies --------------------------------------------------------------------------

describe("a full-screen program", () => {
  test("the screen says while its task shows the alternate screen (what the web page draws cell for cell)", async () => {
    const screen = newScreen(80, 24, 100);
    screen.write("a shell prompt\r\n");
    await screen.flushed();
    expect(screen.fullScreen()).toBe(false);
    screen.write(`${CSI}?1049h${CSI}H┌──┐`);
    await screen.flushed();
    expect(screen.fullScreen()).toBe(true);
    screen.write(`${CSI}?1049l`);
    await screen.flushed();
    expect(screen.fullScreen()).toBe(false);
  });
});

describe("terminal query replies", () => {
  async function repliesTo(...chunks: string[]): Promise<string[]> {
    const screen = newScreen(80, 24, 100);
    const replies: string[] = [];
    screen.onReply((reply) => replies.push(reply));
    for (const chunk of chunks) screen.write(chunk);
    await screen.flushed();
    return replies;
  }

  test("a cursor position request is answered exactly once with the cursor's row and column", async () => {
    expect(await repliesTo(`${CSI}10;20H${CSI}6n`)).toEqual([`${CSI}10;20R`]);
  });

  test("primary device attributes are answered exactly once", async () => {
    expect(await repliesTo(`${CSI}c`)).toEqual([`${CSI}?1;2c`]);
  });

  test("status, secondary attributes, mode and size requests are answered", async () => {
    expect(await repliesTo(`${CSI}5n${CSI}>c${CSI}?2004$p${CSI}18t`)).toEqual([`${CSI}0n`, `${CSI}>0;276;0c`, `${CSI}?2004;2$y`, `${CSI}8;24;80t`]);
  });

  test("ordinary output, modes, titles and colours produce no replies", async () => {
    const output =
      `${colouredLines(20)}${CSI}?1049h${CSI}?1000;1006h${CSI}?2004h\x1b]0;title\x07${CSI}2J` +
      `${CSI}?2004l${CSI}?1049l${CSI}200~pasted${CSI}201~\x1b[I\x1b[O${CSI}M !!`;
    expect(await repliesTo(output)).toEqual([]);
  });

  test("a query split across two writes is still answered once", async () => {
    expect(await repliesTo(`${CSI}6`, "n")).toEqual([`${CSI}1;1R`]);
  });
});

test("bytes of a UTF-8 character split across two writes are decoded as one character", async () => {
  const bytes = new TextEncoder().encode("中😀");
  const screen = newScreen(20, 3, 0);
  screen.write(bytes.subarray(0, 2));
  screen.write(bytes.subarray(2, 5));
  screen.write(bytes.subarray(5));
  await screen.flushed();
  expect(screen.text()).toBe("中😀");
});

describe("the client's own screen", () => {
  function rows(buffer: IBuffer): string[] {
    return Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true)).filter((r) => r !== "");
  }

  test("is neither cleared nor switched by the bytes, and comes back with its scrollback when the client leaves", async () => {
    const { screen } = await taskWrites(`${colouredLines(300)}${CSI}?1049h${fullScreenFrame(ROWS)}`);
    const view = screen.serializeForAttach();
    expect(view).not.toContain(`${CSI}3J`);
    expect(view).not.toMatch(/\x1b\[\?(47|1047|1049)[hl]/);
    const client = plainTerminal();
    const own = Array.from({ length: 100 }, (_, i) => `the client's own line ${i}`);
    await writeTo(client, own.join("\r\n"));
    await writeTo(client, `${CSI}?1049h${view}${CSI}?1049l`);
    expect(rows(client.buffer.normal)).toEqual(own);
  });
});

// ---- lazy parsing ---------------------------------------------------------------------------
// Plain text waits unparsed and the head of a long run of it is never parsed (term-backlog.ts). A
// screen that does so must end up cell for cell, both buffers and all of the scrollback, the same as
// one that parses every byte, and answer the same queries with the same replies, whatever the mix
// and however the bytes are cut into chunks.

describe("lazy parsing", () => {
  /** Seeded (test/harness), so a failure names its case and can be replayed. */
  function random(seed: number) {
    const next = seededRandom(seed);
    const int = (n: number) => Math.floor(next() * n);
    const pick = <T>(items: T[]): T => items[int(items.length)]!;
    return { next, int, pick };
  }

  const PIECES = ["word", "x", " ", "  ", "\t", "\b", "é", "中", "😀", "e\u0301", "\u00a0", "\x07", "\x00", "0123456789", "a".repeat(50)];
  const ENDINGS = ["\r\n", "\r\n", "\r\n", "\r\n", "\n", "\r", ""];

  function plainText(r: ReturnType<typeof random>, lines: number): string {
    let out = "";
    for (let i = 0; i < lines; i++) {
      const pieces = r.int(8);
      for (let p = 0; p < pieces; p++) out += r.pick(PIECES);
      out += r.pick(ENDINGS);
    }
    return out;
  }

  function sequence(r: ReturnType<typeof random>, rows: number, cols: number): string {
    const row = () => 1 + r.int(rows);
    const col = () => 1 + r.int(cols);
    return r.pick([
      () => `${CSI}${r.pick(["0", "1", "31", "1;44", "38;5;200", "48;2;1;2;3", "7", "4"])}m`,
      () => `${CSI}${row()};${col()}H`,
      () => `${CSI}${r.pick(["2J", "K", "1K", "J", "L", "M", "2S", "T", "3@", "2P"])}`,
      () => `${CSI}${row()};${row()}r`,
      () => `${CSI}r`,
      () => r.pick(["\x1b7", "\x1b8", "\x1bD", "\x1bE", "\x1bM", "\x1bH", `${CSI}3g`]),
      () => r.pick([`${CSI}?1049h`, `${CSI}?1049l`, `${CSI}?47h`, `${CSI}?47l`]),
      () => r.pick(["\x1b(0", "\x1b(B", "\x1b)0", "\x0e", "\x0f"]),
      () => r.pick([`${CSI}4h`, `${CSI}4l`, `${CSI}?7l`, `${CSI}?7h`, `${CSI}?6h`, `${CSI}?6l`, `${CSI}?45h`, `${CSI}?45l`]),
      () => r.pick([`${CSI}6n`, `${CSI}c`, `${CSI}>c`, `${CSI}?2004$p`, `${CSI}5n`]),
      () => r.pick(["\x1b]0;a title", "\x07", "\x1b\\", "\x1b]2;done\x07"]),
      () => r.pick([`${CSI}3`, "1m", `${CSI}?25`, "l", "\x1b"]),
      () => r.pick(["\u009b32m", "\u009b2J", "\u0085"]),
      () => r.pick([`${CSI}!p`, "\x1bc"]),
    ])();
  }

  function chunksOf(bytes: Uint8Array, r: ReturnType<typeof random>, most: number): Uint8Array[] {
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + r.int(r.next() < 0.3 ? 8 : most);
      chunks.push(bytes.slice(at, at + size));
      at += size;
    }
    return chunks;
  }

  type Core = { buffer: { normal: IBuffer; alternate: IBuffer; active: IBuffer }; modes: unknown };

  function bufferDifferences(expected: IBuffer, actual: IBuffer, cols: number): string[] {
    if (expected.length !== actual.length || expected.baseY !== actual.baseY)
      return [`${expected.type}: length ${expected.length}/${actual.length}, baseY ${expected.baseY}/${actual.baseY}`];
    if (expected.cursorX !== actual.cursorX || expected.cursorY !== actual.cursorY)
      return [`${expected.type}: cursor ${expected.cursorX},${expected.cursorY} / ${actual.cursorX},${actual.cursorY}`];
    const a = expected.getNullCell();
    const b = actual.getNullCell();
    for (let y = 0; y < expected.length; y++) {
      const lineA = expected.getLine(y)!;
      const lineB = actual.getLine(y)!;
      if (lineA.isWrapped !== lineB.isWrapped) return [`${expected.type} line ${y} wrapped ${lineA.isWrapped}`];
      for (let x = 0; x < cols; x++) {
        const cellA = describeCell(lineA.getCell(x, a)!);
        const cellB = describeCell(lineB.getCell(x, b)!);
        if (cellA !== cellB) return [`${expected.type} (${x},${y}): ${cellA} | ${cellB}`];
      }
    }
    return [];
  }

  test("a screen that forgets the head of long plain runs ends the same as one that parses every byte", () => {
    const encoder = new TextEncoder();
    for (let seed = 1; seed <= 40; seed++) {
      const r = random(seed);
      const rows = 4 + r.int(9);
      const cols = 10 + r.int(50);
      const scrollback = r.pick([0, 20, 100]);
      let text = "";
      for (let segment = 0; segment < 60; segment++) {
        text += r.next() < 0.5 ? plainText(r, r.int(r.next() < 0.3 ? 6 * (2 * rows + scrollback) : 20)) : sequence(r, rows, cols);
      }
      const lazy = new Screen({ cols, rows, scrollback, compactAt: 64 + r.int(2048) });
      const eager = new Screen({ cols, rows, scrollback, compactAt: Infinity });
      cleanups.push(
        () => lazy.dispose(),
        () => eager.dispose(),
      );
      const replies = { lazy: [] as string[], eager: [] as string[] };
      lazy.onReply((d) => replies.lazy.push(d));
      eager.onReply((d) => replies.eager.push(d));
      for (const chunk of chunksOf(encoder.encode(text), r, 4096)) {
        lazy.write(chunk);
        eager.write(chunk);
        void eager.flushed();
        // A read now and then, as `ls` or an event would: from the backlog when it can, else parsing what waits.
        if (r.next() < 0.02) {
          const at = `seed ${seed} (${cols}x${rows}, scrollback ${scrollback})`;
          expect({ at, preview: lazy.previewLine(), history: lazy.historyLines(1000) }).toEqual({
            at,
            preview: eager.previewLine(),
            history: eager.historyLines(1000),
          });
        }
      }
      const context = `seed ${seed} (${cols}x${rows}, scrollback ${scrollback})`;
      expect({ context, serialized: lazy.serializeForAttach() }).toEqual({ context, serialized: eager.serializeForAttach() });
      const terms = { lazy: (lazy as unknown as { term: Core }).term, eager: (eager as unknown as { term: Core }).term };
      const differences = [
        ...bufferDifferences(terms.eager.buffer.normal, terms.lazy.buffer.normal, cols),
        ...bufferDifferences(terms.eager.buffer.alternate, terms.lazy.buffer.alternate, cols),
      ];
      expect({ context, differences }).toEqual({ context, differences: [] });
      expect({ context, modes: terms.lazy.modes, active: terms.lazy.buffer.active.type }).toEqual({
        context,
        modes: terms.eager.modes,
        active: terms.eager.buffer.active.type,
      });
      expect({ context, replies: replies.lazy }).toEqual({ context, replies: replies.eager });
      expect({ context, lines: lazy.logicalLines() }).toEqual({ context, lines: eager.logicalLines() });
    }
  });

  test("whatever stood before a long plain run, forgetting its head leaves what parsing all of it leaves", () => {
    const before = [
      ["old content with the cursor at the top", `${`${CSI}1m${"OLD ".repeat(30)}\r\n`.repeat(6)}${CSI}H`],
      ["a long line left unfinished on the bottom row", `${"\r\n".repeat(10)}${CSI}7mOLD-LONG-LINE-`],
      ["a scroll region, the cursor above it", `${CSI}2;3r`],
      ["the alternate screen", `${CSI}?1049h${CSI}5;1HALT`],
      ["an OSC left open", "\x1b]0;a title that goes on"],
      ["a CSI cut short", `${CSI}3`],
      ["a C1 control cut short (its lead byte, then CSI 1 m)", ""],
      ["insert mode and no autowrap", `${CSI}4h${CSI}?7l`],
    ];
    const encoder = new TextEncoder();
    for (const [what, prefix] of before) {
      for (const scrollback of [0, 3, 50]) {
        const rows = 6;
        const lazy = new Screen({ cols: 30, rows, scrollback, compactAt: 64 });
        const eager = new Screen({ cols: 30, rows, scrollback, compactAt: Infinity });
        cleanups.push(
          () => lazy.dispose(),
          () => eager.dispose(),
        );
        let flood = "";
        for (let i = 0; i < 20 * (2 * rows + scrollback); i++) flood += i % 7 === 0 ? `long line ${i} ${"=".repeat(40)}\r\n` : `l${i}\r\n`;
        const c1 = what!.startsWith("a C1 control");
        const bytes = c1
          ? [new Uint8Array([0xc2]), new Uint8Array([0x9b, 0x31, 0x6d, ...encoder.encode(flood)])]
          : [encoder.encode(prefix!), encoder.encode(`\xad${flood}`)];
        // Never compacted: its whole backlog waits, read from its tail when the state allows.
        const unread = new Screen({ cols: 30, rows, scrollback, compactAt: Infinity });
        cleanups.push(() => unread.dispose());
        for (const chunk of bytes) for (const screen of [lazy, eager, unread]) screen.write(chunk);
        const context = `${what}, scrollback ${scrollback}`;
        void eager.flushed();
        const reads = (screen: Screen) => ({ context, preview: screen.previewLine(), history: screen.historyLines(1000) });
        expect(reads(unread)).toEqual(reads(eager));
        expect(reads(lazy)).toEqual(reads(eager));
        expect({ context, text: lazy.text(1000), screen: lazy.serializeForAttach() }).toEqual({
          context,
          text: eager.text(1000),
          screen: eager.serializeForAttach(),
        });
      }
    }
  });

  const backlogBytes = (screen: Screen) => (screen as unknown as { backlog: { bytes: number } }).backlog.bytes;

  test("the history of a long plain run is read from the backlog without parsing it, line for line as parsing gives it", () => {
    const cols = 30;
    const lazy = new Screen({ cols, rows: 6, scrollback: 50, compactAt: 256 });
    const eager = new Screen({ cols, rows: 6, scrollback: 50, compactAt: Infinity });
    cleanups.push(
      () => lazy.dispose(),
      () => eager.dispose(),
    );
    let text = "";
    // Lines shorter than a row, exactly a row, wrapped over several rows, blank, with trailing spaces.
    for (let i = 0; i < 400; i++)
      text += `${i}:${"abcdefghij".repeat(i % 9).slice(0, [5, 28, 30, 31, 60, 61, 95, 0, 3][i % 9])}${i % 5 === 0 ? "   " : ""}\r\n`;
    for (const screen of [lazy, eager]) {
      screen.write(new TextEncoder().encode(text));
      screen.write(new TextEncoder().encode("a line the cursor is still on"));
    }
    void eager.flushed();
    const waiting = backlogBytes(lazy);
    for (const limit of [0, 1, 7, 56, 2000]) expect({ limit, lines: lazy.historyLines(limit) }).toEqual({ limit, lines: eager.historyLines(limit) });
    // Still unparsed: the history did not fill the emulator.
    expect(backlogBytes(lazy)).toBe(waiting);
    expect(waiting).toBeGreaterThan(0);
    expect(lazy.serializeForAttach()).toBe(eager.serializeForAttach());
  });

  test("history read between plain runs and sequences, whatever they hold, is the history parsing every byte gives", () => {
    const encoder = new TextEncoder();
    const ascii = ["word", "x", " ", "  ", "0123456789", "a".repeat(50), "b".repeat(13)];
    let fromBacklog = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const r = random(seed);
      const rows = 4 + r.int(9);
      const cols = 10 + r.int(50);
      const scrollback = r.pick([0, 20, 100]);
      // Half the cases print ASCII lines only (what the backlog answers), half anything plain.
      const pieces = seed % 2 ? ascii : PIECES;
      const endings = seed % 2 ? ["\r\n", "\r\n", "\r\n", "\r\r\n"] : ENDINGS;
      let text = "";
      for (let segment = 0; segment < 30; segment++) {
        if (r.next() < 0.6) {
          for (let i = r.int(r.next() < 0.5 ? 6 * (2 * rows + scrollback) : 20); i > 0; i--) {
            for (let p = r.int(6); p > 0; p--) text += r.pick(pieces);
            text += r.pick(endings);
          }
        } else text += sequence(r, rows, cols);
      }
      const lazy = new Screen({ cols, rows, scrollback, compactAt: 64 + r.int(2048) });
      const eager = new Screen({ cols, rows, scrollback, compactAt: Infinity });
      cleanups.push(
        () => lazy.dispose(),
        () => eager.dispose(),
      );
      const context = `seed ${seed} (${cols}x${rows}, scrollback ${scrollback})`;
      for (const chunk of chunksOf(encoder.encode(text), r, 4096)) {
        lazy.write(chunk);
        eager.write(chunk);
        if (r.next() < 0.05) {
          const waiting = backlogBytes(lazy);
          const limit = r.pick([0, 1, rows, scrollback + rows, 5000]);
          expect({ context, limit, lines: lazy.historyLines(limit) }).toEqual({ context, limit, lines: eager.historyLines(limit) });
          if (waiting > 0 && backlogBytes(lazy) === waiting) fromBacklog++;
        }
      }
      expect({ context, lines: lazy.historyLines(5000) }).toEqual({ context, lines: eager.historyLines(5000) });
      expect({ context, screen: lazy.serializeForAttach() }).toEqual({ context, screen: eager.serializeForAttach() });
    }
    // The backlog answered often enough for the comparison to mean something.
    expect(fromBacklog).toBeGreaterThan(10);
  });

  test("a long plain run is parsed only in its tail: the backlog stays bounded and the screen is right", () => {
    const screen = newScreen(80, 24, 100);
    const twin = newScreen(80, 24, 100);
    const line = new TextEncoder().encode(`${"0123456789".repeat(7)}\r\n`);
    const chunk = new Uint8Array(line.length * 2000);
    for (let i = 0; i < 2000; i++) chunk.set(line, i * line.length);
    for (let i = 0; i < 100; i++) screen.write(chunk);
    // Under 1 MB of the 14 MB wait; the rest was never parsed.
    expect((screen as unknown as { backlog: { bytes: number } }).backlog.bytes).toBeLessThan(1024 * 1024);
    twin.write(`${"0123456789".repeat(7)}\r\n`.repeat(200));
    expect(screen.text(1000)).toBe(twin.text(1000));
    expect(screen.serializeForAttach()).toBe(twin.serializeForAttach());
  });
});

describe("the emulator is made only when something needs it", () => {
  /** Whether the screen has made its xterm yet (private: what a silent task costs the daemon is this). */
  const hasEmulator = (screen: Screen) => (screen as unknown as { emulator: unknown }).emulator != null;

  test("a task that has printed nothing holds no emulator, and its blank screen reads as a fresh terminal's", () => {
    const silent = newScreen(80, 24, 100);
    const fresh = newScreen(80, 24, 100);
    fresh.text();
    expect(hasEmulator(fresh)).toBe(true);
    expect({ preview: silent.previewLine(), history: silent.historyLines(100), fullScreen: silent.fullScreen() }).toEqual({
      preview: fresh.previewLine(),
      history: fresh.historyLines(100),
      fullScreen: fresh.fullScreen(),
    });
    expect({ preview: silent.previewLine(), history: silent.historyLines(100), fullScreen: silent.fullScreen() }).toEqual({
      preview: "",
      history: [],
      fullScreen: false,
    });
    expect(hasEmulator(silent)).toBe(false);
  });

  test("plain text nobody reads makes no emulator, even past the size at which its head is forgotten", () => {
    const screen = new Screen({ cols: 30, rows: 6, scrollback: 10, compactAt: 64 });
    cleanups.push(() => screen.dispose());
    for (let i = 0; i < 500; i++) screen.write(new TextEncoder().encode(`line ${i}\r\n`));
    expect(hasEmulator(screen)).toBe(false);
    // The history writer reads such a task from its backlog alone, still without an emulator.
    expect(screen.historyLines(3)).toEqual(["line 497", "line 498", "line 499"]);
    expect(hasEmulator(screen)).toBe(false);
    // So do the previews `ls`, the dashboard and run's moment of watching ask for again and again.
    expect(screen.previewLine()).toBe("line 499");
    expect(hasEmulator(screen)).toBe(false);
    expect(screen.text(2)).toBe("line 498\nline 499");
    expect(hasEmulator(screen)).toBe(true);
  });

  test("a key typed into a task that printed only plain text makes no emulator: its input modes are a fresh terminal's", () => {
    const plain = new Screen({ cols: 30, rows: 6, scrollback: 10, compactAt: 64 });
    const parsed = new Screen({ cols: 30, rows: 6, scrollback: 10, compactAt: 64 });
    cleanups.push(
      () => plain.dispose(),
      () => parsed.dispose(),
    );
    for (const screen of [plain, parsed]) for (let i = 0; i < 50; i++) screen.write(new TextEncoder().encode(`line ${i}\r\n`));
    parsed.text();
    expect(plain.inputModes()).toEqual(parsed.inputModes());
    expect(plain.inputModes()).toEqual({ bracketedPaste: false, applicationCursorKeys: false });
    expect(hasEmulator(plain)).toBe(false);
    // A mode set by the task is a sequence, which makes the emulator: its modes are then read from it.
    plain.write(new TextEncoder().encode(`${CSI}?2004h${CSI}?1h`));
    expect(plain.inputModes()).toEqual({ bracketedPaste: true, applicationCursorKeys: true });
  });

  test("the history of a task that printed a few plain lines is read from them, as parsing gives it, making no emulator", () => {
    const texts = ["go\r\n", "one\r\n\r\ntwo   \r\nthree without its line feed", `${"w".repeat(75)}\r\nafter a wrapped line\r\n`, "x".repeat(30)];
    for (const text of texts) {
      const lazy = new Screen({ cols: 30, rows: 6, scrollback: 10, compactAt: 64 });
      const eager = new Screen({ cols: 30, rows: 6, scrollback: 10, compactAt: 64 });
      cleanups.push(
        () => lazy.dispose(),
        () => eager.dispose(),
      );
      for (const screen of [lazy, eager]) screen.write(new TextEncoder().encode(text));
      eager.text();
      for (const limit of [1, 3, 100]) expect({ text, limit, lines: lazy.historyLines(limit) }).toEqual({ text, limit, lines: eager.historyLines(limit) });
      expect(hasEmulator(lazy)).toBe(false);
    }
  });

  test("a flood read before its head is forgotten is previewed from its backlog, not parsed", () => {
    const screen = new Screen({ cols: 30, rows: 6, scrollback: 10, compactAt: 1 << 20 });
    cleanups.push(() => screen.dispose());
    for (let i = 0; i < 500; i++) screen.write(new TextEncoder().encode(`line ${i}\r\n`));
    expect(screen.previewLine()).toBe("line 499");
    expect(screen.historyLines(2)).toEqual(["line 498", "line 499"]);
    expect(hasEmulator(screen)).toBe(false);
  });

  test("a screen resized before its first byte draws as one made at the new size", () => {
    const resized = newScreen(80, 24, 100);
    resized.resize(100, 30);
    const made = newScreen(100, 30, 100);
    const bytes = `${CSI}2J${CSI}30;90Hbottom right${CSI}1;1H${CSI}31mtop left\r\n${"x".repeat(150)}`;
    resized.write(bytes);
    made.write(bytes);
    expect(resized.serializeForAttach()).toBe(made.serializeForAttach());
    expect(resized.text()).toBe(made.text());
  });

  test("a query in the first byte a task prints is answered, the emulator made to answer it", async () => {
    const screen = newScreen(80, 24, 100);
    const replies: string[] = [];
    screen.onReply((reply) => replies.push(reply));
    expect(hasEmulator(screen)).toBe(false);
    screen.write(new TextEncoder().encode(`${CSI}6n`));
    await screen.flushed();
    expect(replies).toEqual([`${CSI}1;1R`]);
  });
});
