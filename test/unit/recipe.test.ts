// Every rule of sessions.md that is a pure function of its input: file names, the format, versions,
// the two shapes, tolerant loading and label normalisation. Each example in the spec is a case here.
import { describe, expect, test } from "bun:test";
import { normalizeGroup, normalizeName } from "../../src/task-labels.ts";
import { printable } from "../../src/text-printable.ts";
import { decodeRecipe, formatRecipe, parseRecipe, storedRecipe } from "../../src/recipe.ts";
import { sanitizeSessionName, sessionFileName } from "../../src/recipe-names.ts";
import { entry, thrown } from "../harness/helpers.ts";

const ctx = { home: "/home/u", cwd: "/work/here" };
const parse = (doc: unknown, file = "r.json") => parseRecipe(JSON.stringify(doc), file, ctx);

const SPEC_EXAMPLE = `{
  "version": 1,
  "name": "work/api",
  "dirs": {
    "/tmp": ["top"],
    "~/work/api": [
      "cargo watch -x test",
      { "cmd": "cargo run", "group": "api", "name": "api server" }
    ]
  }
}`;

const SPEC_EXAMPLE_ENTRIES = [
  entry("/tmp", "top"),
  entry("/home/u/work/api", "cargo watch -x test"),
  entry("/home/u/work/api", "cargo run", "api", "api server"),
];

describe("file names", () => {
  test("my/session is stored as my_session.json", () => {
    expect(sessionFileName("my/session")).toBe("my_session.json");
  });

  test("a.b is stored as a_b.json, so a name can never supply another extension", () => {
    expect(sessionFileName("a.b")).toBe("a_b.json");
    expect(sessionFileName("evil.sh")).toBe("evil_sh.json");
  });

  test('each of * " / \\ < > : | ? . becomes an underscore', () => {
    expect(sanitizeSessionName('a*b"c/d\\e<f>g:h|i?j.k')).toBe("a_b_c_d_e_f_g_h_i_j_k");
  });

  test("control characters become underscores", () => {
    expect(sanitizeSessionName("a\x00b\x1bc\x7fd\u0085e")).toBe("a_b_c_d_e");
  });

  test("other characters, spaces inside and non-ASCII letters are kept", () => {
    expect(sanitizeSessionName("work api — été 🚀")).toBe("work api — été 🚀");
  });

  test("leading and trailing whitespace is trimmed before sanitising", () => {
    expect(sanitizeSessionName("  \t my session \n ")).toBe("my session");
  });

  test("a name that is empty after trimming is refused as a usage error", () => {
    for (const name of ["", "   ", "\t\n"]) {
      const error = thrown(() => sanitizeSessionName(name));
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain("empty");
    }
  });

  test("the stem is cut to at most 250 UTF-8 bytes", () => {
    expect(sanitizeSessionName("x".repeat(300))).toBe("x".repeat(250));
  });

  test("the cut never splits a multi-byte character", () => {
    for (const char of ["é", "€", "🚀"]) {
      const stem = sanitizeSessionName(`a${char.repeat(200)}`);
      const bytes = Buffer.byteLength(stem);
      expect(bytes).toBeLessThanOrEqual(250);
      expect(bytes).toBeGreaterThan(250 - Buffer.byteLength(char));
      expect(stem).toBe(`a${char.repeat((bytes - 1) / Buffer.byteLength(char))}`);
    }
  });

  test("<stem>.json always fits in 255 bytes", () => {
    expect(Buffer.byteLength(sessionFileName("🚀".repeat(500)))).toBeLessThanOrEqual(255);
  });
});

