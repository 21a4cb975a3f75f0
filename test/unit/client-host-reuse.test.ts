// At a new version, the blocks the host's previous fleetcom shares with this one are taken from it
// there (client-host-reuse.ts): the scripts run here by a real `sh`, `dd`, `sha256sum` and zstd, in
// a temp HOME, as a host runs them.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BLOCK_BYTES, blockHashScript, parseBlockHashes, planReuse } from "../../src/client-host-reuse.ts";
import { packedPieces } from "../../src/client-host-pack.ts";
import { installScript } from "../../src/client-host-upload.ts";
import { sha256Hex } from "../../src/text-sha256.ts";

const home = mkdtempSync(join(tmpdir(), "fleetcom-reuse-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function sh(script: string, stdin: Uint8Array = new Uint8Array()): { code: number; stdout: string; stderr: string } {
  const r = Bun.spawnSync(["sh", "-c", script], { stdin, stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH!, HOME: home } });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** A stand-in binary: answers --version, then `blocks` blocks of random bytes (nothing packs them). */
function binary(version: string, blocks: number): Uint8Array {
  const head = new TextEncoder().encode(`#!/bin/sh\necho ${version}\nexit 0\n`);
  const out = new Uint8Array(blocks * BLOCK_BYTES);
  // getRandomValues fills at most 64 KiB a call.
  for (let at = 0; at < out.length; at += 65536) crypto.getRandomValues(out.subarray(at, at + 65536));
  out.set(head, 0);
  return out;
}

const installs = join(home, ".local/share/fleetcom");
const packed = async (bytes: Uint8Array) => Buffer.concat(await Array.fromAsync(packedPieces(bytes, "zstd")));

test("the next version is put together from the blocks sent and the previous one's there, and verified", async () => {
  const old = binary("9.0.0", 20);
  mkdirSync(join(installs, "9.0.0"), { recursive: true });
  const from = join(installs, "9.0.0", "fleetcom");
  writeFileSync(from, old, { mode: 0o755 });
  // The new build: its first block (the version it prints) and one in the middle differ, and it is two blocks longer.
  const next = new Uint8Array(22 * BLOCK_BYTES);
  next.set(old);
  next.set(binary("9.1.0", 1).subarray(0, BLOCK_BYTES), 0);
  crypto.getRandomValues(next.subarray(7 * BLOCK_BYTES, 7 * BLOCK_BYTES + 4096));
  crypto.getRandomValues(next.subarray(20 * BLOCK_BYTES, 20 * BLOCK_BYTES + 65536));
  crypto.getRandomValues(next.subarray(21 * BLOCK_BYTES, 21 * BLOCK_BYTES + 65536));
  const hashes = sh(blockHashScript(from));
  expect(hashes.code).toBe(0);
  const theirs = parseBlockHashes(hashes.stdout)!;
  expect(theirs).toHaveLength(20);
  const reuse = planReuse(next, from, theirs)!;
  expect(reuse.plan).toBe(`n${"o".repeat(6)}n${"o".repeat(12)}nn`);
  expect(reuse.sent.length).toBe(4 * BLOCK_BYTES);
  const r = sh(installScript(sha256Hex(next), "zstd", "9.1.0", reuse), await packed(reuse.sent));
  expect(r).toMatchObject({ code: 0, stderr: "" });
  expect(readFileSync(join(installs, "9.1.0", "fleetcom"))).toEqual(Buffer.from(next));
  expect(readdirSync(join(installs, "9.1.0"))).toEqual(["fleetcom"]);
  expect(readdirSync(installs).sort()).toEqual(["9.0.0", "9.1.0"]);
});

test("a host that lies about its blocks gets nothing installed: the whole is checked before the rename", async () => {
  const old = binary("9.2.0", 6);
  mkdirSync(join(installs, "9.2.0"), { recursive: true });
  const from = join(installs, "9.2.0", "fleetcom");
  writeFileSync(from, old, { mode: 0o755 });
  const next = binary("9.3.0", 6);
  // It claims to hold every block of the new binary.
  const lie = Array.from({ length: 6 }, (_, i) => sha256Hex(next.subarray(i * BLOCK_BYTES, (i + 1) * BLOCK_BYTES)));
  const reuse = planReuse(next, from, lie)!;
  expect(reuse.plan).toBe("oooooo");
  const r = sh(installScript(sha256Hex(next), "zstd", "9.3.0", reuse), await packed(reuse.sent));
  expect(r.code).toBe(3);
  expect(r.stderr.trim().split("\n").at(-1)).toStartWith("checksum mismatch after the upload");
  expect(readdirSync(join(installs, "9.3.0"))).toEqual([]);
});

test("an answer that is not a hash per block is no plan", () => {
  const line = `${"a".repeat(64)}  -`;
  expect(parseBlockHashes(`${line}\n${line}\n`)).toEqual(["a".repeat(64), "a".repeat(64)]);
  for (const answer of ["", "garbage\n", `${"a".repeat(63)}  -\n`, `${"a".repeat(64)}  ../etc/passwd\n`, `${line}\n\x1b]0;t\x07\n`, `${line}\n`.repeat(1025)])
    expect(parseBlockHashes(answer)).toBeNull();
  expect(planReuse(binary("9.4.0", 2), "/x", ["b".repeat(64)])).toBeNull();
});
