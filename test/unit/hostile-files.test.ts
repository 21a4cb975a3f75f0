// Files someone else can put where fleetcom expects one (files.ts readRegularFile and its readers):
// a FIFO, a device or a directory is refused with one line naming it, never opened for a read that
// blocks the daemon, and a file over its reader's bound is refused before it fills memory. And the
// live history directory (daemon-history.ts) is never reached through a symlink planted at its path.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codex } from "../../src/agent-codex.ts";
import { firstRecord, textOf } from "../../src/agent-files.ts";
import { detect } from "../../src/agent.ts";
import { HistoryWriter } from "../../src/daemon-history.ts";
import { copyRegularFile, FileRefused, readRegularFile } from "../../src/files.ts";
import { loadSettings } from "../../src/settings.ts";
import { assetsIn, tempDir } from "../harness/agent-test-helpers.ts";
import { until } from "../harness/fleet.ts";

const AGENT_FILES = join(import.meta.dir, "../../src/agent-files.ts");

let tmp: ReturnType<typeof tempDir>;
/** Processes a test starts, killed after it: FIFO writers that no reader released, a child a blocking open held. */
let writers: ReturnType<typeof Bun.spawn>[];
beforeEach(() => {
  tmp = tempDir();
  writers = [];
});
afterEach(() => {
  for (const w of writers) w.kill("SIGKILL");
  tmp.cleanup();
});

/**
 * A FIFO with a writer waiting to hand `text` to whoever opens it for reading. A reader that opens
 * it (the bug) gets the text and the test fails, instead of the open blocking the test run for good.
 */
function fedFifo(name: string, text = ""): string {
  const path = join(tmp.root, name);
  mkdirSync(join(path, ".."), { recursive: true });
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  writers.push(Bun.spawn(["sh", "-c", 'printf %s "$1" > "$2"', "sh", text, path]));
  return path;
}

function link(target: string, name: string): string {
  symlinkSync(target, join(tmp.root, name));
  return join(tmp.root, name);
}

function refusal(fn: () => unknown): FileRefused {
  try {
    fn();
  } catch (error) {
    if (error instanceof FileRefused) return error;
    throw error;
  }
  throw new Error("expected a FileRefused");
}

