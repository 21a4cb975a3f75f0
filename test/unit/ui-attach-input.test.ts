// Attached mode's pure parts: the detach key as the user writes it, the detach key and the key after
// it, the chord table and every listing of it, and the guard that keeps the status line's row out of
// the task's reach.
import { describe, expect, test } from "bun:test";
import { attachStatusSetting, chosenDetachKey } from "../../src/ui-attach-settings.ts";
import { PrefixReader, type AttachInput } from "../../src/ui-attach-input.ts";
import { StatusRowGuard, statusRowBytes, statusText } from "../../src/ui-attach-status.ts";
import { PartMarker } from "../../src/ui-attach-marks.ts";
import { CHORDS, armedText, chordFor, chordListLines, chordMarkdown } from "../../src/ui-attach-chords.ts";
import { helpEntries } from "../../src/ui-dashboard-keys.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import type { UserError } from "../../src/errors.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import attachCommand from "../../src/cmd-attach.ts";
import { usageText } from "../../src/ui-usage.ts";

describe("the detach key", () => {
  // No config file here: the variables and the flag decide.
  const env = (vars: Record<string, string> = {}) => ({ FLEETCOM_CONFIG_DIR: "/nonexistent/fleetcom-test", ...vars });

  test("a control key in any of the usual spellings", async () => {
    for (const [text, byte, name] of [
      ["ctrl-\\", 0x1c, "Ctrl-\\"],
      ["Ctrl-A", 0x01, "Ctrl-A"],
      ["C-a", 0x01, "Ctrl-A"],
      ["^]", 0x1d, "Ctrl-]"],
      [" ^b ", 0x02, "Ctrl-B"],
      ["ctrl-_", 0x1f, "Ctrl-_"],
    ] as const) {
      expect(await chosenDetachKey(text, env())).toEqual({ byte, name });
    }
  });

  test("printable keys and the keys programs need are refused, naming the flag", async () => {
    for (const [text, why] of [
      ["x", "is not a control key"],
      ["ctrl-1", "is not a control key"],
      ["ctrl-ab", "is not a control key"],
      ["", "is not a control key"],
      ["ctrl-[", "Ctrl-[ is Escape"],
      ["ctrl-m", "Ctrl-M is Enter"],
      ["ctrl-i", "Ctrl-I is Tab"],
      ["ctrl-h", "Ctrl-H is Backspace"],
      ["ctrl-c", "Ctrl-C interrupts"],
    ]) {
      const error = (await chosenDetachKey(text!, env()).then(
        () => null,
        (e: unknown) => e,
      )) as UserError;
      expect(error.exitCode).toBe(2);
      expect(error.message).toStartWith("--detach-key: ");
      expect(error.message).toContain(why!);
    }
  });

  test("the flag wins over FLEETCOM_DETACH_KEY, which wins over Ctrl-\\; a bad variable keeps the default", async () => {
    expect((await chosenDetachKey("^a", env({ FLEETCOM_DETACH_KEY: "^b" }))).name).toBe("Ctrl-A");
    expect((await chosenDetachKey(undefined, env({ FLEETCOM_DETACH_KEY: "^b" }))).name).toBe("Ctrl-B");
    expect((await chosenDetachKey(undefined, env({ FLEETCOM_DETACH_KEY: "" }))).name).toBe("Ctrl-\\");
    expect((await chosenDetachKey(undefined, env())).byte).toBe(0x1c);
    expect((await chosenDetachKey(undefined, env({ FLEETCOM_DETACH_KEY: "q" }))).name).toBe("Ctrl-\\");
  });

  test("a config file's detach_key is read when there is one, under FLEETCOM_DETACH_KEY", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fleetcom-detach-key-"));
    try {
      writeFileSync(join(dir, "config.toml"), 'detach_key = "ctrl-b"\n');
      expect((await chosenDetachKey(undefined, { FLEETCOM_CONFIG_DIR: dir })).name).toBe("Ctrl-B");
      expect((await chosenDetachKey(undefined, { FLEETCOM_CONFIG_DIR: dir, FLEETCOM_DETACH_KEY: "^a" })).name).toBe("Ctrl-A");
      expect((await chosenDetachKey("^]", { FLEETCOM_CONFIG_DIR: dir })).name).toBe("Ctrl-]");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the status line is off unless FLEETCOM_ATTACH_STATUS turns it on", () => {
    expect(attachStatusSetting({})).toBe(false);
    expect(attachStatusSetting({ FLEETCOM_ATTACH_STATUS: "0" })).toBe(false);
    for (const on of ["1", "on", "TRUE", "yes"]) expect(attachStatusSetting({ FLEETCOM_ATTACH_STATUS: on })).toBe(true);
  });
});

