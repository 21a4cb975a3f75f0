// The one output sanitiser (printable), as a pure function: hostile inputs sit in the same tables as
// ordinary text that must pass unchanged.
import { describe, expect, test } from "bun:test";
import { lsTable } from "../../src/ui-format.ts";
import { cut } from "../../src/text-width.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import { isPrintable, logLine, printable, printableText } from "../../src/text-printable.ts";

/** Any character printable() must never let through. */
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
/** The same in multi-line output, where only the newlines between lines are the program's own. */
const UNSAFE_IN_LINES = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

describe("printable", () => {
  const shown: [string, string, string][] = [
    ["OSC 52 clipboard write", "a\x1b]52;c;cHduZWQ=\x07b", "a\\x1b]52;c;cHduZWQ=\\x07b"],
    ["OSC 0 title", "\x1b]0;owned\x1b\\", "\\x1b]0;owned\\x1b\\"],
    ["SGR", "\x1b[31mred", "\\x1b[31mred"],
    ["C1 CSI (U+009B)", "\u009b31mred", "\\x9b31mred"],
    ["C1 OSC and ST (U+009D, U+009C)", "\u009d52;c;eA==\u009c", "\\x9d52;c;eA==\\x9c"],
    ["C1 DCS, SOS, PM, APC", "\u0090\u0098\u009e\u009f", "\\x90\\x98\\x9e\\x9f"],
    ["every C1 control", "\u0080\u0085\u008d", "\\x80\\x85\\x8d"],
    ["NUL, BEL, BS, DEL", "\0\x07\x08\x7f", "\\x00\\x07\\x08\\x7f"],
    ["newline, CR and tab", "a\nb\rc\td", "a\\x0ab\\x0dc\\x09d"],
    ["right-to-left override", "evil\u202etxt.exe", "evil\\u202etxt.exe"],
    ["every bidi embedding and override", "\u202a\u202b\u202c\u202d\u202e", "\\u202a\\u202b\\u202c\\u202d\\u202e"],
    ["bidi isolates", "\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069"],
    ["bidi marks", "\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"],
    ["line and paragraph separators", "a\u2028b\u2029c", "a\\u2028b\\u2029c"],
  ];
  for (const [what, input, expected] of shown) {
    test(`shows ${what} escaped`, () => {
      expect(printable(input)).toBe(expected);
      expect(printable(input)).not.toMatch(UNSAFE);
      expect(isPrintable(input)).toBe(false);
    });
  }

  const unchanged: [string, string][] = [
    ["plain ASCII", "npm run dev -- --port 3000"],
    ["accents", "café crème"],
    ["CJK", "日本語のタスク"],
    ["emoji with a zero-width joiner and a variation selector", "👩‍💻 ✔️"],
    ["right-to-left text itself", "שלום עולם مرحبا"],
    ["a backslash and a literal \\x1b", "C:\\temp \\x1b"],
    ["no-break space and soft hyphen", "a\u00a0b\u00adc"],
  ];
  for (const [what, input] of unchanged) {
    test(`leaves ${what} as it is`, () => {
      expect(printable(input)).toBe(input);
      expect(isPrintable(input)).toBe(true);
    });
  }

  test("sanitising twice changes nothing", () => {
    for (const [, input] of shown) expect(printable(printable(input))).toBe(printable(input));
  });

  test("a cut taken after it never keeps half an escape sequence", () => {
    const hostile = "sleep 600 # \x1b[31m\x1b]52;c;cHduZWQ=\x07\u009b1m\u202e done";
    for (let width = 1; width <= 60; width++) expect(cut(printable(hostile), width)).not.toMatch(UNSAFE);
  });

  test("a daemon.log entry is one sanitised line, a stack trace's later lines indented", () => {
    const when = new Date("2026-01-02T03:04:05.000Z");
    expect(logLine("spawn sleep\x1b]0;t\x07", when)).toBe("2026-01-02T03:04:05.000Z spawn sleep\\x1b]0;t\\x07\n");
    expect(logLine("Error: x\n    at f (a.ts:1)\n2026-01-01T00:00:00.000Z forged", when)).toBe(
      "2026-01-02T03:04:05.000Z Error: x\n      at f (a.ts:1)\n  2026-01-01T00:00:00.000Z forged\n",
    );
  });
});

describe("the ls table", () => {
  const task = (over: Partial<TaskInfo>): TaskInfo =>
    ({
      id: 1,
      command: "sleep 600",
      typed: over.command ?? "sleep 600",
      name: null,
      group: null,
      cwd: "/srv",
      tagged: false,
      state: "running",
      idle: false,
      exitCode: null,
      signal: null,
      pid: 1,
      startedAt: new Date(0).toISOString(),
      endedAt: null,
      preview: "",
      ...over,
    }) as TaskInfo;

  test("shows command, directory, group and preview through printable, cut after it", () => {
    const table = lsTable(
      [
        task({ command: `sleep 600 # ${"x".repeat(30)}\x1b[31m\x1b]52;c;cHduZWQ=\x07`, cwd: "/d/x\x1b]0;t\x07\u202ey", group: "g\u009b1m" }),
        task({ id: 2, name: "web\u202e", preview: "ready\u2066" }),
      ],
      undefined,
      0,
    );
    expect(table).not.toMatch(UNSAFE_IN_LINES);
    expect(table).toContain("/d/x\\x1b]0;t\\x07\\u202ey");
    expect(table).toContain("g\\x9b1m");
    expect(table).toContain("web\\u202e");
    expect(table).toContain("ready\\u2066");
  });
});

describe("printableText: a daemon's many lines (peek, logs)", () => {
  const HOSTILE = "a\x1b]52;c;QQ==\x07b\x1b]0;title\x07\x1b[2J\x9b31m\x9d0;t\x07\u202ec\x1bP$qm\x1b\\\r\x00\x7f";

  test("keeps lines, tabs and text as they are", () => {
    for (const text of ["", "one\ntwo\n\nfour", "a\tb", "Ünïcödé 漢字 🎉 e\u0301"]) expect(printableText(text)).toBe(text);
  });

  test("escapes every other control, as printable does on one line", () => {
    const shown = printableText(`${HOSTILE}\n${HOSTILE}`);
    expect(shown).toBe(`${printable(HOSTILE)}\n${printable(HOSTILE)}`);
    expect(shown).not.toMatch(UNSAFE_IN_LINES);
  });

  test("with sgr keeps colour sequences and nothing else", () => {
    const shown = printableText(`\x1b[1;31mred\x1b[0m ${HOSTILE}\x1b[38:2:1:2:3m`, { sgr: true });
    expect(shown).toBe(`\x1b[1;31mred\x1b[0m ${printable(HOSTILE)}\x1b[38:2:1:2:3m`);
    expect(shown.replace(/\x1b\[[0-9;:]*m/g, "")).not.toMatch(UNSAFE_IN_LINES);
  });
});
