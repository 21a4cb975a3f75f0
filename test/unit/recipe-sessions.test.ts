// The recipe store on disk: where files go, their modes, collisions, listing, remove and rename.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDir } from "../../src/paths.ts";
import { listSessions, loadRecipe, MAX_RECIPE_BYTES, readRecipe, removeSession, renameSession, saveSession } from "../../src/recipe-sessions.ts";
import { resolveSessionTarget } from "../../src/recipe-names.ts";
import { entry, makeSandbox, thrown, type Sandbox } from "../harness/helpers.ts";

let sb: Sandbox;
let dir: string;
beforeEach(() => {
  sb = makeSandbox();
  dir = join(sb.config, "sessions");
});
afterEach(() => sb.cleanup());

const mode = (path: string) => statSync(path).mode & 0o777;

describe("the session directory", () => {
  test("FLEETCOM_CONFIG_DIR wins: sessions live in $FLEETCOM_CONFIG_DIR/sessions", () => {
    expect(sessionDir({ FLEETCOM_CONFIG_DIR: "/c", XDG_CONFIG_HOME: "/x", HOME: "/h" }, "linux")).toBe("/c/sessions");
  });

  test("on Linux it is ${XDG_CONFIG_HOME:-~/.config}/fleetcom/sessions", () => {
    expect(sessionDir({ XDG_CONFIG_HOME: "/x", HOME: "/h" }, "linux")).toBe("/x/fleetcom/sessions");
    expect(sessionDir({ HOME: "/h" }, "linux")).toBe("/h/.config/fleetcom/sessions");
  });

  test("on macOS it is ~/Library/Application Support/fleetcom/sessions", () => {
    expect(sessionDir({ HOME: "/h" }, "darwin")).toBe("/h/Library/Application Support/fleetcom/sessions");
  });

  test("the first save creates it with mode 0700 and the recipe with mode 0600", () => {
    const file = saveSession("s", [entry("/tmp", "top")], sb.env);
    expect(file).toBe(join(dir, "s.json"));
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
  });

  test("a save removes group and other permissions from an existing session directory", () => {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    saveSession("s", [entry("/tmp", "top")], sb.env);
    expect(mode(dir)).toBe(0o700);
  });

  test("a save replaces a pre-existing world-readable recipe with a 0600 one", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "s.json"), '{"/tmp": ["top"]}', { mode: 0o644 });
    saveSession("s", [entry("/tmp", "top")], sb.env);
    expect(mode(join(dir, "s.json"))).toBe(0o600);
  });
});

describe("saving", () => {
  test("saving the same fleet twice gives byte-identical files", () => {
    const entries = [entry("/tmp", "top"), entry(join(sb.home, "w"), "make", "build", "maker")];
    const first = readFileSync(saveSession("s", entries, sb.env));
    const second = readFileSync(saveSession("s", entries, sb.env));
    expect(second.equals(first)).toBe(true);
  });

  test("directories under $HOME are saved as ~/…", () => {
    const file = saveSession("s", [entry(join(sb.home, "w"), "make")], sb.env);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).dirs)).toEqual(["~/w"]);
  });

  test("a/b and a.b collide with an error naming both sessions", () => {
    saveSession("a/b", [entry("/tmp", "top")], sb.env);
    const error = thrown(() => saveSession("a.b", [entry("/tmp", "other")], sb.env));
    expect(error.message).toContain("'a.b'");
    expect(error.message).toContain("'a/b'");
    expect(error.message.split("\n")).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, "a_b.json"), "utf8")).dirs["/tmp"]).toEqual(["top"]);
  });

  test("saving again under the same name overwrites the session", () => {
    saveSession("a/b", [entry("/tmp", "top")], sb.env);
    saveSession(" a/b ", [entry("/tmp", "new")], sb.env);
    expect(JSON.parse(readFileSync(join(dir, "a_b.json"), "utf8")).dirs["/tmp"]).toEqual(["new"]);
  });

  test("a flat file has no stored name and may be overwritten, becoming wrapped", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "a_b.json"), '{"/srv": ["old"]}');
    saveSession("a.b", [entry("/tmp", "top")], sb.env);
    expect(JSON.parse(readFileSync(join(dir, "a_b.json"), "utf8"))).toEqual({
      version: 1,
      name: "a.b",
      dirs: { "/tmp": ["top"] },
    });
  });

  test("a damaged file is not overwritten, and the error says how to get rid of it", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "s.json"), "{ not json");
    const error = thrown(() => saveSession("s", [entry("/tmp", "top")], sb.env));
    expect(error.message).toContain(join(dir, "s.json"));
    expect(readFileSync(join(dir, "s.json"), "utf8")).toBe("{ not json");
  });

  test("saving an empty fleet is refused with a message", () => {
    const error = thrown(() => saveSession("s", [], sb.env));
    expect(error.message).toContain("nothing to relaunch");
    expect(() => statSync(join(dir, "s.json"))).toThrow();
  });

  test("saving under an empty name is refused", () => {
    expect(thrown(() => saveSession("  ", [entry("/tmp", "x")], sb.env)).exitCode).toBe(2);
  });

  test("a save leaves no temporary file behind", () => {
    saveSession("s", [entry("/tmp", "top")], sb.env);
    expect(readdirSync(dir)).toEqual(["s.json"]);
  });

  test("a save sweeps temporary files left by dead writers but not by live ones", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, ".fleetcom-999999999-abcdef.tmp"), "torn");
    writeFileSync(join(dir, `.fleetcom-${process.pid}-abcdef.tmp`), "in progress");
    saveSession("s", [entry("/tmp", "top")], sb.env);
    expect(readdirSync(dir).sort()).toEqual([`.fleetcom-${process.pid}-abcdef.tmp`, "s.json"]);
  });
});

