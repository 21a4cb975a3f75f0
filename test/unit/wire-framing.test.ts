// The socket's framing (wire-framing.ts): a length, a kind byte and the payload, decoded whole from
// any split of the stream, and refused at the header when over the bound or of an unknown kind.
import { describe, expect, test } from "bun:test";
import { FrameDecoder, FrameError, FrameKind, decodeJson, encodeControl, encodeData, encodeFrame } from "../../src/wire-framing.ts";

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

  test("every byte of the length counts, the top bit too", () => {
    const frame = encodeFrame(FrameKind.data, new Uint8Array(0x010203));
    expect([...frame.subarray(0, 5)]).toEqual([0, 1, 2, 3, FrameKind.data]);
    expect(new FrameDecoder(1 << 20).push(frame)[0]!.payload.length).toBe(0x010203);
    expect(() => new FrameDecoder(1 << 20).push(new Uint8Array([0x80, 0, 0, 0, 1]))).toThrow("frame of 2147483648 bytes exceeds the 1048576-byte bound");
    expect(() => new FrameDecoder(1 << 20).push(new Uint8Array([0xff, 0xff, 0xff, 0xff, 1]))).toThrow("frame of 4294967295 bytes");
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
