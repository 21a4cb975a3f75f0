// What `send` writes (src/daemon-typist.ts, src/term-keys.ts), without a daemon: named keys under each
// cursor-key mode, unknown names beside good ones, and how a text becomes writes: the text (as a
// bracketed paste when the task asked for it), then Enter on its own.
import { describe, expect, test } from "bun:test";
import { keyBytes, unknownKey } from "../../src/term-keys.ts";
import { bracketed, render, steps, Typist, type Typed } from "../../src/daemon-typist.ts";

const NORMAL = { applicationCursorKeys: false, bracketedPaste: false };
const APP = { applicationCursorKeys: true, bracketedPaste: true };

describe("named keys", () => {
  test.each([
    ["Enter", "\r", "\r"],
    ["enter", "\r", "\r"],
    ["Tab", "\t", "\t"],
    ["BTab", "\x1b[Z", "\x1b[Z"],
    ["Esc", "\x1b", "\x1b"],
    ["Space", " ", " "],
    ["BSpace", "\x7f", "\x7f"],
    ["Up", "\x1b[A", "\x1bOA"],
    ["Down", "\x1b[B", "\x1bOB"],
    ["Right", "\x1b[C", "\x1bOC"],
    ["Left", "\x1b[D", "\x1bOD"],
    ["Home", "\x1b[H", "\x1bOH"],
    ["End", "\x1b[F", "\x1bOF"],
    ["PgUp", "\x1b[5~", "\x1b[5~"],
    ["PgDn", "\x1b[6~", "\x1b[6~"],
    ["DC", "\x1b[3~", "\x1b[3~"],
    ["F1", "\x1bOP", "\x1bOP"],
    ["F4", "\x1bOS", "\x1bOS"],
    ["F5", "\x1b[15~", "\x1b[15~"],
    ["F12", "\x1b[24~", "\x1b[24~"],
    ["C-c", "\x03", "\x03"],
    ["C-C", "\x03", "\x03"],
    ["C-a", "\x01", "\x01"],
    ["C-z", "\x1a", "\x1a"],
    ["C-[", "\x1b", "\x1b"],
    ["C-\\", "\x1c", "\x1c"],
    ["C-Space", "\x00", "\x00"],
    ["M-x", "\x1bx", "\x1bx"],
    ["M-Enter", "\x1b\r", "\x1b\r"],
    ["M-Up", "\x1b\x1b[A", "\x1b\x1bOA"],
    ["M-C-c", "\x1b\x03", "\x1b\x03"],
  ])("%p sends %j (%j with application cursor keys)", (name, normal, application) => {
    expect(keyBytes(name, NORMAL)).toBe(normal);
    expect(keyBytes(name, APP)).toBe(application);
  });

  test.each(["Hyper", "F13", "F0", "C-", "C-ab", "C-1", "M-", "M-Hyper", "", "enter now", "$(touch /tmp/pwned)", "x", "Ctrl-c"])("%p is no key", (name) => {
    expect(keyBytes(name)).toBeNull();
  });

  test("the first unknown name is the one reported", () => {
    expect(unknownKey(["Enter", "Hyper", "Meta"])).toBe("Hyper");
    expect(unknownKey(["C-c", "Up"])).toBeNull();
  });
});

describe("the writes of one send", () => {
  const writes = (request: Parameters<typeof steps>[0], modes = NORMAL) => steps(request).map((s) => render(s, modes));

  test("text, then Enter as a write of its own", () => {
    expect(writes({ text: "hello there", enter: true })).toEqual(["hello there", "\r"]);
    expect(writes({ text: "hello there", enter: false })).toEqual(["hello there"]);
    expect(writes({ text: "", enter: true })).toEqual(["\r"]);
  });

  test("a task that turned bracketed paste on gets the text as one paste", () => {
    expect(writes({ text: "/status", enter: true }, APP)).toEqual(["\x1b[200~/status\x1b[201~", "\r"]);
  });

  test("lines are typed and submitted one by one; --paste sends them as one message", () => {
    expect(writes({ text: "one\ntwo\r\nthree", enter: true })).toEqual(["one", "\r", "two", "\r", "three", "\r"]);
    expect(writes({ text: "one\ntwo", enter: false })).toEqual(["one", "\r", "two"]);
    expect(writes({ text: "one\ntwo", enter: true, paste: true }, APP)).toEqual(["\x1b[200~one\ntwo\x1b[201~", "\r"]);
    expect(writes({ text: "one\ntwo", enter: true, paste: true })).toEqual(["one\ntwo", "\r"]);
  });

  test("a paste end marker inside the text cannot end the paste early", () => {
    expect(bracketed("a\x1b[201~\rrm -rf ~\r")).toBe("\x1b[200~a\rrm -rf ~\r\x1b[201~");
  });

  test("keys are one write each", () => {
    expect(writes({ keys: ["C-c", "Enter", "Up"] }, APP)).toEqual(["\x03", "\r", "\x1bOA"]);
  });

  test("an older client's request (no enter field) is written as it came", () => {
    expect(writes({ text: "legacy\r" })).toEqual(["legacy\r"]);
  });
});

// A fast agent answers a send's Enter within a moment (its hook writes the event file at once): the
// answer must be a new question, not one the send clears. So the task is attended as the first key
// goes in, before anything it prints in reply; attended once a send had resolved, it swallowed the
// reply ("claude's hooks" in test/slow/attention.test.ts, under load).
describe("a send answers the task as its first key goes in", () => {
  function fakeTask(typist: Typist): Typed & { log: string[] } {
    const log: string[] = [];
    const task = {
      log,
      running: true,
      screen: { inputModes: () => ({ ...NORMAL }) },
      attended: () => void log.push("attended"),
      write: (data: string) => {
        log.push(`write ${JSON.stringify(data)}`);
        // The program echoes what it read, as a terminal does.
        setTimeout(() => typist.output(task), 0);
      },
    };
    return task;
  }

  test("once, before the first write of a text and its Enter", async () => {
    const typist = new Typist();
    const task = fakeTask(typist);
    await typist.send(task, { text: "/idle", enter: true });
    expect(task.log).toEqual(["attended", 'write "/idle"', 'write "\\r"']);
  });

  test("a send of keys alone too; one refused for an unknown key answers nothing", async () => {
    const typist = new Typist();
    const task = fakeTask(typist);
    await typist.send(task, { keys: ["Enter"] });
    expect(task.log).toEqual(["attended", 'write "\\r"']);
    const refused = fakeTask(typist);
    await expect(typist.send(refused, { keys: ["Nope"] })).rejects.toThrow("unknown key");
    expect(refused.log).toEqual([]);
  });
});
