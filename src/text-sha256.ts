// SHA-256 as hex, synchronously. Bun's native hasher where there is one: importing node:crypto costs
// every starting daemon CPU (docs/benchmarks.md) for the one short hash it takes (the supervisor record's
// name). Deno from source gets node:crypto, loaded on first use.
import { createRequire } from "node:module";

export function sha256Hex(data: string | Uint8Array): string {
  if (typeof Bun !== "undefined") return new Bun.CryptoHasher("sha256").update(data).digest("hex");
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(data).digest("hex");
}