function reader() {
  const got: AttachInput[] = [];
  const r = new PrefixReader(0x1c, (input) => got.push(input));
  const text = () => got.map((i) => (i.kind === "send" ? `send:${new TextDecoder().decode(i.bytes)}` : i.kind === "chord" ? `chord:${i.key}` : i.kind));
  return { push: (s: string) => r.push(new TextEncoder().encode(s)), text, dispose: () => r.dispose() };
}

describe("the detach key and the key after it", () => {
  test("alone, it arms and waits for the next key however long that takes; what came before it goes to the task", () => {
    const r = reader();
    r.push("ls\r\x1c");
    expect(r.text()).toEqual(["send:ls\r", "armed"]);
    r.push("n");
    expect(r.text()).toEqual(["send:ls\r", "armed", "chord:n"]);
  });

  test("twice sends one through; a key after it is the chord's, in the same read or the next one", () => {
    const r = reader();
    r.push("a\x1c\x1cb");
    r.push("\x1c");
    r.push("n");
    r.push("\x1c\x0erest");
    // "armed" only when the detach key ends a read: the marker is for a key still to come.
    expect(r.text()).toEqual(["send:a", "twice", "send:b", "armed", "chord:n", "chord:ctrl-n", "send:rest"]);
  });

  test("Esc or an arrow after it is one key, null, taken whole; a multi-byte character is one key", () => {
    const r = reader();
    r.push("\x1c\x1b[Ax\x1c\x1b");
    r.push("\x1cé");
    expect(r.text()).toEqual(["chord:null", "send:x", "chord:null", "chord:é"]);
  });

  test("a detach key still armed when the session ends is dropped", () => {
    const r = reader();
    r.push("\x1c");
    r.dispose();
    r.push("n");
    expect(r.text()).toEqual(["armed", "send:n"]);
  });
});

describe("the chords", () => {
  test("a key names its chord; Ctrl may stay held; [ is h; a key with no chord has none (and detaches)", () => {
    expect(chordFor("n")?.action).toBe("next");
    expect(chordFor("ctrl-p")?.action).toBe("previous");
    expect(chordFor("[")?.action).toBe("history");
    expect(chordFor("h")?.action).toBe("history");
    expect(chordFor("?")?.action).toBe("help");
    expect(chordFor("d")?.action).toBe("detach");
    expect(chordFor("x")).toBeUndefined();
    expect(chordFor("ctrl-x")).toBeUndefined();
  });

  // The issue: `?`, `attach --help`, the status line and docs/dashboard.md list the same chords.
  const task = { id: 7, name: "api", command: "npm run dev", state: "running", idle: false, attention: null, signal: null, exitCode: null } as TaskInfo;

  test("the chord list while attached and the dashboard's ? screen name every chord key", () => {
    const attached = chordListLines("Ctrl-\\").join("\n");
    const dashboard = helpEntries("Ctrl-\\")
      .map(([keys, what]) => `${keys}  ${what}`)
      .join("\n");
    for (const listing of [attached, dashboard]) {
      for (const chord of CHORDS) expect(listing).toContain(`Ctrl-\\ ${chord.keys.join("/")}  `);
      expect(listing).toContain("Ctrl-\\ Ctrl-\\  send Ctrl-\\ to the task");
      expect(listing).toContain("Esc stays");
    }
  });

  test("the status line and the armed marker name every chord key", () => {
    for (const line of [statusText(task, 0, "Ctrl-\\"), statusText(task, 0, "Ctrl-\\", null, true), armedText("Ctrl-\\")]) {
      for (const chord of CHORDS) expect(line).toContain(`${chord.keys.join("/")} ${chord.word}`);
    }
  });

  test("attach --help and docs/dashboard.md give the same table", async () => {
    const help = await usageText(["attach"], attachCommand);
    for (const chord of CHORDS) expect(help).toContain(`${chord.keys.join("/")} ${chord.word}`);
    expect(help).toContain("Ctrl-\\ twice sends it to the task, Ctrl-\\ Esc stays");
    const docs = readFileSync(join(import.meta.dir, "../../docs/dashboard.md"), "utf8");
    expect(docs).toContain(chordMarkdown("Ctrl-\\"));
  });
});

