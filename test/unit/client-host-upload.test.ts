// What `hosts add` sends a host and the script that unpacks it there (client-host-upload.ts): the
// script run here by a real `sh` with the real gzip and zstd, in a temp HOME, as a host runs it.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Packing, packedPieces, packingFor } from "../../src/client-host-pack.ts";
import { installScript } from "../../src/client-host-upload.ts";
import { sha256Hex } from "../../src/text-sha256.ts";

const home = mkdtempSync(join(tmpdir(), "fleetcom-upload-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** A stand-in for the binary: a script that answers --version as fleetcom does, padded to be worth packing. */
function binary(version: string): Uint8Array {
  return new TextEncoder().encode(`#!/bin/sh\necho ${version}\nexit 0\n${"# padding that packs well\n".repeat(20_000)}`);
}

function runScript(script: string, stdin: Uint8Array): { code: number; stderr: string } {
  const r = Bun.spawnSync(["sh", "-c", script], { stdin, stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH!, HOME: home } });
  return { code: r.exitCode ?? -1, stderr: r.stderr.toString() };
}

/** The whole stream as it goes on the wire, in pieces of `pieceBytes` before packing. */
async function pack(bytes: Uint8Array, packing: Packing, pieceBytes?: number): Promise<Uint8Array> {
  return Buffer.concat(await Array.fromAsync(packedPieces(bytes, packing, pieceBytes)));
}

const dir = (version: string) => join(home, ".local/share/fleetcom", version);

test("the best packing the host can unpack: xz when this side has it too, else zstd, else gzip, else the bytes as they are", () => {
  expect(packingFor(["gzip", "zstd", "xz"], true)).toBe("xz");
  expect(packingFor(["gzip", "zstd", "xz"], false)).toBe("zstd");
  expect(packingFor(["xz", "gzip"], false)).toBe("gzip");
  expect(packingFor(["gzip", "zstd"], true)).toBe("zstd");
  expect(packingFor(["gzip"])).toBe("gzip");
  expect(packingFor([])).toBe("none");
});

for (const packing of ["xz", "zstd", "gzip", "none"] as const)
  test(`${packing}: the host unpacks, verifies and renames the binary into place, far smaller on the wire when packed`, async () => {
    const version = `9.0.${packing}`;
    const bytes = binary(version);
    // Pieces of 64 KiB: the stream is several xz streams, zstd frames or gzip members, which the host reads as one.
    const packed = await pack(bytes, packing, 64 * 1024);
    if (packing === "none") expect(packed).toEqual(Buffer.from(bytes));
    else expect(packed.length).toBeLessThan(bytes.length / 10);
    const r = runScript(installScript(sha256Hex(bytes), packing, version), packed);
    expect(r).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(join(dir(version), "fleetcom"))).toEqual(Buffer.from(bytes));
    expect(readdirSync(dir(version))).toEqual(["fleetcom"]);
  });

test("a stream cut short, or one damaged on the way, leaves the fleetcom there as it was and says so in one line", async () => {
  const version = "9.1.0";
  mkdirSync(dir(version), { recursive: true });
  const before = "#!/bin/sh\necho 0.0.0-before\n";
  writeFileSync(join(dir(version), "fleetcom"), before);
  chmodSync(join(dir(version), "fleetcom"), 0o755);
  const bytes = binary(version);
  for (const packing of ["xz", "zstd", "gzip"] as const) {
    const packed = await pack(bytes, packing);
    const damaged = Uint8Array.from(packed);
    damaged[Math.floor(damaged.length / 2)]! ^= 0xff;
    for (const sent of [packed.subarray(0, packed.length >> 1), damaged]) {
      const r = runScript(installScript(sha256Hex(bytes), packing, version), sent);
      expect(r.code).toBe(3);
      const last = r.stderr.trim().split("\n").at(-1)!;
      expect(last).toMatch(
        /^(the upload arrived cut short or damaged \((xz|zstd|gzip) could not unpack it\)|checksum mismatch after the upload .*); nothing installed, the fleetcom there is as it was$/,
      );
      expect(readFileSync(join(dir(version), "fleetcom"), "utf8")).toBe(before);
      expect(readdirSync(dir(version))).toEqual(["fleetcom"]);
    }
  }
  // Unpacked whole but not the binary that was meant: the checksum refuses it.
  const r = runScript(installScript(sha256Hex(binary("9.1.1")), "gzip", version), await pack(bytes, "gzip"));
  expect(r.stderr.trim()).toStartWith("checksum mismatch after the upload");
  expect(readFileSync(join(dir(version), "fleetcom"), "utf8")).toBe(before);
});