describe("the wrapped format", () => {
  test("the spec's example loads as three commands in two directories", () => {
    const recipe = parseRecipe(SPEC_EXAMPLE, "r.json", ctx);
    expect(recipe).toEqual({ name: "work/api", entries: SPEC_EXAMPLE_ENTRIES, dropped: 0, problems: [] });
  });

  test("saving the spec's example writes a file that loads back to the same entries", () => {
    const text = formatRecipe("work/api", SPEC_EXAMPLE_ENTRIES, ctx.home);
    expect(storedRecipe.allows(JSON.parse(text))).toBe(true);
    expect(parseRecipe(text, "r.json", ctx)).toEqual({ name: "work/api", entries: SPEC_EXAMPLE_ENTRIES, dropped: 0, problems: [] });
  });

  test("output is 2-space indented JSON with version 1 and a trailing newline", () => {
    const text = formatRecipe("s", [entry("/tmp", "top")], ctx.home);
    expect(text).toBe('{\n  "version": 1,\n  "name": "s",\n  "dirs": {\n    "/tmp": [\n      "top"\n    ]\n  }\n}\n');
  });

  test("an entry with neither group nor name is a plain command string", () => {
    const doc = JSON.parse(formatRecipe("s", [entry("/tmp", "top")], ctx.home));
    expect(doc.dirs["/tmp"]).toEqual(["top"]);
  });

  test("an entry with a group or a name is an object holding only the members present", () => {
    const doc = JSON.parse(formatRecipe("s", [entry("/a", "x", "g"), entry("/a", "y", null, "n"), entry("/a", "z", "g", "n")], ctx.home));
    expect(doc.dirs["/a"]).toEqual([
      { cmd: "x", group: "g" },
      { cmd: "y", name: "n" },
      { cmd: "z", group: "g", name: "n" },
    ]);
  });

  test("a task's worktree is written with it and read back; one that is not a safe record fails the recipe, naming the file and entry", () => {
    const worktree = { repo: "/src/app", branch: "claude-2", path: "/src/app.worktrees/claude-2" };
    const text = formatRecipe("w", [{ ...entry(worktree.path, "claude"), worktree }], ctx.home);
    expect(JSON.parse(text).dirs[worktree.path]).toEqual([{ cmd: "claude", worktree }]);
    expect(parseRecipe(text, "w.json", ctx).entries).toEqual([{ ...entry(worktree.path, "claude"), worktree }]);
    const refused = (worktree: unknown) => () => parse({ "/x": [{ cmd: "claude", worktree }] });
    const words = { repo: "/src/app", branch: "feat/ok", path: "/x" };
    expect(parse({ "/x": [{ cmd: "claude", worktree: words }] }).entries[0]!.worktree).toEqual(words);
    for (const branch of [7, "--orphan", "-f", "a..b", "x/../../y", "@{-1}", "@", "a b", "nl\nx", "a.lock", "x/", ".x", "a//b", "a:b"])
      expect(refused({ ...words, branch })).toThrow(/the worktree of "claude" in \/x is refused/);
    for (const path of ["-f", "relative/x", "", "/x\n"]) expect(refused({ ...words, path })).toThrow(/is refused/);
    expect(refused({ ...words, repo: "--upload-pack=x" })).toThrow(/is refused/);
    // The branch it was made from (merge's target) is read back, and held to the same rules.
    expect(parse({ "/x": [{ cmd: "claude", worktree: { ...words, from: "main" } }] }).entries[0]!.worktree).toEqual({ ...words, from: "main" });
    for (const from of ["--orphan", "a..b", 7]) expect(refused({ ...words, from })).toThrow(/is refused/);
  });

  test("a snapshot's baseline is read back; one whose words could reach git as an option is dropped, the task kept", () => {
    const baseline = { top: "/src/app", commit: "a".repeat(40), ref: "refs/fleetcom/task-3-1a2b3c4d" };
    const text = formatRecipe("w", [{ ...entry("/src/app", "claude"), baseline }], ctx.home);
    expect(parseRecipe(text, "w.json", ctx).entries).toEqual([{ ...entry("/src/app", "claude"), baseline }]);
    const read = (b: unknown) => parse({ "/x": [{ cmd: "claude", baseline: b }] }).entries[0]!;
    for (const bad of [
      { ...baseline, ref: "--upload-pack=x" },
      { ...baseline, ref: "refs/heads/main" },
      { ...baseline, ref: "refs/fleetcom/../heads/main" },
      { ...baseline, commit: "--all" },
      { ...baseline, commit: "HEAD" },
      { ...baseline, top: "-C" },
      "refs/fleetcom/x",
    ]) {
      expect(read(bad).baseline).toBeUndefined();
      expect(read(bad).cmd).toBe("claude");
    }
  });

  test("a snapshot's checkpoints are read back; a list with one whose ref or commit could add a git command is dropped, the task kept", () => {
    const checkpoint = {
      n: 1,
      at: "2026-12-04T21:00:00.000Z",
      prompt: "fix it",
      files: 2,
      commit: "b".repeat(40),
      ref: "refs/fleetcom/task-3-1a2b3c4d-cp1",
      skipped: ["big.bin"],
    };
    const text = formatRecipe("w", [{ ...entry("/src/app", "claude"), checkpoints: [checkpoint] }], ctx.home);
    expect(parseRecipe(text, "w.json", ctx).entries).toEqual([{ ...entry("/src/app", "claude"), checkpoints: [checkpoint] }]);
    const read = (c: unknown) => parse({ "/x": [{ cmd: "claude", checkpoints: [checkpoint, c] }] }).entries[0]!;
    for (const bad of [
      { ...checkpoint, ref: "refs/fleetcom/x\ndelete refs/heads/main" },
      { ...checkpoint, ref: "refs/fleetcom/x refs/heads/main" },
      { ...checkpoint, ref: "refs/heads/main" },
      { ...checkpoint, commit: "--all" },
      { ...checkpoint, n: -1 },
      { ...checkpoint, skipped: [1] },
    ]) {
      expect(read(bad).checkpoints).toBeUndefined();
      expect(read(bad).cmd).toBe("claude");
    }
  });

  test("a task's max_memory is written exactly and read back; a byte count is taken; one that is no size fails the recipe, naming the file and entry", () => {
    const text = formatRecipe("m", [{ ...entry("/a", "server"), max_memory: "1536M" }], ctx.home);
    expect(JSON.parse(text).dirs["/a"]).toEqual([{ cmd: "server", max_memory: "1536M" }]);
    expect(parseRecipe(text, "m.json", ctx).entries).toEqual([{ ...entry("/a", "server"), max_memory: "1536M" }]);
    expect(parse({ "/a": [{ cmd: "x", max_memory: 2 * 1024 ** 3 }] }).entries[0]!.max_memory).toBe("2G");
    expect(parse({ "/a": [{ cmd: "x", max_memory: "512mb" }] }).entries[0]!.max_memory).toBe("512M");
    // A known member: read without a word of warning.
    expect(parseRecipe(text, "m.json", ctx).problems).toEqual([]);
    for (const bad of ["lots", "", 0, -5, true, { g: 2 }])
      expect(() => parse({ "/a": [{ cmd: "x", max_memory: bad }] })).toThrow(/max_memory of "x" in \/a is .*: expected a size such as "2G" or "512M"/);
  });

  test("a restart policy is written with its entry and read back; a recipe without one is written exactly as before", () => {
    const policy = { ...entry("/srv/api", "npm start", null, "api"), restart: "on-failure" as const, max_restarts: 3 };
    const text = formatRecipe("svc", [policy, entry("/srv/api", "top")], ctx.home);
    expect(JSON.parse(text).dirs["/srv/api"]).toEqual([{ cmd: "npm start", name: "api", restart: "on-failure", max_restarts: 3 }, "top"]);
    expect(parseRecipe(text, "svc.json", ctx).entries).toEqual([policy, entry("/srv/api", "top")]);
    // Saved, loaded and saved again, a recipe without a policy is the same bytes.
    const saved = formatRecipe("work/api", SPEC_EXAMPLE_ENTRIES, ctx.home);
    expect(formatRecipe("work/api", parseRecipe(saved, "r.json", ctx).entries, ctx.home)).toBe(saved);
    expect(saved).not.toContain("restart");
  });

  test("a restart field that is wrong fails the recipe, naming the file, the entry and the field, exit 2 as the service fields", () => {
    const wrong = thrown(() => parse({ dirs: { "~/app": ["top", { cmd: "x", restart: "sometimes" }] } }, "dev.json"));
    expect(wrong.message).toBe('dev.json: dirs["~/app"][1].restart: expected "no", "on-failure" or "always", got "sometimes"');
    expect(wrong.exitCode).toBe(2);
    expect(thrown(() => parse({ dirs: { "/a": [{ cmd: "x", restart: "always", max_restarts: -1 }] } }, "dev.json")).message).toBe(
      'dev.json: dirs["/a"][0].max_restarts: expected a whole number from 0 (no limit), got -1',
    );
  });

  test("both entry forms may be mixed in one array", () => {
    const recipe = parse({ dirs: { "/a": ["plain", { cmd: "obj", name: "n" }, "plain again"] } });
    expect(recipe.entries.map((e) => e.cmd)).toEqual(["plain", "obj", "plain again"]);
    expect(recipe.dropped).toBe(0);
  });

  test("the stored name is the name as typed, trimmed but not sanitised", () => {
    const doc = JSON.parse(formatRecipe("  work/api.v2  ", [entry("/tmp", "top")], ctx.home));
    expect(doc.name).toBe("work/api.v2");
  });

  test("$HOME is written as ~ and directories under it as ~/…", () => {
    const doc = JSON.parse(formatRecipe("s", [entry("/home/u", "a"), entry("/home/u/w/x", "b")], ctx.home));
    expect(Object.keys(doc.dirs)).toEqual(["~", "~/w/x"]);
  });

  test("directories outside $HOME stay absolute, even when they share its prefix", () => {
    const doc = JSON.parse(formatRecipe("s", [entry("/home/u2/x", "a"), entry("/srv", "b")], ctx.home));
    expect(Object.keys(doc.dirs)).toEqual(["/home/u2/x", "/srv"]);
  });

  test("directories are written in alphabetical order by code unit, not locale", () => {
    const entries = [entry("/b", "1"), entry("/a", "2"), entry("/B", "3"), entry("/home/u/z", "4"), entry("/10", "5")];
    const doc = JSON.parse(formatRecipe("s", entries, ctx.home));
    expect(Object.keys(doc.dirs)).toEqual(["/10", "/B", "/a", "/b", "~/z"]);
  });

  test("integer-like directory keys are still written in alphabetical order", () => {
    const text = formatRecipe("s", [entry("/x/b", "1"), entry("/x/a", "2")], "/x");
    expect(text.indexOf('"~/a"')).toBeLessThan(text.indexOf('"~/b"'));
  });

  test("commands keep their order within a directory, even when interleaved with other directories", () => {
    const entries = [entry("/a", "1"), entry("/b", "2"), entry("/a", "3"), entry("/a", "4")];
    const doc = JSON.parse(formatRecipe("s", entries, ctx.home));
    expect(doc.dirs["/a"]).toEqual(["1", "3", "4"]);
  });

  test("formatting the same fleet twice gives byte-identical text", () => {
    const entries = [...SPEC_EXAMPLE_ENTRIES, entry("/z", 'quote " and \\ and \n newline', "g", "ñ")];
    expect(formatRecipe("n", entries, ctx.home)).toBe(formatRecipe("n", structuredClone(entries), ctx.home));
  });
});