describe("listing", () => {
  test("a missing session directory lists nothing", () => {
    expect(listSessions(sb.env)).toEqual([]);
  });

  test("each session shows its stored name, task count, directories and modified time", () => {
    saveSession("work/api", [entry("/tmp", "top"), entry(join(sb.home, "api"), "a"), entry(join(sb.home, "api"), "b")], sb.env);
    const [row] = listSessions(sb.env);
    expect(row).toMatchObject({
      name: "work/api",
      storedName: "work/api",
      file: join(dir, "work_api.json"),
      tasks: 3,
      dropped: 0,
      dirs: ["/tmp", "~/api"],
      damaged: null,
    });
    expect(Date.parse(row!.modified)).toBe(statSync(row!.file).mtime.getTime());
  });

  test("a flat file is listed by its file name stem", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "flat one.json"), '{"/tmp": ["a", 3]}');
    expect(listSessions(sb.env)).toMatchObject([{ name: "flat one", storedName: null, tasks: 1, dropped: 1 }]);
  });

  test("a damaged file is listed as damaged instead of failing the listing", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "bad.json"), "[");
    writeFileSync(join(dir, "v9.json"), '{"version": 9, "dirs": {}}');
    saveSession("good", [entry("/tmp", "x")], sb.env);
    const rows = listSessions(sb.env);
    expect(rows.map((r) => [r.name, r.damaged !== null])).toEqual([
      ["bad", true],
      ["good", false],
      ["v9", true],
    ]);
    expect(rows[2]!.damaged).toContain("unsupported recipe version 9");
  });

  test("the recovery directory, temporary files, dot files and non-JSON files are not sessions", () => {
    saveSession("s", [entry("/tmp", "x")], sb.env);
    mkdirSync(join(dir, "recovery"));
    writeFileSync(join(dir, "recovery", "snap.json"), '{"/tmp": ["x"]}');
    writeFileSync(join(dir, ".fleetcom-1-ab.tmp"), "{");
    writeFileSync(join(dir, ".hidden.json"), '{"/tmp": ["x"]}');
    writeFileSync(join(dir, "notes.txt"), "hi");
    mkdirSync(join(dir, "folder.json"));
    expect(listSessions(sb.env).map((r) => r.name)).toEqual(["s"]);
  });

  test("sessions are listed sorted by name", () => {
    for (const name of ["b", "A", "a"]) saveSession(name, [entry("/tmp", "x")], sb.env);
    expect(listSessions(sb.env).map((r) => r.name)).toEqual(["A", "a", "b"]);
  });
});

