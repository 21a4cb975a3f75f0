// Where a JSON document goes wrong, for a one-line error (a recipe's, sessions.md): JSON.parse in
// Bun does not say, and the spec wants line and column.
import { printable } from "./text-printable.ts";

/** ` at line L, column C: what`, or "" when the scanner finds nothing wrong. */
export function describeJsonError(text: string): string {
  const problem = locateJsonError(text);
  if (!problem) return "";
  const { line, column } = lineAndColumn(text, problem.offset);
  return ` at line ${line}, column ${column}: ${problem.what}`;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  let line = 1;
  for (let i = before.indexOf("\n"); i !== -1; i = before.indexOf("\n", i + 1)) line++;
  return { line, column: Array.from(before.slice(lineStart)).length + 1 };
}

// --- locating a JSON syntax error ----------------------------------------------------------------
// This scanner only runs after JSON.parse has failed. It is iterative, so deep nesting cannot
// overflow the stack.

type JsonProblem = { offset: number; what: string };
type Expect = "value" | "valueOrEnd" | "key" | "keyOrEnd" | "colon" | "separator";
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

function locateJsonError(text: string): JsonProblem | null {
  const closers: string[] = [];
  let expect: Expect = "value";
  let i = 0;
  const fail = (what: string): JsonProblem => ({ offset: i, what });
  for (;;) {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
    if (i >= text.length) {
      return expect === "separator" && closers.length === 0 ? null : fail("unexpected end of file");
    }
    const c = text[i]!;
    if (expect === "separator") {
      if (closers.length === 0) return fail(`unexpected ${showChar(c)} after the end of the document`);
      const closer = closers.at(-1)!;
      if (c === closer) {
        closers.pop();
        i++;
      } else if (c === ",") {
        i++;
        expect = closer === "}" ? "key" : "value";
      } else return fail(`expected ',' or '${closer}', found ${showChar(c)}`);
    } else if (expect === "colon") {
      if (c !== ":") return fail(`expected ':', found ${showChar(c)}`);
      i++;
      expect = "value";
    } else if (expect === "key" || expect === "keyOrEnd") {
      if (expect === "keyOrEnd" && c === "}") {
        closers.pop();
        i++;
        expect = "separator";
      } else if (c !== '"') return fail(`expected a string key, found ${showChar(c)}`);
      else {
        const end = scanString(text, i);
        if (typeof end !== "number") return end;
        i = end;
        expect = "colon";
      }
    } else if (expect === "valueOrEnd" && c === "]") {
      closers.pop();
      i++;
      expect = "separator";
    } else if (c === "{" || c === "[") {
      closers.push(c === "{" ? "}" : "]");
      i++;
      expect = c === "{" ? "keyOrEnd" : "valueOrEnd";
    } else {
      const end = scanScalar(text, i);
      if (typeof end !== "number") return end;
      i = end;
      expect = "separator";
    }
  }
}

function scanScalar(text: string, i: number): number | JsonProblem {
  if (text[i] === '"') return scanString(text, i);
  for (const literal of ["true", "false", "null"]) if (text.startsWith(literal, i)) return i + literal.length;
  NUMBER.lastIndex = i;
  if (NUMBER.test(text)) return NUMBER.lastIndex;
  return { offset: i, what: `unexpected ${showChar(text[i]!)}` };
}

function scanString(text: string, start: number): number | JsonProblem {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') return i + 1;
    if (c === "\\") {
      ESCAPE.lastIndex = i;
      if (!ESCAPE.test(text)) return { offset: i, what: "invalid escape in string" };
      i = ESCAPE.lastIndex;
    } else if (c < " ") return { offset: i, what: `unescaped ${showChar(c)} in string` };
    else i++;
  }
  return { offset: start, what: "unterminated string" };
}

function showChar(c: string): string {
  return c < " " || c === "\x7f" ? `control character ${printable(c)}` : `'${printable(c)}'`;
}