describe("directory keys on load", () => {
  test("a leading ~ expands to $HOME", () => {
    expect(parse({ "~": ["a"], "~/w": ["b"] }).entries.map((e) => e.dir)).toEqual(["/home/u", "/home/u/w"]);
  });

  test("a relative key resolves against the loading client's directory", () => {
    expect(parse({ "sub/dir": ["a"], "..": ["b"], ".": ["c"] }).entries.map((e) => e.dir)).toEqual(["/work/here/sub/dir", "/work", "/work/here"]);
  });

  test("~user is not expanded and resolves like any relative key", () => {
    expect(parse({ "~other/x": ["a"] }).entries[0]!.dir).toBe("/work/here/~other/x");
  });

  test("absolute keys are normalised but otherwise kept", () => {
    expect(parse({ "/a//b/../c/": ["a"] }).entries[0]!.dir).toBe("/a/c");
  });
});

describe("directory keys naming a host (docs/remote.md)", () => {
  const gpu1 = { name: "gpu1", home: "/home/far" };
  const withHosts = { ...ctx, host: (name: string) => (name === "gpu1" ? gpu1 : null) };
  const parseHosted = (doc: unknown) => parseRecipe(JSON.stringify(doc), "r.json", withHosts);

  test("an added host's name, then an absolute path or ~, is a directory on that host", () => {
    const { entries } = parseHosted({ "gpu1:/srv//train/": ["a"], "gpu1:~": ["b"], "gpu1:~/w": ["c"], "/here": ["d"] });
    expect(entries.map((e) => [e.host?.name ?? null, e.dir, e.cmd])).toEqual([
      ["gpu1", "/srv/train", "a"],
      ["gpu1", "/home/far", "b"],
      ["gpu1", "/home/far/w", "c"],
      [null, "/here", "d"],
    ]);
  });

  test("a prefix that is no added host, or a relative path after one, stays a path here as before", () => {
    const keys = { "other:/x": ["a"], "gpu1:rel": ["b"], "gpu1:~x": ["c"] };
    const hosted = parseHosted(keys).entries;
    expect(hosted.map((e) => e.host)).toEqual([undefined, undefined, undefined]);
    expect(hosted.map((e) => e.dir)).toEqual(parse(keys).entries.map((e) => e.dir));
    expect(hosted.map((e) => e.dir)).toEqual(["/work/here/other:/x", "/work/here/gpu1:rel", "/work/here/gpu1:~x"]);
  });

  test("without the hosts (a snapshot, a listing) a host key is a path here, as before hosts", () => {
    expect(parse({ "gpu1:/srv": ["a"] }).entries[0]).toEqual({ dir: "/work/here/gpu1:/srv", cmd: "a", group: null, name: null });
  });

  test("a host's entries are written under host-qualified keys, its home as ~, and load back the same", () => {
    const entries = [{ ...entry("/home/far/train", "python train.py"), host: gpu1 }, { ...entry("/srv/x", "top"), host: gpu1 }, entry("/home/u/w", "make")];
    const text = formatRecipe("mixed", entries, ctx.home);
    expect(Object.keys(JSON.parse(text).dirs)).toEqual(["gpu1:/srv/x", "gpu1:~/train", "~/w"]);
    expect(parseHosted(JSON.parse(text)).entries).toEqual([entries[1]!, entries[0]!, entries[2]!]);
  });

  test("a recipe with no host is written byte for byte as before", () => {
    const entries = [entry("/home/u/w", "make"), entry("/srv", "top", "g", "n")];
    expect(formatRecipe("local", entries, ctx.home)).toBe(
      '{\n  "version": 1,\n  "name": "local",\n  "dirs": {\n    "/srv": [\n      {\n        "cmd": "top",\n        "group": "g",\n        "name": "n"\n      }\n    ],\n    "~/w": [\n      "make"\n    ]\n  }\n}\n',
    );
  });
});

