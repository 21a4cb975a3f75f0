// History without a daemon: the lines an emulator gives (wrapped rows joined, the last N), the lines
// a follower is given as a program completes them, the history file and its marker, the directories
// a prune removes, how recipes carry a history key, grep's groups and the pager's command.
import { describe, expect, test } from "bun:test";
import { Buffer } from "node:buffer";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Screen } from "../../src/term-screen.ts";
import { FinishedScreen } from "../../src/term-screen-finished.ts";
import {
  MAX_HISTORY_BYTES,
  decodeHistory,
  encodeHistory,
  historyDirName,
  historyDirsToPrune,
  historyPathFor,
  restoredMarker,
  withRestored,
} from "../../src/recipe-history.ts";
import { formatRecipe, parseRecipe } from "../../src/recipe.ts";
import { loadRecipe } from "../../src/recipe-sessions.ts";
import { latestSnapshot } from "../../src/recipe-snapshots.ts";
import { grepLines } from "../../src/text-grep.ts";
import { pagerCommand } from "../../src/ui-history-pager.ts";
import { seededRandom } from "../harness/helpers.ts";

async function screenWith(output: string, size = { cols: 20, rows: 5, scrollback: 50 }): Promise<Screen> {
  const screen = new Screen(size);
  screen.write(output);
  await screen.flushed();
  return screen;
}

describe("history from the emulator", () => {
  test("a long line the terminal wrapped comes back as the one line the program wrote", async () => {
    const long = `${"x".repeat(45)} end`;
    const screen = await screenWith(`first\r\n${long}\r\nlast\r\n`);
    expect(screen.historyLines(100)).toEqual(["first", long, "last"]);
    screen.dispose();
  });

  test("the last N lines of scrollback and screen, blank lines at the end left out, blank lines inside kept", async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
    const screen = await screenWith(`${lines.slice(0, 20).join("\r\n")}\r\n\r\n${lines.slice(20).join("\r\n")}\r\n`);
    expect(screen.historyLines(21)).toEqual(["", ...lines.slice(20)]);
    expect(screen.historyLines(3)).toEqual(lines.slice(-3));
    screen.dispose();
  });

  test("a full-screen program's screen follows the normal buffer's lines", async () => {
    const screen = await screenWith("shell line\r\n$ top\r\n\x1b[?1049h\x1b[H\x1b[2JTOP SCREEN\r\nrow two");
    expect(screen.historyLines(100)).toEqual(["shell line", "$ top", "TOP SCREEN", "row two"]);
    screen.dispose();
  });

  test("styled lines keep their colours, each change a complete SGR, reset at the end", async () => {
    const screen = await screenWith("\x1b[31mred\x1b[0m plain \x1b[1;44mbold on blue\x1b[0m\r\n");
    expect(screen.historyLines(10, true)).toEqual(["\x1b[0;31mred\x1b[0m plain \x1b[0;1;44mbold on blue\x1b[0m"]);
    screen.dispose();
  });

  test("a finished screen gives the same lines, and its colours by replaying what it kept", async () => {
    const screen = await screenWith(`plain\r\n\x1b[32mgreen ${"g".repeat(30)}\x1b[0m\r\n`);
    const live = screen.historyLines(10);
    const styled = screen.historyLines(10, true);
    const finished = await new Promise<FinishedScreen>((resolve) => screen.finish((state) => resolve(new FinishedScreen(state))));
    expect(finished.historyLines(10)).toEqual(live);
    expect(await finished.styledHistoryLines(10)).toEqual(styled);
  });
});

