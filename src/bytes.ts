// Byte buffers joined: the framing decoder, the attach client's filters and the screen's backlog
// each hold chunks that must be read as one.

/** The chunks as one buffer; a single chunk is returned as it is. */
export function concatBytes(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