describe("versions", () => {
  test("a missing version means 1", () => {
    expect(parse({ name: "s", dirs: { "/a": ["x"] } }).entries).toHaveLength(1);
  });

  test("version 1 loads", () => {
    expect(parse({ version: 1, dirs: { "/a": ["x"] } }).entries).toHaveLength(1);
  });

  const unsupported: [string, unknown][] = [
    ["0", 0],
    ["2", 2],
    ["1.5", 1.5],
    ['"1"', "1"],
    ["null", null],
    ["true", true],
    ["-1", -1],
    ["[1]", [1]],
    ["{}", {}],
  ];
  for (const [shown, version] of unsupported) {
    test(`version ${shown} fails the load naming the file, the value found and the supported range`, () => {
      const error = thrown(() => parse({ version, dirs: { "/a": ["x"] } }, "/s/bad.json"));
      expect(error.message).toBe(`/s/bad.json: unsupported recipe version ${shown} (supported: 1..1)`);
    });
  }

  // JSON.parse makes 1e400 Infinity (stringified as null) and rounds long integers: the error quotes
  // the file's own text instead (issues 11 and 12).
  const asWritten = ["1e400", "99999999999999999999", "-0", "2.0", "1.50", "-1e-400"];
  for (const version of asWritten) {
    test(`version ${version} is reported as the file writes it`, () => {
      const text = `{"dirs": {"/a": [{"cmd": "x", "version": 7}]}, "version": ${version}}`;
      const error = thrown(() => parseRecipe(text, "/s/bad.json", ctx));
      expect(error.message).toBe(`/s/bad.json: unsupported recipe version ${version} (supported: 1..1)`);
    });
  }

  test("an unsupported version fails a flat file too", () => {
    expect(thrown(() => parse({ version: 2, "/a": ["x"] })).message).toContain("version 2");
  });
});

