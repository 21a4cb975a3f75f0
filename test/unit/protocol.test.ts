// Pure pieces of the supervisor: framing, TASK resolution and references on the wire, the scrollback setting.
import { type } from "arktype";
import { describe, expect, test } from "bun:test";
import { DEFAULT_SCROLLBACK, MAX_SCROLLBACK, scrollbackSetting } from "../../src/settings.ts";
import { UserError } from "../../src/errors.ts";
import { FrameDecoder, FrameError, FrameKind, decodeJson, encodeControl, encodeData, encodeFrame } from "../../src/wire-framing.ts";
import { resolveTaskRef, taskById } from "../../src/task-ref.ts";
import { opArgs } from "../../src/wire-protocol.ts";

describe("frames", () => {
  test("a frame is a 4-byte big-endian length, a kind byte and the payload", () => {
    expect([...encodeData("hi")]).toEqual([0, 0, 0, 2, FrameKind.data, 104, 105]);
  });

  test("frames split across chunks at every byte boundary decode whole and in order", () => {
    const stream = Buffer.concat([encodeControl({ a: 1 }), encodeData("x".repeat(300)), encodeControl({ b: [2] })]);
    for (let cut = 1; cut < stream.length; cut++) {
      const decoder = new FrameDecoder(1024);
      const frames = [...decoder.push(stream.subarray(0, cut)), ...decoder.push(stream.subarray(cut))];
      expect(frames.map((f) => f.kind)).toEqual([FrameKind.control, FrameKind.data, FrameKind.control]);
      expect(decodeJson(frames[0]!.payload)).toEqual({ a: 1 });
      expect(frames[1]!.payload.length).toBe(300);
      expect(decodeJson(frames[2]!.payload)).toEqual({ b: [2] });
      expect(decoder.pending).toBe(false);
    }
  });

  test("a large frame arriving in many small pieces decodes once complete", () => {
    const payload = new Uint8Array(200_000).map((_, i) => i % 251);
    const frame = encodeFrame(FrameKind.data, payload);
    const decoder = new FrameDecoder(1 << 20);
    const out = [];
    for (let i = 0; i < frame.length; i += 997) out.push(...decoder.push(frame.subarray(i, i + 997)));
    expect(out).toHaveLength(1);
    expect(Buffer.from(out[0]!.payload).equals(Buffer.from(payload))).toBe(true);
  });

  test("a length over the bound is refused as soon as the header arrives", () => {
    const decoder = new FrameDecoder(16);
    expect(() => decoder.push(new Uint8Array([0, 0, 0, 17, 1]))).toThrow(FrameError);
  });

  test("an unknown kind is refused", () => {
    expect(() => new FrameDecoder(16).push(new Uint8Array([0, 0, 0, 0, 7]))).toThrow("unknown frame kind 7");
  });

  test("a truncated frame stays pending", () => {
    const decoder = new FrameDecoder(16);
    expect(decoder.push(new Uint8Array([0, 0, 0, 5, 2, 1]))).toEqual([]);
    expect(decoder.pending).toBe(true);
  });
});

describe("TASK resolution", () => {
  const tasks = [
    { id: 1, name: "api", command: "npm run dev" },
    { id: 2, name: null, command: "npm test -- --watch" },
    { id: 3, name: "Api docs", command: "mkdocs serve" },
    { id: 12, name: "3", command: "echo named three" },
  ].map((t) => ({ ...t, typed: t.command }));

  test.each([
    ["1", 1],
    ["12", 12],
    ["api", 1],
    ["Api docs", 3],
    ["api d", 3],
    ["MKDOCS", 3],
    ["npm t", 2],
  ])("%p resolves to task %p", (ref, id) => {
    expect(resolveTaskRef(ref, tasks).id).toBe(id);
  });

  test("an id wins over a display name that looks like one", () => {
    expect(resolveTaskRef("3", tasks).id).toBe(3);
  });

  test("an ambiguous prefix lists every candidate", () => {
    expect(() => resolveTaskRef("npm", tasks)).toThrow("'npm' matches 2 tasks: 1 api, 2 npm test -- --watch");
  });

  test("an unknown TASK lists the tasks there are", () => {
    expect(() => resolveTaskRef("zzz", tasks)).toThrow(UserError);
    expect(() => resolveTaskRef("zzz", [])).toThrow("no task matches 'zzz' (no tasks)");
  });

  test("an empty TASK matches nothing rather than everything", () => {
    expect(() => resolveTaskRef("", tasks)).toThrow("no task matches ''");
  });

  test("digits alone are an id and only an id: a removed id never falls through to a name or prefix", () => {
    const withApi = [
      ...tasks,
      { id: 13, name: "4-api", command: "sleep 1000", typed: "sleep 1000" },
      { id: 14, name: null, command: "4 more", typed: "4 more" },
    ];
    expect(() => resolveTaskRef("4", withApi)).toThrow("no task 4 (tasks: 1 api, 2 npm test -- --watch, 3 Api docs, 12 3, 13 4-api, 14 4 more)");
    expect(() => resolveTaskRef(" 4 ", withApi)).toThrow("no task 4 (tasks: ");
    expect(() => resolveTaskRef("4", [])).toThrow("no task 4 (no tasks)");
    expect(resolveTaskRef("4-api", withApi).id).toBe(13);
  });

  test("an id a client holds finds that task or none, whatever the names", () => {
    expect(taskById(12, tasks).name).toBe("3");
    expect(() => taskById(4, [...tasks, { id: 5, name: "4", command: "4", typed: "4" }])).toThrow(/^no task 4$/);
  });
});

describe("a task reference on the wire", () => {
  const accepted = (task: unknown) => !(opArgs.tag({ task }) instanceof type.errors);

  test("is an id a client holds or the text a user typed", () => {
    expect(accepted({ id: 3 })).toBe(true);
    expect(accepted({ typed: "api" })).toBe(true);
    expect(opArgs.kill({ tasks: [{ id: 1 }, { typed: "1-api" }] })).toEqual({ tasks: [{ id: 1 }, { typed: "1-api" }] });
  });

  test("is never bare text, an id as text, a fraction or empty typed text", () => {
    for (const task of ["3", 3, { id: "3" }, { id: 1.5 }, { typed: "" }, {}]) expect([task, accepted(task)]).toEqual([task, false]);
  });
});

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
