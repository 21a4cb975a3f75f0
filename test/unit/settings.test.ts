// The scrollback setting (settings.ts): the flag over the environment, the cap, and what a bad value
// of each does. notify's destinations: what each written form is, and the line that refuses a bad one.
// Reading the config file: each key from its line, the environment over it, a bad line costing only its key.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEFAULT_SCROLLBACK,
  MAX_SCROLLBACK,
  confirmSetting,
  detachKeySetting,
  loadSettings,
  notifyDestination,
  parseDetachKey,
  scrollbackSetting,
} from "../../src/settings.ts";
import { makeSandbox, type Sandbox } from "../harness/helpers.ts";

describe("scrollback setting", () => {
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);

  test("defaults to 2,000", () => {
    expect(scrollbackSetting(undefined, undefined, log)).toBe(DEFAULT_SCROLLBACK);
    expect(DEFAULT_SCROLLBACK).toBe(2000);
  });

  test("the flag wins over the environment", () => {
    expect(scrollbackSetting("50", "70", log)).toBe(50);
  });

  test("is capped at 100,000 and 0 turns it off", () => {
    expect(scrollbackSetting("5000000", undefined, log)).toBe(MAX_SCROLLBACK);
    expect(scrollbackSetting(undefined, "0", log)).toBe(0);
  });

  test("an unparsable environment value falls back to the default with a logged warning", () => {
    logs.length = 0;
    expect(scrollbackSetting(undefined, "lots", log)).toBe(DEFAULT_SCROLLBACK);
    expect(logs).toEqual(["FLEETCOM_SCROLLBACK='lots' is not a whole number; using 2000"]);
  });

  test("an unparsable flag is a usage error", () => {
    expect(() => scrollbackSetting("-1", undefined, log)).toThrow("--scrollback: expected a whole number, got '-1'");
  });
});

describe("notify's destinations", () => {
  test.each([
    ["a command line", "notify-send fleetcom", { kind: "command", command: "notify-send fleetcom" }],
    ["a command that names a URL", "curl -d hi https://ntfy.sh/t", { kind: "command" }],
    ["an ntfy topic, over https", "ntfy://ntfy.sh/my-topic_1", { kind: "ntfy", url: "https://ntfy.sh/my-topic_1", authorization: null, click: null }],
    [
      "an ntfy topic over http, with a port and a click URL",
      "ntfy+http://127.0.0.1:8080/t?click=https://x.test/a",
      { url: "http://127.0.0.1:8080/t", click: "https://x.test/a" },
    ],
    [
      "an ntfy topic with a user and password",
      "ntfy://phil:my%20pass@ntfy.example/t",
      { url: "https://ntfy.example/t", authorization: `Basic ${btoa("phil:my pass")}` },
    ],
    ["a click URL that is not ASCII, in its ASCII form", "ntfy://ntfy.sh/t?click=https://bücher.example/ä", { click: "https://xn--bcher-kva.example/%C3%A4" }],
    ["a webhook", "https://hooks.example/x?k=1", { kind: "webhook", url: "https://hooks.example/x?k=1" }],
    ["a plain http webhook", "http://127.0.0.1:9/h", { kind: "webhook", url: "http://127.0.0.1:9/h" }],
  ])("%s", (_what, written, expected) => {
    const parsed = notifyDestination(written);
    expect(parsed).toEqual({ ok: expect.objectContaining({ written, ...expected }) });
  });

  test.each([
    [
      "a mistyped scheme",
      "htps://hooks.example/x",
      "'htps://hooks.example/x': unknown scheme htps:// (ntfy://host/topic, ntfy+http://host:port/topic, https://… or http://…)",
    ],
    [
      "an ntfy server without a topic",
      "ntfy://ntfy.sh",
      "'ntfy://ntfy.sh': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64)",
    ],
    [
      "an ntfy topic of two segments",
      "ntfy://ntfy.sh/a/b",
      "'ntfy://ntfy.sh/a/b': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64)",
    ],
    [
      "an ntfy topic with a space",
      "ntfy://ntfy.sh/a b",
      "'ntfy://ntfy.sh/a b': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64)",
    ],
    ["an ntfy host that is no host", "ntfy://999.1.1.1/t", "'ntfy://999.1.1.1/t': 999.1.1.1 is not a host name"],
    [
      "a click URL a phone cannot open",
      "ntfy://ntfy.sh/t?click=javascript:alert(1)",
      "'ntfy://ntfy.sh/t?click=javascript:alert(1)': click=javascript:alert(1) is not an http(s) URL",
    ],
    ["a webhook that is no URL", "https://", "'https://' is not a URL (ntfy://host/topic, ntfy+http://host:port/topic, https://… or http://…)"],
  ])("%s is refused with one line naming it", (_what, written, error) => {
    expect(notifyDestination(written)).toEqual({ error });
  });
});