describe("the two shapes", () => {
  test("an object-valued dirs means the wrapped shape, whatever the version says", () => {
    const recipe = parse({ name: "s", dirs: { "/a": ["x"] }, "/ignored": ["y"] });
    expect(recipe.name).toBe("s");
    expect(recipe.entries).toEqual([entry("/a", "x")]);
  });

  test("without an object-valued dirs every top-level key is a directory", () => {
    const recipe = parse({ "/a": ["x"], "~/b": ["y", { cmd: "z", group: "g" }] });
    expect(recipe.entries).toEqual([entry("/a", "x"), entry("/home/u/b", "y"), entry("/home/u/b", "z", "g")]);
  });

  test("a flat file's array-valued dirs key is a directory", () => {
    expect(parse({ dirs: ["x"] }).entries).toEqual([entry("/work/here/dirs", "x")]);
  });

  test("a flat file's version member is always the format version, never a directory", () => {
    const recipe = parse({ version: 1, "/a": ["x"] });
    expect(recipe.entries).toEqual([entry("/a", "x")]);
    expect(recipe.dropped).toBe(0);
  });

  test("a flat file has no stored name", () => {
    expect(parse({ "/a": ["x"] }).name).toBeNull();
  });

  test("in a flat file a name key is a directory like any other", () => {
    expect(parse({ name: ["x"] }).entries).toEqual([entry("/work/here/name", "x")]);
    expect(parse({ name: "s", "/a": ["x"] })).toEqual({
      name: null,
      entries: [entry("/a", "x")],
      dropped: 1,
      problems: ['r.json: ["name"]: a string, not a list of commands; dropped'],
    });
  });

  test("a wrapped file without a string name has no stored name", () => {
    expect(parse({ name: 7, dirs: {} }).name).toBeNull();
    expect(parse({ name: "   ", dirs: {} }).name).toBeNull();
  });
});