describe("the status line's row", () => {
  const push = (guard: StatusRowGuard, text: string, taskRows = 29) => {
    const { bytes, erased } = guard.push(new TextEncoder().encode(text), taskRows);
    return { text: new TextDecoder().decode(bytes), erased };
  };

  test("the task's scroll regions end at its own last row, never the status line's", () => {
    const guard = new StatusRowGuard();
    expect(push(guard, "a\x1b[rb").text).toBe("a\x1b[1;29rb");
    expect(push(guard, "\x1b[5r\x1b[;40r\x1b[3;10r").text).toBe("\x1b[5;29r\x1b[1;29r\x1b[3;10r");
    // DEC private `CSI ? … r` (restore modes) is something else: untouched.
    expect(push(guard, "\x1b[?1049r").text).toBe("\x1b[?1049r");
    expect(push(guard, "x\x1bcy").text).toBe("x\x1bc\x1b[1;29ry");
  });

  test("a sequence split across chunks is held until its end", () => {
    const guard = new StatusRowGuard();
    expect(push(guard, "ab\x1b[").text).toBe("ab");
    expect(push(guard, "r-").text).toBe("\x1b[1;29r-");
    expect(push(guard, "\x1b").text).toBe("");
    expect(push(guard, "[2J").erased).toBe(true);
  });

  test("erasing the screen asks for the line again; the task's saved cursor holds drawing back until restored", () => {
    const guard = new StatusRowGuard();
    expect(push(guard, "\x1b[H\x1b[2J").erased).toBe(true);
    expect(push(guard, "\x1b[J").erased).toBe(true);
    expect(push(guard, "\x1b[3J\x1b[K").erased).toBe(false);
    push(guard, "\x1b7x");
    expect(guard.savedCursor).toBe(true);
    push(guard, "\x1b8");
    expect(guard.savedCursor).toBe(false);
    push(guard, "\x1b[s");
    expect(guard.savedCursor).toBe(true);
    push(guard, "\x1b[u\x1b[?1048h");
    expect(guard.savedCursor).toBe(true);
    push(guard, "\x1b[?1048l");
    expect(guard.savedCursor).toBe(false);
  });

  test("the line: task, state, the other tasks waiting, detach key; drawn inside a cursor save and restore", () => {
    const task = { id: 7, name: "api", command: "npm run dev", state: "running", idle: false, attention: null, signal: null, exitCode: null } as TaskInfo;
    expect(statusText(task, 2, "Ctrl-\\")).toBe(
      "task 7 api · active · ! 2 others waiting · Ctrl-\\ then d detach · n next · p prev · w waiting · h/[ history · s status · ? help",
    );
    expect(statusText(task, 0, "Ctrl-A", "no other task waits")).toStartWith("task 7 api · active · no other task waits · Ctrl-A then d detach");
    // The task's own wait and the others' never read as a contradiction (round 4: "waiting: bell · none waiting").
    const ringing = { ...task, attention: { state: "bell", since: "", detail: null } } as unknown as TaskInfo;
    expect(statusText(ringing, 0, "Ctrl-A")).toStartWith("task 7 api · asked for attention · Ctrl-A then d detach");
    expect(statusText(ringing, 1, "Ctrl-A")).toStartWith("task 7 api · asked for attention · ! 1 other waiting · Ctrl-A");
    // An agent brought back in its resume form is called as typed, so the detach key still fits 80 columns.
    const codex = { ...task, id: 5, name: null, command: "codex resume '01a231f1-d4cf-7b9d-a640-3fad39fcadac'", typed: "codex", idle: true };
    expect(statusRowBytes(statusText(codex, 1, "Ctrl-\\"), 24, 80)).toContain(" task 5 codex · idle · ! 1 other waiting · Ctrl-\\ then d detach ·");
    const bytes = statusRowBytes("hello", 30, 20);
    expect(bytes).toStartWith("\x1b7\x1b[?6l\x1b[30;1H\x1b[0;7m hello");
    expect(bytes).toEndWith("\x1b[0m\x1b8");
  });
});

describe("the part marker (two terminals of different sizes)", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  test("it shows while the task is bigger than this terminal, and goes when it fits", () => {
    const part = new PartMarker();
    expect(part.update({ cols: 80, rows: 24 }, { cols: 80, rows: 24 })).toBe(false);
    expect(part.text()).toBeNull();
    expect(part.update({ cols: 120, rows: 40 }, { cols: 80, rows: 24 })).toBe(true);
    expect(part.text()).toBe("part shown: the task is 120×40, this terminal 80×24 · attach again to fit");
    expect(part.bytes(24, 80, true)).toStartWith("\x1b7\x1b[24;1H\x1b[0;7m\x1b[2Kpart shown: ");
    expect(part.update({ cols: 80, rows: 24 }, { cols: 80, rows: 24 })).toBe(true);
    expect(part.bytes(24, 80, true)).toBe("");
  });

  test("it is not drawn mid-sequence, nor while the task holds a saved cursor of its own", () => {
    const part = new PartMarker();
    part.update({ cols: 120, rows: 40 }, { cols: 80, rows: 24 });
    expect(part.bytes(24, 80, false)).toBe("");
    part.follow(bytes("\x1b7"), 24);
    expect(part.bytes(24, 80, true)).toBe("");
    part.follow(bytes("\x1b8"), 24);
    expect(part.bytes(24, 80, true)).not.toBe("");
  });
});
