// A byte count as people read it in a message: one way of writing it for every layer that says how
// much is queued, pending or too large.

const MIB = 1024 * 1024;

/** `1 MiB`, `1.5 MiB`: whole mebibytes without a decimal, others to one. */
export function mebibytes(bytes: number): string {
  const mib = bytes / MIB;
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

/** Whether `bytes` is a whole number of mebibytes, so that mebibytes() says it exactly. */
export function isWholeMebibytes(bytes: number): boolean {
  return bytes % MIB === 0;
}

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?$/i;
const SIZE_UNIT: Record<string, number> = { b: 1, k: 1024, m: MIB, g: 1024 * MIB };

/** `100M`, `64 KiB`, `1G`, a number of bytes: a size as a setting takes it (powers of 1024), or null. */
export function parseSize(value: string | number): number | null {
  if (typeof value === "number") return Number.isInteger(value) && value >= 0 ? value : null;
  const match = SIZE.exec(value.trim());
  if (!match) return null;
  const unit = SIZE_UNIT[(match[2] ?? "b")[0]!.toLowerCase()]!;
  return Math.floor(Number(match[1]) * unit);
}