describe("tolerant loading", () => {
  test("invalid JSON fails the load naming the file, line and column", () => {
    const error = thrown(() => parseRecipe('{\n  "/a": ["x",]\n}', "/s/broken.json", ctx));
    expect(error.message).toBe("/s/broken.json: invalid JSON at line 2, column 14: unexpected ']'");
  });

  test("invalid JSON errors are one line even when the cause is a control character", () => {
    const error = thrown(() => parseRecipe('{"a": "x\ny"}', "b.json", ctx));
    expect(error.message).toBe("b.json: invalid JSON at line 1, column 9: unescaped control character \\x0a in string");
  });

  const syntaxErrors: [string, string][] = [
    ['{"a": 1} x', "line 1, column 10: unexpected 'x' after the end of the document"],
    ['{"a": "\\q"}', "line 1, column 8: invalid escape in string"],
    ['{"a": "open', "line 1, column 7: unterminated string"],
    ['{"a" 1}', "line 1, column 6: expected ':', found '1'"],
    ["{a: 1}", "line 1, column 2: expected a string key, found 'a'"],
    ['["x" "y"]', `line 1, column 6: expected ',' or ']', found '"'`],
    ["[01]", "line 1, column 3: expected ',' or ']', found '1'"],
  ];
  for (const [text, where] of syntaxErrors) {
    test(`invalid JSON ${JSON.stringify(text)} is reported at ${where.split(":")[0]}`, () => {
      expect(thrown(() => parseRecipe(text, "j.json", ctx)).message).toBe(`j.json: invalid JSON at ${where}`);
    });
  }

  test("an empty file is invalid JSON", () => {
    expect(thrown(() => parseRecipe("", "e.json", ctx)).message).toBe("e.json: invalid JSON at line 1, column 1: unexpected end of file");
  });

  test("a file that is valid JSON but not an object is an error naming the file", () => {
    for (const [text, kind] of [
      ["[]", "an array"],
      ["3", "a number"],
      ["null", "null"],
      ['"x"', "a string"],
    ]) {
      expect(thrown(() => parseRecipe(text!, "n.json", ctx)).message).toBe(`n.json: not a recipe: expected a JSON object, found ${kind}`);
    }
  });

  test("non-string scalar entries are dropped and counted", () => {
    expect(parse({ "/a": ["ok", 1, true, null, false, 2.5] })).toEqual({
      name: null,
      entries: [entry("/a", "ok")],
      dropped: 5,
      problems: [
        'r.json: ["/a"][1]: a number, not a command or {"cmd": …}; dropped',
        'r.json: ["/a"][2]: a boolean, not a command or {"cmd": …}; dropped',
        'r.json: ["/a"][3]: null, not a command or {"cmd": …}; dropped',
        'r.json: ["/a"][4]: a boolean, not a command or {"cmd": …}; dropped',
        'r.json: ["/a"][5]: a number, not a command or {"cmd": …}; dropped',
      ],
    });
  });

  test("an object without a string cmd is dropped", () => {
    expect(parse({ "/a": [{}, { cmd: 1 }, { cmd: null }, { cmd: ["x"] }, { name: "n" }] }).dropped).toBe(5);
  });

  test("an object whose group or name is present but not a string is dropped", () => {
    const recipe = parse({
      "/a": [
        { cmd: "x", group: 1 },
        { cmd: "x", name: null },
        { cmd: "x", group: ["g"] },
      ],
    });
    expect(recipe.entries).toEqual([]);
    expect(recipe.dropped).toBe(3);
  });

  test("an array entry is dropped", () => {
    expect(parse({ "/a": [["x"]] }).dropped).toBe(1);
  });

  test("extra members of an entry object are ignored", () => {
    expect(parse({ "/a": [{ cmd: "x", colour: "red" }] }).entries).toEqual([entry("/a", "x")]);
  });

  test("a non-array value under a directory key contributes nothing and counts as one dropped", () => {
    const recipe = parse({ dirs: { "/a": "x", "/b": { cmd: "y" }, "/c": null, "/d": ["z"] } });
    expect(recipe.entries).toEqual([entry("/d", "z")]);
    expect(recipe.dropped).toBe(3);
  });

  test("a recipe that yields no command loads nothing", () => {
    expect(parse({ dirs: {} })).toEqual({ name: null, entries: [], dropped: 0, problems: [] });
    expect(parse({ "/a": [1] })).toEqual({
      name: null,
      entries: [],
      dropped: 1,
      problems: ['r.json: ["/a"][0]: a number, not a command or {"cmd": …}; dropped'],
    });
  });

  test("group and name are normalised as for live tasks", () => {
    const recipe = parse({ "/a": [{ cmd: "x", group: "  a\x1bpi \n", name: "\tapi\x00 server " }] });
    expect(recipe.entries).toEqual([entry("/a", "x", "api", "api server")]);
  });

  test("an empty group and the group Unassigned mean no group", () => {
    const recipe = parse({
      "/a": [
        { cmd: "x", group: "" },
        { cmd: "y", group: " Unassigned " },
        { cmd: "z", group: "\x01" },
      ],
    });
    expect(recipe.entries.map((e) => e.group)).toEqual([null, null, null]);
  });

  test("Unassigned is a legal display name", () => {
    expect(parse({ "/a": [{ cmd: "x", name: "Unassigned" }] }).entries[0]!.name).toBe("Unassigned");
  });

  test("an empty display name means no name", () => {
    expect(parse({ "/a": [{ cmd: "x", name: "  " }] }).entries[0]!.name).toBeNull();
  });

  test("a loaded recipe with a proto-like directory key is just a directory", () => {
    const recipe = parseRecipe('{"__proto__": ["x"], "constructor": ["y"]}', "p.json", ctx);
    expect(recipe.entries.map((e) => e.dir)).toEqual(["/work/here/__proto__", "/work/here/constructor"]);
  });
});

