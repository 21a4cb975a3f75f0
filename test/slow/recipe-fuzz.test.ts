// Malformed recipes (quality.md): thousands of mutated files fed to the loader never crash it. Each
// one either loads, with a drop count and only well-formed entries, or fails with a one-line
// UserError naming the file. A smaller corpus goes through the real `load --dry-run`.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../src/errors.ts";
import { LABEL_MAX_CHARS } from "../../src/task-labels.ts";
import { decodeRecipe, parseRecipe, recipeEntry } from "../../src/recipe.ts";
import { makeSandbox, runFleetcom, seededRandom } from "../harness/helpers.ts";

const SEEDS = [
  { version: 1, name: "work/api", dirs: { "/tmp": ["top"], "~/work/api": ["cargo watch", { cmd: "cargo run", group: "api", name: "api server" }] } },
  { "/srv": ["a", { cmd: "b", name: "n" }], "~": ["c"], rel: ["d"], dirs: ["e"] },
  { version: 1, name: "x", dirs: { "/a": [{ cmd: "y", group: "g" }, "z", 1, null] } },
];

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

const WEIRD_VALUES: unknown[] = [
  0,
  2,
  -1,
  1.5,
  1e308,
  "1",
  "",
  null,
  true,
  false,
  [],
  {},
  [[]],
  { cmd: 1 },
  { cmd: "x", group: null },
  "\u0000\u001b[2J",
  "Unassigned",
  " \t ",
  "x".repeat(100_000),
  "🚀".repeat(100),
];

function randomValue(rng: Rng): unknown {
  return pick(rng, WEIRD_VALUES);
}

// Replace one value somewhere in the tree with a value of another type.
function flipType(doc: unknown, rng: Rng): unknown {
  if (typeof doc !== "object" || doc === null || rng() < 0.2) return randomValue(rng);
  const copy: any = Array.isArray(doc) ? [...doc] : { ...doc };
  const keys = Object.keys(copy);
  if (keys.length === 0) return randomValue(rng);
  const key = pick(rng, keys);
  copy[key] = flipType(copy[key], rng);
  return copy;
}

function nest(doc: unknown, rng: Rng): unknown {
  let value: unknown = "deep";
  const depth = Math.floor(rng() * 5000);
  for (let i = 0; i < depth; i++) value = rng() < 0.5 ? [value] : { cmd: value };
  return flipType({ ...(doc as object), [pick(rng, ["dirs", "/x", "version", "name"])]: value }, rng);
}

const NASTY_BYTES = [0x00, 0x01, 0x1b, 0x7f, 0x80, 0xc3, 0xe2, 0xf0, 0xff, 0xfe, 0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a];

// Delete, insert, duplicate or truncate at random offsets.
function mutateBytes(bytes: Uint8Array, rng: Rng): Uint8Array {
  let out = bytes;
  const edits = 1 + Math.floor(rng() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rng() * (out.length + 1));
    const kind = rng();
    const head = out.subarray(0, at);
    if (kind < 0.35) out = Buffer.concat([head, out.subarray(at + 1 + Math.floor(rng() * 8))]);
    else if (kind < 0.7) out = Buffer.concat([head, Uint8Array.of(pick(rng, NASTY_BYTES)), out.subarray(at)]);
    else if (kind < 0.85) out = Buffer.concat([head, out.subarray(at, at + Math.floor(rng() * 40)), out.subarray(at)]);
    else out = head;
  }
  return out;
}

const encode = (doc: unknown, rng: Rng) => new TextEncoder().encode(JSON.stringify(doc, null, Math.floor(rng() * 3)));

function mutatedRecipe(seed: number): Uint8Array {
  const rng = seededRandom(seed);
  const base = pick(rng, SEEDS);
  switch (Math.floor(rng() * 5)) {
    case 0:
      return encode(flipType(base, rng), rng);
    case 1:
      return new TextEncoder().encode(JSON.stringify(nest(base, rng))); // indented, depth would cost O(n²) bytes
    case 2:
      return encode({ ...base, version: randomValue(rng) }, rng);
    case 3:
      return mutateBytes(encode(flipType(base, rng), rng), rng);
    default:
      return mutateBytes(encode(base, rng), rng);
  }
}

const ctx = { home: "/home/u", cwd: "/work/here" };

function checkOutcome(bytes: Uint8Array, file: string): "loaded" | "refused" {
  try {
    const recipe = parseRecipe(decodeRecipe(bytes, file), file, ctx);
    expect(recipe.dropped).toBeGreaterThanOrEqual(0);
    for (const entry of recipe.entries) {
      expect(recipeEntry.allows(entry)).toBe(true);
      expect(entry.dir.startsWith("/")).toBe(true);
      for (const label of [entry.group, entry.name]) {
        if (label === null) continue;
        expect(label).not.toMatch(/\p{Cc}/u);
        expect(Array.from(label).length).toBeLessThanOrEqual(LABEL_MAX_CHARS);
        expect(label).toBe(label.trim());
      }
      expect(entry.group).not.toBe("Unassigned");
    }
    return "loaded";
  } catch (error) {
    if (!(error instanceof UserError)) throw new Error(`${file}: not a UserError: ${String(error)}`);
    expect(error.message).not.toMatch(/[\n\r]/);
    expect(error.message).toContain(file);
    return "refused";
  }
}