describe("reading the config file", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => sandbox.cleanup());
  const write = (text: string) => {
    mkdirSync(sandbox.config, { recursive: true });
    writeFileSync(join(sandbox.config, "config.toml"), text);
    return join(sandbox.config, "config.toml");
  };
  // The file is read once per process and path: a second text needs a directory of its own.
  let dirs = 0;
  const envWithFile = (text: string) => {
    const dir = join(sandbox.root, `config-${++dirs}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "config.toml"), text);
    return { env: { ...sandbox.env, FLEETCOM_CONFIG_DIR: dir }, file: join(dir, "config.toml") };
  };

  test("no file: every setting is its default", () => {
    const s = loadSettings(sandbox.env);
    expect([s.notify, s.scrollback, s.idleSeconds, s.confirm].map((r) => [r.value, r.source])).toEqual([
      [[], "default"],
      [2000, "default"],
      [10, "default"],
      [true, "default"],
    ]);
    expect(s.detachKey).toEqual({ value: { name: "Ctrl-\\", byte: 0x1c }, source: "default" });
    expect(s.problems).toEqual([]);
  });

  test("each key from its line of the file; the environment overrides a key; a flag overrides both", () => {
    const file = write('# mine\nnotify = "notify-send fleetcom"\nscrollback = 500\nidle_seconds = 2.5\ndetach_key = "ctrl-]"\nconfirm = false\n');
    const s = loadSettings({ ...sandbox.env, FLEETCOM_SCROLLBACK: "70", FLEETCOM_CONFIRM: "yes" });
    expect(s.notify).toEqual({ value: ["notify-send fleetcom"], source: `${file}:2` });
    expect(s.scrollback).toEqual({ value: 70, source: "FLEETCOM_SCROLLBACK" });
    expect(s.idleSeconds).toEqual({ value: 2.5, source: `${file}:4` });
    expect(s.detachKey).toEqual({ value: { name: "Ctrl-]", byte: 0x1d }, source: `${file}:5` });
    expect(s.confirm).toEqual({ value: true, source: "FLEETCOM_CONFIRM" });
    expect(loadSettings(sandbox.env, { scrollback: "9" }).scrollback).toEqual({ value: 9, source: "--scrollback" });
    expect(detachKeySetting(sandbox.env)).toEqual({ name: "Ctrl-]", byte: 0x1d });
    expect(confirmSetting(sandbox.env)).toBe(false);
    expect(confirmSetting({ ...sandbox.env, FLEETCOM_CONFIRM: "0" })).toBe(false);
  });

  test("a bad file costs only its bad keys: one line each naming the file, the line and the key", () => {
    const file = write('scrollback = "lots"\nnotify = "echo hi"\nidle_seconds = = 3\nscrolback = 10\ndetach_key = "ctrl-c"\nconfirm = false\n');
    const s = loadSettings(sandbox.env);
    expect(s.problems).toEqual([
      `${file}:1: scrollback: expected a whole number of lines, got "lots"; using the default`,
      expect.stringMatching(new RegExp(`^${file}:3: idle_seconds: not valid TOML \\(.+\\); using the default for idle_seconds$`)),
      `${file}:4: unknown key 'scrolback' (did you mean scrollback?); ignored`,
      `${file}:5: detach_key: 'ctrl-c' would take a key programs need (Ctrl-C interrupts); using the default`,
    ]);
    expect([s.scrollback.value, s.notify.value, s.idleSeconds.value, s.detachKey.value.name, s.confirm.value]).toEqual([
      2000,
      ["echo hi"],
      10,
      "Ctrl-\\",
      false,
    ]);
  });

  test("notify's list keeps its good destinations; each bad one is one line naming it, and the environment's own", () => {
    const file = write('notify = [\n  "ntfy://ntfy.sh/fleet",\n  "htps://hooks.example/x",\n  "ntfy://ntfy.sh",\n  3,\n  "notify-send hi",\n]\n');
    const s = loadSettings(sandbox.env);
    expect(s.notify).toEqual({ value: ["ntfy://ntfy.sh/fleet", "notify-send hi"], source: `${file}:1` });
    expect(s.problems).toEqual([
      `${file}:1: notify: 'htps://hooks.example/x': unknown scheme htps:// (ntfy://host/topic, ntfy+http://host:port/topic, https://… or http://…); ignored`,
      `${file}:1: notify: 'ntfy://ntfy.sh': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64); ignored`,
      `${file}:1: notify: expected a destination in quotes or { to = "…", events = […] }, got 3; ignored`,
    ]);
    // FLEETCOM_NOTIFY is one destination, a URL as well as a command line; a bad one leaves the file's list in force.
    expect(loadSettings({ ...sandbox.env, FLEETCOM_NOTIFY: "https://hooks.example/y" }).notify).toEqual({
      value: ["https://hooks.example/y"],
      source: "FLEETCOM_NOTIFY",
    });
    const bad = loadSettings({ ...sandbox.env, FLEETCOM_NOTIFY: "ntfy://x/" });
    expect(bad.notify.source).toBe(`${file}:1`);
    expect(bad.problems).toContain(
      "FLEETCOM_NOTIFY: 'ntfy://x/': expected ntfy://host[:port]/topic, the topic of letters, digits, - and _ (at most 64); ignored",
    );
  });

  test("a yes/no word without quotes (confirm = no, as tmux writes it) is taken as the quoted word would be; another bare word gets the quoting hint", () => {
    const bare = envWithFile("confirm = no\n");
    expect(loadSettings(bare.env).problems).toEqual([]);
    expect(loadSettings(bare.env).confirm).toEqual({ value: false, source: `${bare.file}:1` });
    const odd = envWithFile("confirm = maybe\n");
    expect(loadSettings(odd.env).problems).toEqual([
      `${odd.file}:1: confirm: not valid TOML (invalid value; a word needs quotes: confirm = "maybe"); taking confirm = true to be safe`,
    ]);
  });

  test("history = off without quotes turns history off: a line meant to keep output off disk never keeps it on", () => {
    const bare = envWithFile("history = off\n");
    const s = loadSettings(bare.env);
    expect(s.history).toEqual({ value: false, source: `${bare.file}:1` });
    expect(s.problems).toEqual([]);
  });

  test("a bad environment value is ignored, with one line naming the variable", () => {
    const s = loadSettings({ ...sandbox.env, FLEETCOM_IDLE_SECONDS: "soon", FLEETCOM_DETACH_KEY: "x" });
    expect(s.idleSeconds.value).toBe(10);
    expect(s.problems).toEqual([
      "FLEETCOM_IDLE_SECONDS: 'soon' is not a number of seconds above 0 (at most 86400); ignored",
      "FLEETCOM_DETACH_KEY: 'x' is not a control key (write it as ctrl-\\, ctrl-], ctrl-^, ctrl-_ or ctrl-<letter>); ignored",
    ]);
  });

  test("every yes/no setting reads on/off, true/false, yes/no and 1/0, in any case: FLEETCOM_HISTORY=0, false or no turns history off", () => {
    const history = (v: string) => loadSettings({ ...sandbox.env, FLEETCOM_HISTORY: v });
    for (const v of ["0", "false", "no", "off", "OFF", " Off ", "No", "FALSE"]) {
      expect(history(v).history).toEqual({ value: false, source: "FLEETCOM_HISTORY" });
      expect(history(v).problems).toEqual([]);
      expect(confirmSetting({ ...sandbox.env, FLEETCOM_CONFIRM: v })).toBe(false);
    }
    for (const v of ["1", "true", "yes", "on", " ON", "Yes"]) {
      expect(history(v).history).toEqual({ value: true, source: "FLEETCOM_HISTORY" });
      expect(confirmSetting({ ...sandbox.env, FLEETCOM_CONFIRM: v })).toBe(true);
    }
    expect(loadSettings(sandbox.env).history).toEqual({ value: true, source: "default" });
    const words = envWithFile('history = "off"\nconfirm = "no"\n');
    expect(loadSettings(words.env).history).toEqual({ value: false, source: `${words.file}:1` });
    expect(loadSettings(words.env).confirm).toEqual({ value: false, source: `${words.file}:2` });
    const toml = envWithFile("history = false\n");
    expect(loadSettings(toml.env).history).toEqual({ value: false, source: `${toml.file}:1` });
  });

  test("an unreadable history value keeps history off (it can hold secrets), an unreadable confirm asks: each with one line", () => {
    write("history = true\nconfirm = false\n");
    const s = loadSettings({ ...sandbox.env, FLEETCOM_HISTORY: "banana", FLEETCOM_CONFIRM: "sure" });
    expect(s.history).toEqual({ value: false, source: "FLEETCOM_HISTORY" });
    expect(s.confirm).toEqual({ value: true, source: "FLEETCOM_CONFIRM" });
    expect(s.problems).toEqual([
      "FLEETCOM_CONFIRM: 'sure' is not one of on, off, true, false, yes, no, 1, 0; taking confirm = true to be safe",
      "FLEETCOM_HISTORY: 'banana' is not one of on, off, true, false, yes, no, 1, 0; taking history = false to be safe",
    ]);
    const bad = envWithFile('history = "nope"\nconfirm = 3\n');
    const t = loadSettings(bad.env);
    expect([t.history, t.confirm]).toEqual([
      { value: false, source: `${bad.file}:1` },
      { value: true, source: `${bad.file}:2` },
    ]);
    expect(t.problems).toEqual([
      `${bad.file}:1: history: 'nope' is not one of on, off, true, false, yes, no, 1, 0; taking history = false to be safe`,
      `${bad.file}:2: confirm: '3' is not one of on, off, true, false, yes, no, 1, 0; taking confirm = true to be safe`,
    ]);
  });

  test.each([
    ["ctrl-\\", 0x1c],
    ["ctrl-]", 0x1d],
    ["C-b", 0x02],
    ["^A", 0x01],
    ["Ctrl+_", 0x1f],
  ])("the detach key %p is byte %p", (raw, byte) => {
    expect(parseDetachKey(raw)).toMatchObject({ ok: { byte } });
  });

  test.each(["ctrl-c", "ctrl-d", "ctrl-z", "ctrl-m", "ctrl-[", "q", "ctrl-", "alt-x"])("%p is refused as a detach key", (raw) => {
    expect(parseDetachKey(raw)).toHaveProperty("error");
  });
});