describe("lines as a program completes them (logs --follow)", () => {
  async function follow(before: string, after: string[], size = { cols: 20, rows: 5, scrollback: 100 }) {
    const screen = await screenWith(before, size);
    const given: string[] = [];
    const watch = await screen.followLines((line) => given.push(line));
    for (const chunk of after) screen.write(chunk);
    await screen.flushed();
    const unfinished = watch.unfinished();
    watch.stop();
    screen.dispose();
    return { history: watch.history, given, unfinished };
  }

  test("the complete lines so far, then each line once, the unfinished one at the end", async () => {
    const r = await follow("one\r\ntwo\r\nthr", ["ee\r\nfour\r\n", "five"]);
    expect(r).toEqual({ history: ["one", "two"], given: ["three", "four"], unfinished: "five" });
  });

  test("a progress bar redrawn with CR is given in its last state, a wrapped line whole", async () => {
    const long = "w".repeat(50);
    const r = await follow("", ["10%\r20%\r100% done\r\n", `${long}\r\n`]);
    expect(r.given).toEqual(["100% done", long]);
  });

  test("rows a program moves up to redraw are not given again; a clear starts a new page", async () => {
    const r = await follow("", ["a\r\nb\r\nc\r\n", "\x1b[3A\rA again\r\nB again\r\nC again\r\n", "d\r\n", "\x1b[H\x1b[2Jafter clear\r\n"]);
    expect(r.given).toEqual(["a", "b", "c", "d", "after clear"]);
  });

  test("lines that scroll inside a scroll region are each given (a status line below, as apt draws)", async () => {
    const r = await follow("\x1b[1;4r\x1b[5;1Hstatus line\x1b[4;1H", ["r1\r\nr2\r\nr3\r\nr4\r\nr5\r\nr6\r\n"]);
    expect(r.given).toEqual(["r1", "r2", "r3", "r4", "r5", "r6"]);
  });

  test("a full-screen program on the alternate screen gives no lines; the shell's lines around it do", async () => {
    const r = await follow("", ["before\r\n", "\x1b[?1049h\x1b[Hmenu\r\nitem\r\n\x1b[?1049l", "after\r\n"]);
    expect(r.given).toEqual(["before", "after"]);
  });

  test("plain output is given the moment a line feed completes it, and a long run of it loses no line", async () => {
    // A screen parses plain text lazily and forgets the head of a long run (term-screen.ts); not while it is followed.
    const screen = new Screen({ cols: 20, rows: 5, scrollback: 10, compactAt: 64 });
    const bytes = (text: string) => new TextEncoder().encode(text);
    const waiting = () => (screen as unknown as { backlog: { bytes: number } }).backlog.bytes;
    const given: string[] = [];
    const watch = await screen.followLines((line) => given.push(line));
    screen.write(bytes("one\r\n"));
    expect(given).toEqual(["one"]);
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i}`);
    for (const line of lines) screen.write(bytes(`${line}\r\n`));
    expect(given).toEqual(["one", ...lines]);
    watch.stop();
    watch.stop();
    screen.write(bytes("after\r\n"));
    expect(waiting()).toBeGreaterThan(0);
    expect(screen.historyLines(1)).toEqual(["after"]);
    screen.dispose();
  });

  test("whatever the chunks, the history and the lines given are every line once, in order (seeded)", async () => {
    const random = seededRandom(18);
    for (let round = 0; round < 20; round++) {
      const lines = Array.from({ length: 300 }, (_, i) => `r${round} line ${i + 1}${i % 37 === 0 ? "-".repeat(30) : ""}`);
      const output = lines.map((l) => `${l}\r\n`).join("");
      const split = Math.floor(random() * output.length);
      const chunks: string[] = [];
      for (let at = split; at < output.length; ) {
        const size = 1 + Math.floor(random() * 200);
        chunks.push(output.slice(at, at + size));
        at += size;
      }
      const r = await follow(output.slice(0, split), chunks, { cols: 20, rows: 5, scrollback: 1000 });
      expect({ round, lines: [...r.history, ...r.given] }).toEqual({ round, lines });
    }
  });
});

describe("the history file", () => {
  const at = new Date("2026-11-30T14:02:51.250Z");

  test("round trip: a header with the time of the write, then one line per line", () => {
    const text = encodeHistory(["one", "", "three ✓"], at);
    expect(text).toBe("fleetcom history 1 2026-11-30T14:02:51.250Z\none\n\nthree ✓\n");
    expect(decodeHistory(text)).toEqual({ writtenAt: at, lines: ["one", "", "three ✓"] });
  });

  test("at most MAX_HISTORY_BYTES: the newest lines are kept", () => {
    const line = "y".repeat(1000);
    const text = encodeHistory(
      Array.from({ length: 3000 }, (_, i) => `${i} ${line}`),
      at,
    );
    expect(text.length).toBeLessThanOrEqual(MAX_HISTORY_BYTES);
    expect(decodeHistory(text)!.lines.at(-1)).toStartWith("2999 ");
  });

  test("the 4 MiB are real UTF-8 bytes: 60,000 lines of 118 ASCII characters keep about 4 MiB, never more", () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `${String(i).padStart(6, "0")} ${"y".repeat(111)}`);
    const kept = Buffer.byteLength(encodeHistory(lines, at).replace(/^.*\n/, ""), "utf8");
    expect(kept).toBeLessThanOrEqual(MAX_HISTORY_BYTES);
    // Within one line of the cap (it used to keep a third: 3 bytes counted per UTF-16 unit).
    expect(kept).toBeGreaterThan(MAX_HISTORY_BYTES - 119);
  });

  test("a line of wide characters counts its three bytes each, so the cap holds for them too", () => {
    const lines = Array.from({ length: 20_000 }, () => "✓".repeat(100));
    const kept = Buffer.byteLength(encodeHistory(lines, at).replace(/^.*\n/, ""), "utf8");
    expect(kept).toBeLessThanOrEqual(MAX_HISTORY_BYTES);
    expect(kept).toBeGreaterThan(MAX_HISTORY_BYTES - 301);
  });

  test("anything else is not a history file; controls in a file edited by hand are dropped", () => {
    expect(decodeHistory("")).toBeNull();
    expect(decodeHistory('{"version":1}\n')).toBeNull();
    expect(decodeHistory("fleetcom history 2 2026-11-30T14:02:51.250Z\nx\n")).toBeNull();
    expect(decodeHistory("fleetcom history 1 2026-11-30T14:02:51.250Z\n\x1b]52;c;AAAA\x07evil\x9b\n")!.lines).toEqual(["]52;c;AAAAevil"]);
    // A line cut short (no newline after it) is left out.
    expect(decodeHistory("fleetcom history 1 2026-11-30T14:02:51.250Z\nwhole\ncut sho")!.lines).toEqual(["whole"]);
  });

  test("the marker names the minute of the write, in UTC", () => {
    expect(restoredMarker(at)).toBe("── restored from before 2026-11-30 14:02 UTC ──");
  });

  test("restored lines sit above the marker and the task's own lines, within the limit", () => {
    const restored = { lines: ["old 1", "old 2", "old 3"], writtenAt: at };
    expect(withRestored(restored, ["new 1"], 10)).toEqual(["old 1", "old 2", "old 3", restoredMarker(at), "new 1"]);
    expect(withRestored(restored, ["new 1", "new 2"], 4)).toEqual(["old 3", restoredMarker(at), "new 1", "new 2"]);
    expect(withRestored(null, ["a", "b", "c"], 2)).toEqual(["b", "c"]);
  });

  test("a key is a task id; a history path is beside its snapshot, and nothing else", () => {
    expect(historyDirName("20261129T210433Z-48213.json")).toBe("20261129T210433Z-48213.history");
    expect(historyPathFor("/r/20261129T210433Z-48213.json", "7")).toBe("/r/20261129T210433Z-48213.history/7.txt.gz");
    for (const bad of ["../7", "0", "07", "a", "", "7/../../x", "12345678901"])
      expect({ bad, path: historyPathFor("/r/x.json", bad) }).toEqual({ bad, path: null });
  });
});

describe("pruning history directories", () => {
  const snap = "20261129T210433Z-48213";
  const live = (pid: number) => (s: { pid: number }) => s.pid === pid;

  test("a directory goes with its snapshot, stays while its snapshot does, and never while its writer lives", () => {
    expect(historyDirsToPrune([`${snap}.json`, `${snap}.history`], live(0))).toEqual([]);
    expect(historyDirsToPrune([`${snap}.history`], live(0))).toEqual([`${snap}.history`]);
    expect(historyDirsToPrune([`${snap}.history`], live(48213))).toEqual([]);
  });

  test("with history off every dead writer's directory goes; strangers are never touched", () => {
    const names = [`${snap}.json`, `${snap}.history`, "notes.history", "x.history", "20261329T210433Z-1.history", ".fleetcom-1-ab.tmp"];
    expect(historyDirsToPrune(names, live(0), true)).toEqual([`${snap}.history`]);
    expect(historyDirsToPrune(names, live(48213), true)).toEqual([]);
  });
});

describe("recipes and history keys", () => {
  const ctx = { home: "/home/u", cwd: "/home/u" };

  test("a snapshot entry carries its key; a session without one is written as before", () => {
    const withKey = formatRecipe("autosaved", [{ dir: "/home/u", cmd: "make", group: null, name: null, history: "3" }], "/home/u");
    expect(JSON.parse(withKey).dirs["~"]).toEqual([{ cmd: "make", history: "3" }]);
    expect(parseRecipe(withKey, "f", ctx).entries).toEqual([{ dir: "/home/u", cmd: "make", group: null, name: null, history: "3" }]);
    const plain = formatRecipe("work", [{ dir: "/home/u", cmd: "make", group: null, name: null }], "/home/u");
    expect(JSON.parse(plain).dirs["~"]).toEqual(["make"]);
  });

  test("a history member that is not a string is ignored like any other extra member", () => {
    const text = JSON.stringify({
      version: 1,
      name: "n",
      dirs: {
        "/w": [
          { cmd: "a", history: 3 },
          { cmd: "b", history: null },
        ],
      },
    });
    expect(parseRecipe(text, "f", ctx)).toEqual({
      name: "n",
      dropped: 0,
      problems: [],
      entries: [
        { dir: "/w", cmd: "a", group: null, name: null },
        { dir: "/w", cmd: "b", group: null, name: null },
      ],
    });
  });

  test("recover sends each key as the path of its file beside the snapshot; load of the same file sends none", () => {
    const root = mkdtempSync(join(tmpdir(), "fleetcom-history-"));
    try {
      const recovery = join(root, "sessions", "recovery");
      mkdirSync(recovery, { recursive: true });
      const name = "20261129T210433Z-48213.json";
      const body = JSON.stringify({ version: 1, name: "autosaved", dirs: { [root]: [{ cmd: "a", history: "1" }, { cmd: "b", history: "../../etc" }, "c"] } });
      writeFileSync(join(recovery, name), body);
      const env = { FLEETCOM_CONFIG_DIR: root, HOME: root };
      const recovered = latestSnapshot(null, env, root);
      expect(recovered.entries.map((e) => e.history)).toEqual([join(recovery, "20261129T210433Z-48213.history", "1.txt.gz"), undefined, undefined]);
      const loaded = loadRecipe(join(recovery, name), root, env);
      expect(loaded.entries.map((e) => "history" in e)).toEqual([false, false, false]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("grep's groups", () => {
  const lines = ["a", "match 1", "b", "c", "d", "e", "match 2", "match 3", "f", "g"];
  const isMatch = (l: string) => l.startsWith("match");

  test("without context, the matching lines, numbered from 1", () => {
    expect(grepLines(lines, isMatch).map((g) => g.map((l) => `${l.number}:${l.text}`))).toEqual([["2:match 1"], ["7:match 2", "8:match 3"]]);
  });

  test("context around each match; groups that touch or overlap merge, as grep -C prints them", () => {
    const groups = grepLines(lines, isMatch, 1).map((g) => g.map((l) => `${l.number}${l.match ? ":" : "-"}${l.text}`));
    expect(groups).toEqual([
      ["1-a", "2:match 1", "3-b"],
      ["6-e", "7:match 2", "8:match 3", "9-f"],
    ]);
    expect(grepLines(lines, isMatch, 2).length).toBe(1);
    expect(grepLines(lines, () => false, 3)).toEqual([]);
  });
});

describe("the pager", () => {
  test("the pager is $PAGER or less -R, and less starts at the end", () => {
    expect(pagerCommand(undefined)).toBe("less -R +G");
    expect(pagerCommand("  ")).toBe("less -R +G");
    expect(pagerCommand("/usr/bin/less -FRX")).toBe("/usr/bin/less -FRX +G");
    expect(pagerCommand("most")).toBe("most");
  });
});