function refusal(bytes: Uint8Array, file: string): string {
  try {
    parseRecipe(decodeRecipe(bytes, file), file, ctx);
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}

describe("malformed recipes", () => {
  test("3,000 mutated recipes each load with a drop count or fail with a one-line error naming the file", () => {
    const outcomes = { loaded: 0, refused: 0 };
    for (let seed = 1; seed <= 3000; seed++) outcomes[checkOutcome(mutatedRecipe(seed), `/fuzz/case-${seed}.json`)]++;
    // Both outcomes must actually occur, or the mutations are not exercising the loader.
    expect(outcomes.loaded).toBeGreaterThan(300);
    expect(outcomes.refused).toBeGreaterThan(300);
  }, 60_000);

  test("a hand-written corpus of broken files gives each file's known outcome", () => {
    const refused = (why: string) => ({ refused: why });
    const loaded = (entries: number, dropped: number) => ({ entries, dropped });
    const corpus: [string | Uint8Array, { refused: string } | { entries: number; dropped: number }][] = [
      ["", refused("invalid JSON")],
      [" ", refused("invalid JSON")],
      ["{", refused("invalid JSON")],
      ["}", refused("invalid JSON")],
      ["[]", refused("not a recipe")],
      ["null", refused("not a recipe")],
      ["0", refused("not a recipe")],
      ['"str"', refused("not a recipe")],
      ["{}", loaded(0, 0)],
      ['{"dirs": null}', loaded(0, 1)],
      ['{"dirs": []}', loaded(0, 0)],
      ['{"dirs": "x"}', loaded(0, 1)],
      ['{"dirs": {"/a": null}}', loaded(0, 1)],
      ['{"version": 1e400}', refused("unsupported recipe version")],
      ['{"version": -0}', refused("unsupported recipe version")],
      ['{"/a": [{"cmd": "x", "group": {}}]}', loaded(0, 1)],
      ["[".repeat(100_000), refused("invalid JSON")],
      ["{".repeat(50_000), refused("invalid JSON")],
      [`{"/a": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`, loaded(0, 1)],
      [`{"/a": ["${"\\u0000".repeat(1000)}"]}`, loaded(1, 0)],
      ['{"\u0000": ["x"]}', refused("invalid JSON")],
      [`{"${"k".repeat(100_000)}": ["x"]}`, loaded(1, 0)],
      [new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d]), refused("not valid UTF-8")],
      [new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x5b, 0x5d, 0x7d]), refused("not valid UTF-8")],
      ['{"/a": ["x"]} trailing', refused("invalid JSON")],
      ['{"/a": ["x"],}', refused("invalid JSON")],
      ["{'/a': ['x']}", refused("invalid JSON")],
      ['{"/a": ["\\x41"]}', refused("invalid JSON")],
      ['{"/a": [NaN]}', refused("invalid JSON")],
      ['{"__proto__": {"cmd": "x"}, "constructor": ["y"]}', loaded(1, 1)],
      ['{"version": 1, "version": 2}', refused("unsupported recipe version")],
      [`{"version": 2, "/a": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`, refused("unsupported recipe version 2")],
    ];
    corpus.forEach(([item, expected], i) => {
      const bytes = typeof item === "string" ? new TextEncoder().encode(item) : item;
      const file = `/corpus/${i}.json`;
      const outcome = checkOutcome(bytes, file);
      if ("refused" in expected) {
        expect({ i, outcome }).toEqual({ i, outcome: "refused" });
        expect(refusal(bytes, file)).toContain(expected.refused);
      } else {
        const recipe = parseRecipe(decodeRecipe(bytes, file), file, ctx);
        expect({ i, entries: recipe.entries.length, dropped: recipe.dropped }).toEqual({ i, ...expected });
      }
    });
  }, 60_000);
});

describe("malformed recipes through the real program", () => {
  const sb = makeSandbox();
  afterAll(() => sb.cleanup());

  test("load --dry-run on mutated files exits 0 with JSON or 1 with lines that each name the file (a line per dropped entry, then why nothing loads)", async () => {
    const files = Array.from({ length: 24 }, (_, i) => {
      const file = join(sb.root, `cli-${i}.json`);
      writeFileSync(file, mutatedRecipe(10_000 + i));
      return file;
    });
    for (let i = 0; i < files.length; i += 6) {
      const batch = files.slice(i, i + 6);
      const results = await Promise.all(batch.map((f) => runFleetcom(["load", "--dry-run", "--json", f], { env: sb.env })));
      results.forEach((r, j) => {
        const file = batch[j]!;
        if (r.code === 0) {
          expect(JSON.parse(r.stdout).file).toBe(file);
        } else {
          expect(r.code).toBe(1);
          for (const line of r.stderr.trimEnd().split("\n")) {
            expect(line).toStartWith("fleetcom: ");
            expect(line).toContain(file);
          }
        }
      });
    }
  }, 60_000);
});
