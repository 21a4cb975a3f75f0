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