describe("readRegularFile", () => {
  test("a regular file is read whole, and through a symlink unless noFollow says otherwise", () => {
    const file = tmp.file("a.toml", "scrollback = 70\n");
    symlinkSync(file, join(tmp.root, "link"));
    expect(readRegularFile(file, { maxBytes: 1024 }).toString()).toBe("scrollback = 70\n");
    expect(readRegularFile(join(tmp.root, "link"), { maxBytes: 1024 }).toString()).toBe("scrollback = 70\n");
    expect(refusal(() => readRegularFile(join(tmp.root, "link"), { maxBytes: 1024, noFollow: true })).message).toBe(
      `${tmp.root}/link: not a regular file (a symlink)`,
    );
  });

  test.each([
    ["a FIFO", () => fedFifo("pipe", "x = 1\n"), "a FIFO"],
    ["a symlink to a FIFO", () => link(fedFifo("pipe", "x = 1\n"), "link"), "a FIFO"],
    ["/dev/zero", () => "/dev/zero", "a character device"],
    ["a symlink to /dev/zero", () => link("/dev/zero", "zero"), "a character device"],
    ["a directory", () => tmp.dir("d"), "a directory"],
  ])("%s is refused with one line naming it", (_what, make, kind) => {
    const path = make();
    const error = refusal(() => readRegularFile(path, { maxBytes: 1024 * 1024 }));
    expect(error.message).toBe(`${path}: not a regular file (${kind})`);
    expect(error.kind).toBe("irregular");
  });

  test("a file over the bound is refused naming its size; one at the bound is read", () => {
    const over = tmp.file("over", "x".repeat(11));
    expect(refusal(() => readRegularFile(over, { maxBytes: 10 })).message).toBe(`${over}: too large (11 bytes, over 10 bytes)`);
    expect(refusal(() => readRegularFile(over, { maxBytes: 10 })).kind).toBe("oversize");
    const big = tmp.file("big", "x".repeat(1024 * 1024 + 1));
    expect(refusal(() => readRegularFile(big, { maxBytes: 1024 * 1024 })).reason).toBe("too large (1048577 bytes, over 1 MiB)");
    expect(readRegularFile(tmp.file("at", "x".repeat(10)), { maxBytes: 10 }).length).toBe(10);
  });

  test("a missing file throws the open's own ENOENT, for the caller to treat as no file", () => {
    expect(() => readRegularFile(join(tmp.root, "nope"), { maxBytes: 10 })).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});

describe("copyRegularFile", () => {
  test("copies a regular file whole into a new 0600 file, and refuses a FIFO, a symlink under noFollow, one over the bound and another user's", () => {
    const file = tmp.file("a.db", "x".repeat(3 * 1024 * 1024 + 5));
    const copy = join(tmp.root, "copy");
    copyRegularFile(file, copy, { maxBytes: 4 * 1024 * 1024, noFollow: true, owner: process.getuid!() });
    expect(readFileSync(copy).equals(readFileSync(file))).toBe(true);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    const to = (name: string) => join(tmp.root, name);
    expect(refusal(() => copyRegularFile(fedFifo("pipe"), to("c1"), { maxBytes: 10 })).kind).toBe("irregular");
    expect(refusal(() => copyRegularFile(link(file, "link"), to("c2"), { maxBytes: 10, noFollow: true })).kind).toBe("irregular");
    expect(refusal(() => copyRegularFile(file, to("c3"), { maxBytes: 1024 })).kind).toBe("oversize");
    // Another user's file: root can make one to show it; anyone else has no other user's file to hand.
    if (process.getuid!() === 0) {
      chownSync(file, 65534, 65534);
      expect(refusal(() => copyRegularFile(file, to("c4"), { maxBytes: 4 * 1024 * 1024, owner: 0 })).message).toBe(`${file}: owned by uid 65534, not 0`);
    }
  });
});

describe("the agent stores' readers", () => {
  test("a FIFO at a rollout's path (swapped in after the listing) is no evidence, never a blocked open", async () => {
    // No writer ever comes, so a blocking open would never return: the read runs in a child, waited for in bounded time.
    const pipe = join(tmp.root, "rollout-x.jsonl");
    expect(Bun.spawnSync(["mkfifo", pipe]).exitCode).toBe(0);
    const child = Bun.spawn(
      [process.execPath, "-e", `console.log(JSON.stringify(require(${JSON.stringify(AGENT_FILES)}).firstRecord(process.argv[1])))`, pipe],
      {
        stdout: "pipe",
      },
    );
    writers.push(child);
    await until("the child's read to return", () => child.exitCode !== null);
    expect((await new Response(child.stdout).text()).trim()).toBe("null");
    const record = JSON.stringify({ type: "session_meta", payload: { cwd: "/w" } });
    expect(firstRecord(tmp.file("rollout-y.jsonl", `${record}\n{"later":1}\n`))).toEqual(JSON.parse(record));
  }, 60_000);

  test("a FIFO at a capture file or a live registry entry is no evidence", () => {
    expect(textOf(fedFifo("task-1-1.json", '{"session_id":"x"}'))).toBeNull();
    expect(textOf(tmp.file("task-2-1.json", '{"session_id":"x"}'))).toBe('{"session_id":"x"}');
  });
});

describe("the configs", () => {
  test("a FIFO at Codex's config.toml fails the instrumentation with one line naming it (the run goes as typed)", () => {
    const config = fedFifo("codex-home/config.toml", 'notify = ["notify-send"]\n');
    const instrument = () => codex.instrument(detect("codex", [codex])!, assetsIn(tmp.dir("assets")), { CODEX_HOME: join(tmp.root, "codex-home") });
    expect(instrument).toThrow(`${config}: not a regular file (a FIFO)`);
  });

  test("a config.toml over 1 MiB is not read: one line naming it, and every default", () => {
    const text = `scrollback = 70\n${"# padding\n".repeat(120_000)}`;
    const file = join(tmp.dir("config"), "config.toml");
    writeFileSync(file, text);
    const settings = loadSettings({ HOME: tmp.root, FLEETCOM_CONFIG_DIR: join(tmp.root, "config") });
    expect(settings.scrollback).toEqual({ value: 2000, source: "default" });
    expect(settings.problems).toEqual([`${file}: too large (${text.length} bytes, over 1 MiB); using the defaults`]);
  });
});

describe("the live history directory", () => {
  function writerIn(recoveryDir: string, logged: string[]) {
    const task = { id: 2, historyDirty: true, history: async () => ["tick 1 TOKEN=s3cr3t"] };
    const source = { startedAt: new Date(), all: () => [task], holds: () => true };
    return { task, writer: new HistoryWriter(source as never, { recoveryDir, intervalMs: 60_000, log: (m) => logged.push(m) }) };
  }

  test("a symlink planted at its path is refused: the target keeps its mode and its files, and status and the log say why", async () => {
    const recovery = tmp.dir("recovery");
    chmodSync(recovery, 0o700);
    const target = tmp.dir("target");
    chmodSync(target, 0o755);
    writeFileSync(join(target, "2.txt.gz"), "precious");
    const logged: string[] = [];
    const { task, writer } = writerIn(recovery, logged);
    symlinkSync(target, writer.dir);
    await writer.flush();
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(readdirSync(target)).toEqual(["2.txt.gz"]);
    expect(readFileSync(join(target, "2.txt.gz"), "utf8")).toBe("precious");
    const why = `history directory ${writer.dir} is a symlink; refusing to use it`;
    expect(writer.status().error).toBe(why);
    expect(logged).toEqual([`history write failed: ${why}`]);
    writer.remove(task as never);
    expect(readdirSync(target)).toEqual(["2.txt.gz"]);
  });

  test("a real one is made 0700 (or loses its group and other bits) and holds the task's file", async () => {
    const { writer } = writerIn(tmp.dir("recovery"), []);
    mkdirSync(writer.dir, { mode: 0o755 });
    chmodSync(writer.dir, 0o755);
    await writer.flush();
    expect(statSync(writer.dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(writer.dir)).toEqual(["2.txt.gz"]);
    expect(writer.status()).toMatchObject({ writes: 1, error: null });
  });
});