describe("decoding", () => {
  test("a file that is not UTF-8 fails the load naming the file", () => {
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    expect(thrown(() => decodeRecipe(bytes, "/s/bin.json")).message).toBe("/s/bin.json: not valid UTF-8 text");
  });

  test("a UTF-8 byte order mark is ignored", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"/a": ["x"]}')]);
    expect(parseRecipe(decodeRecipe(bytes, "b.json"), "b.json", ctx).entries).toHaveLength(1);
  });
});

describe("labels", () => {
  test("control characters are removed and whitespace trimmed", () => {
    expect(normalizeName(" \x1b[31mred\x1b[0m\x00 ")).toBe("[31mred[0m");
  });

  test("labels keep at most 64 characters, counting code points", () => {
    expect(normalizeName("x".repeat(100))).toBe("x".repeat(64));
    expect(normalizeName("🚀".repeat(100))).toBe("🚀".repeat(64));
  });

  test("the cut at 64 characters does not leave trailing whitespace", () => {
    expect(normalizeName(`${"x".repeat(63)}    y`)).toBe("x".repeat(63));
  });

  test("an empty label is no label", () => {
    expect(normalizeName("")).toBeNull();
    expect(normalizeGroup(" \t ")).toBeNull();
  });

  test("only the exact group Unassigned means no group; the comparison is case-sensitive", () => {
    expect(normalizeGroup("Unassigned")).toBeNull();
    expect(normalizeGroup("unassigned")).toBe("unassigned");
    expect(normalizeGroup("Unassigned2")).toBe("Unassigned2");
    expect(normalizeName("Unassigned")).toBe("Unassigned");
  });

  test("printable shows control characters as \\xNN", () => {
    expect(printable("a\x1b[2Jb\n")).toBe("a\\x1b[2Jb\\x0a");
  });
});

