// Save atomicity (quality.md): a writer SIGKILLed at random points of a save leaves the old recipe or
// the new one, never a torn file and never a temp file that lists as a session; a full disk gives a
// clear one-line error and leaves the old recipe intact.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { UserError } from "../../src/errors.ts";
import type { RecipeEntry } from "../../src/recipe.ts";
import { listSessions, saveSession } from "../../src/recipe-sessions.ts";
import { makeSandbox, seededRandom, type Sandbox } from "../harness/helpers.ts";

const STORE = resolve(import.meta.dir, "../../src/recipe-sessions.ts");

let sb: Sandbox;
let dir: string;
beforeEach(() => {
  sb = makeSandbox();
  dir = join(sb.config, "sessions");
});
afterEach(() => sb.cleanup());

// Large enough that a write takes a while, and distinct so old and new can be told apart.
function fleet(tag: string, count: number): RecipeEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    dir: `/srv/${tag}/${i % 17}`,
    cmd: `run ${tag} ${i} ${"x".repeat(200)}`,
    group: i % 3 ? `g${i % 5}` : null,
    name: i % 4 ? `task ${i}` : null,
  }));
}

function writerScript(): string {
  const script = join(sb.root, "writer.ts");
  writeFileSync(
    script,
    `import { readFileSync } from "node:fs";
import { saveSession } from ${JSON.stringify(STORE)};
const [a, b] = [process.env.A, process.env.B].map((f) => JSON.parse(readFileSync(f, "utf8")));
for (let i = 0; ; i++) {
  saveSession("race", i % 2 ? b : a, process.env);
  if (i === 0) process.stdout.write("ready\\n");
}
`,
  );
  return script;
}

async function waitForReady(stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader();
  const { done } = await reader.read();
  reader.releaseLock();
  if (done) throw new Error("writer exited before its first save");
}

describe("save atomicity", () => {
  test("a writer killed with SIGKILL at random points always leaves the old or the new recipe", async () => {
    const a = fleet("a", 400);
    const b = fleet("b", 300);
    const files = { A: join(sb.root, "a.json"), B: join(sb.root, "b.json") };
    writeFileSync(files.A, JSON.stringify(a));
    writeFileSync(files.B, JSON.stringify(b));
    const script = writerScript();
    const target = join(dir, "race.json");
    const rng = seededRandom(42);
    let sawA = false;
    let sawB = false;
    // Each round starts Bun and the schema library from source (~0.4 CPU-s): twelve rounds catch both
    // versions (each round's kill point is random across several writes) without a minute's CPU.
    for (let round = 0; round < 12; round++) {
      const child = Bun.spawn([process.execPath, script], { env: { ...sb.env, ...files }, stdout: "pipe", stderr: "inherit" });
      await waitForReady(child.stdout);
      // Several writes long (one takes 15-40 ms), so that rounds end in either version whatever the machine's speed.
      await Bun.sleep(rng() * 80);
      child.kill("SIGKILL");
      await child.exited;
      const text = readFileSync(target, "utf8");
      const cmds = (JSON.parse(text).dirs as Record<string, unknown[]>)["/srv/a/0"] ? "a" : "b";
      if (cmds === "a") sawA = true;
      else sawB = true;
      const rows = listSessions(sb.env);
      expect(rows.map((r) => [r.name, r.damaged, r.tasks])).toEqual([["race", null, cmds === "a" ? 400 : 300]]);
    }
    // Killing at random points must have caught both versions, or the test proves nothing.
    expect(sawA && sawB).toBe(true);
    saveSession("race", fleet("a", 1), sb.env);
    expect(readdirSync(dir)).toEqual(["race.json"]);
    // A hang guard, not a budget: each of the 12 writers starts Bun and imports the schema library,
    // and at load 17 on two cores thirty rounds took over three minutes (twelve did, once, at ~20).
  }, 300_000);
});

describe("failed writes", () => {
  const isRoot = process.getuid?.() === 0;

  function mountTinyTmpfs(path: string): boolean {
    if (!isRoot) return false;
    return Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", path]).exitCode === 0;
  }

  function probeTmpfsMount(): boolean {
    const probe = mkdtempSync(join(tmpdir(), "fleetcom-mount-probe-"));
    const ok = mountTinyTmpfs(probe);
    if (ok) Bun.spawnSync(["umount", probe]);
    rmSync(probe, { recursive: true, force: true });
    return ok;
  }

  function expectCleanFailure(error: unknown, file: string, cause: RegExp): void {
    expect(error).toBeInstanceOf(UserError);
    const message = (error as UserError).message;
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain(file);
    expect(message).toMatch(cause);
  }

  // Root ignores an unwritable directory, so as root only a real tmpfs can stand in for a full disk.
  const canFailWrites = !isRoot || probeTmpfsMount();

  test.skipIf(!canFailWrites)("a full disk gives a clear error and leaves the old recipe intact", () => {
    mkdirSync(dir, { recursive: true });
    const mounted = mountTinyTmpfs(dir);
    try {
      const file = saveSession("s", fleet("old", 3), sb.env);
      const before = readFileSync(file);
      if (!mounted) chmodSync(dir, 0o500); // not root, or no mount: an unwritable directory stands in
      let error: unknown;
      try {
        saveSession("s", fleet("new", mounted ? 2000 : 3), sb.env);
      } catch (caught) {
        error = caught;
      }
      expectCleanFailure(error, file, mounted ? /no space left on device \(ENOSPC\)/ : /permission denied \(EACCES\)/);
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(readdirSync(dir)).toEqual(["s.json"]);
    } finally {
      if (mounted) Bun.spawnSync(["umount", dir]);
      else chmodSync(dir, 0o700);
    }
  });
});
