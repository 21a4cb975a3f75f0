// The packed binary kept between hosts (client-host-pack-cache.ts), in a temp XDG_CACHE_HOME: a kept
// pack is sent only when its recorded size and SHA-256 hold, anything else is packed again and
// replaced, and an upload that stops early keeps nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { cachedPieces, packDir } from "../../src/client-host-pack-cache.ts";
import { packedPieces } from "../../src/client-host-pack.ts";
import { sha256Hex } from "../../src/text-sha256.ts";

const cache = mkdtempSync(join(tmpdir(), "fleetcom-pack-cache-"));
const saved = process.env.XDG_CACHE_HOME;
beforeAll(() => {
  process.env.XDG_CACHE_HOME = cache;
});
afterAll(() => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  rmSync(cache, { recursive: true, force: true });
});

const bytes = new TextEncoder().encode("a binary's worth of bytes\n".repeat(50_000));
const binary = sha256Hex(bytes);

/** The stream cachedPieces gives, and how many times it had to pack. */
async function send(version: string): Promise<{ stream: Buffer; packed: number }> {
  let packed = 0;
  const pack = () => {
    packed++;
    return packedPieces(bytes, "gzip", 64 * 1024);
  };
  const stream = Buffer.concat(await Array.fromAsync(cachedPieces(binary, "gzip", pack, version)));
  return { stream, packed };
}

function kept(version: string): { pack: string; record: { bytes: number; sha256: string } } {
  const name = readdirSync(packDir(version)).find((f) => f.endsWith(".gzip"))!;
  const pack = join(packDir(version), name);
  return { pack, record: JSON.parse(readFileSync(`${pack}.json`, "utf8")) };
}

// node:zlib reads every gzip member, one after another, as gzip -d does.
const unpacked = (stream: Buffer) => new Uint8Array(gunzipSync(stream));

test("the first host packs and keeps the pack with its size and hash; the next is sent the kept pack without packing", async () => {
  const first = await send("9.2.0");
  expect(first.packed).toBe(1);
  expect(unpacked(first.stream)).toEqual(bytes);
  const { pack, record } = kept("9.2.0");
  expect(packDir("9.2.0")).toStartWith(cache);
  expect(record).toMatchObject({ bytes: first.stream.length, sha256: sha256Hex(first.stream) });
  expect(sha256Hex(readFileSync(pack))).toBe(sha256Hex(first.stream));
  const second = await send("9.2.0");
  expect(second).toEqual({ stream: first.stream, packed: 0 });
  // Only the pack and its record: no temporary file left behind.
  expect(readdirSync(packDir("9.2.0")).length).toBe(2);
});

test("a kept pack damaged, cut short or without its record is packed again and replaced, never sent", async () => {
  const good = (await send("9.3.0")).stream;
  const damage: [string, (pack: string) => void][] = [
    [
      "a byte flipped",
      (pack) =>
        writeFileSync(
          pack,
          Uint8Array.from(readFileSync(pack), (b, i) => (i === 100 ? b ^ 0xff : b)),
        ),
    ],
    ["cut short", (pack) => truncateSync(pack, 1000)],
    ["its record gone", (pack) => rmSync(`${pack}.json`)],
    ["its record not a record", (pack) => writeFileSync(`${pack}.json`, '{"bytes":"many"}')],
  ];
  for (const [what, spoil] of damage) {
    spoil(kept("9.3.0").pack);
    const again = await send("9.3.0");
    expect({ what, packed: again.packed }).toEqual({ what, packed: 1 });
    expect(again.stream).toEqual(good);
    expect(sha256Hex(readFileSync(kept("9.3.0").pack))).toBe(sha256Hex(good));
  }
});

test("a FIFO or a symlink put in place of a kept record is refused, never waited on or followed: the binary is packed again", async () => {
  const good = (await send("9.3.5")).stream;
  const spoilers: [string, (record: string) => void][] = [
    ["a FIFO", (record) => Bun.spawnSync(["mkfifo", record])],
    ["a symlink", (record) => symlinkSync("/dev/zero", record)],
  ];
  for (const [what, spoil] of spoilers) {
    const record = `${kept("9.3.5").pack}.json`;
    rmSync(record);
    spoil(record);
    const again = await send("9.3.5");
    expect({ what, packed: again.packed }).toEqual({ what, packed: 1 });
    expect(again.stream).toEqual(good);
  }
});

test("an upload that stops before the last piece keeps nothing, and a new version's pack prunes the older ones", async () => {
  const pieces = cachedPieces(binary, "gzip", () => packedPieces(bytes, "gzip", 64 * 1024), "9.4.0");
  await pieces.next();
  await pieces.return(undefined);
  expect(readdirSync(packDir("9.4.0"))).toEqual([]);
  mkdirSync(packDir("9.4.1"), { recursive: true });
  await send("9.4.2");
  expect(existsSync(packDir("9.4.1"))).toBe(false);
  expect(existsSync(packDir("9.2.0"))).toBe(false);
  expect(readdirSync(join(cache, "fleetcom", "packed"))).toEqual(["9.4.2"]);
});