test("task-labels.ts imports nothing, so the daemon's hot path never loads arktype", async () => {
  const source = await Bun.file(new URL("../../src/task-labels.ts", import.meta.url)).text();
  expect(source).not.toMatch(/^import /m);
});

describe("each dropped or doubtful entry says why (issue 40, item 1)", () => {
  test("the report's files: a mistyped cmd, a mistyped member, an empty command", () => {
    const wrongKey = parse({ version: 1, dirs: { ".": [{ command: "echo hi" }] } }, "wrong-key.json");
    expect(wrongKey).toMatchObject({
      entries: [],
      dropped: 1,
      problems: ['wrong-key.json: dirs["."][0]: unknown member "command" (did you mean "cmd"?); dropped'],
    });
    const typo = parse({ version: 1, dirs: { ".": [{ cmd: "echo hi", grup: "x" }] } }, "typo-field.json");
    // A member it does not know is a warning: the entry loads, as a file from a newer fleetcom would.
    expect(typo).toMatchObject({ dropped: 0, problems: ['typo-field.json: dirs["."][0]: unknown member "grup" (did you mean "group"?); ignored'] });
    expect(typo.entries).toEqual([entry("/work/here", "echo hi")]);
    const empty = parse({ version: 1, dirs: { ".": [{ cmd: "" }, "  ", "ok"] } }, "empty-cmd.json");
    expect(empty).toMatchObject({
      entries: [entry("/work/here", "ok")],
      dropped: 2,
      problems: [
        `empty-cmd.json: dirs["."][0]: empty command (as run -- '' is refused); dropped`,
        `empty-cmd.json: dirs["."][1]: empty command (as run -- '' is refused); dropped`,
      ],
    });
  });

  test("a member of the wrong type, a missing cmd and a directory that is no list are each named", () => {
    const recipe = parse({ dirs: { "/a": [{ cmd: "x", group: 1 }, { name: "n" }, { cmd: "y", frobnicate: true }], "/b": "make" } });
    expect(recipe.problems).toEqual([
      'r.json: dirs["/a"][0]: "group" is a number, not a string; dropped',
      'r.json: dirs["/a"][1]: no "cmd" member; dropped',
      'r.json: dirs["/a"][2]: unknown member "frobnicate"; ignored',
      'r.json: dirs["/b"]: a string, not a list of commands; dropped',
    ]);
    expect(recipe.dropped).toBe(3);
  });

  test("what fleetcom writes itself, snapshot members included, has no problems", () => {
    const text = formatRecipe("s", [{ ...entry("/a", "x", "g", "n"), id: 3, typed: "x", history: "3" }], ctx.home);
    expect(parseRecipe(text, "s.json", ctx).problems).toEqual([]);
  });
});

describe("service fields", () => {
  test("ready, after, stop_signal, stop_timeout, restart and max_restarts are written back as read; an entry without them stays a plain command", () => {
    const text = `{
  "version": 1,
  "name": "dev",
  "dirs": {
    "~/app": [
      {
        "cmd": "postgres",
        "name": "db",
        "ready": {
          "port": 5432
        },
        "stop_signal": "INT",
        "stop_timeout": 10
      },
      {
        "cmd": "npm run api",
        "name": "api",
        "after": {
          "db": "ready"
        },
        "restart": "on-failure",
        "max_restarts": 3
      },
      "npm run docs"
    ]
  }
}
`;
    const parsed = parseRecipe(text, "dev.json", ctx);
    expect(formatRecipe("dev", parsed.entries, ctx.home)).toBe(text);
    // Members fleetcom writes are never "unknown" (recipe-problems.ts).
    expect(parsed.problems).toEqual([]);
  });
});