describe("resolving and reading", () => {
  test("an argument ending in .json is a file path, resolved against the current directory", () => {
    expect(resolveSessionTarget("x/r.json", "/cwd", sb.env)).toBe("/cwd/x/r.json");
    expect(resolveSessionTarget("/abs/r.json", "/cwd", sb.env)).toBe("/abs/r.json");
  });

  test("anything else is a session name, so work/api is the session named work/api", () => {
    expect(resolveSessionTarget("work/api", "/cwd", sb.env)).toBe(join(dir, "work_api.json"));
  });

  test("loading an unknown session name says which file it looked for", () => {
    const error = thrown(() => loadRecipe("nope", "/", sb.env));
    expect(error.message).toBe(`no saved session 'nope' (looked for ${join(dir, "nope.json")})`);
  });

  test("loading a missing file names the file", () => {
    expect(thrown(() => loadRecipe("/no/such.json", "/", sb.env)).message).toContain("/no/such.json");
  });

  test("relative keys resolve against the loading client's directory and ~ against $HOME", () => {
    const file = join(sb.root, "r.json");
    writeFileSync(file, '{"rel": ["a"], "~/w": ["b"]}');
    expect(loadRecipe("r.json", sb.root, sb.env).entries.map((x) => x.dir)).toEqual([join(sb.root, "rel"), join(sb.home, "w")]);
  });

  test("a file larger than the recipe limit is refused naming the file", () => {
    const file = join(sb.root, "huge.json");
    writeFileSync(file, Buffer.alloc(MAX_RECIPE_BYTES + 1, 0x20));
    expect(thrown(() => readRecipe(file, { home: sb.home, cwd: "/" })).message).toStartWith(`${file}: too large`);
  });
});

describe("removing", () => {
  test("sessions rm deletes the file", () => {
    const file = saveSession("a/b", [entry("/tmp", "x")], sb.env);
    expect(removeSession("a/b", sb.env)).toBe(file);
    expect(listSessions(sb.env)).toEqual([]);
  });

  test("removing by a colliding name is refused, naming both sessions", () => {
    saveSession("a/b", [entry("/tmp", "x")], sb.env);
    const error = thrown(() => removeSession("a.b", sb.env));
    expect(error.message).toContain("'a.b'");
    expect(error.message).toContain("'a/b'");
  });

  test("a damaged or flat file can be removed by its stem", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "bad.json"), "[");
    writeFileSync(join(dir, "flat.json"), '{"/tmp": ["x"]}');
    removeSession("bad", sb.env);
    removeSession("flat", sb.env);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("removing a session that does not exist is an error naming it", () => {
    expect(thrown(() => removeSession("ghost", sb.env)).message).toContain("'ghost'");
  });
});

describe("renaming", () => {
  test("sessions mv rewrites the stored name and moves the file", () => {
    saveSession("old", [entry("/tmp", "x", "g", "n")], sb.env);
    const file = renameSession("old", "new/name", sb.env);
    expect(file).toBe(join(dir, "new_name.json"));
    expect(readdirSync(dir)).toEqual(["new_name.json"]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      version: 1,
      name: "new/name",
      dirs: { "/tmp": [{ cmd: "x", group: "g", name: "n" }] },
    });
    expect(mode(file)).toBe(0o600);
  });

  test("renaming onto an existing session is refused and changes nothing", () => {
    saveSession("a", [entry("/tmp", "x")], sb.env);
    saveSession("b", [entry("/tmp", "y")], sb.env);
    const error = thrown(() => renameSession("a", "b", sb.env));
    expect(error.message).toContain(join(dir, "b.json"));
    expect(listSessions(sb.env).map((r) => [r.name, r.tasks])).toEqual([
      ["a", 1],
      ["b", 1],
    ]);
  });

  test("renaming to a name with the same file only rewrites the stored name", () => {
    saveSession("a/b", [entry("/tmp", "x")], sb.env);
    renameSession("a/b", "a.b", sb.env);
    expect(listSessions(sb.env).map((r) => r.name)).toEqual(["a.b"]);
  });

  test("renaming a flat file wraps it and keeps its directory keys exactly as written", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "flat.json"), '{"version": 1, "rel/dir": ["x", 5], "dirs": ["y"]}');
    const file = renameSession("flat", "named", sb.env);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      version: 1,
      name: "named",
      dirs: { "rel/dir": ["x", 5], dirs: ["y"] },
    });
  });

  test("renaming a session that does not exist, or a damaged one, is an error", () => {
    expect(thrown(() => renameSession("ghost", "x", sb.env)).message).toContain("'ghost'");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "bad.json"), "[");
    expect(thrown(() => renameSession("bad", "x", sb.env)).message).toContain("bad.json");
  });
});
