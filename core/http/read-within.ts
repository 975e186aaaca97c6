import { concatBytes } from "../bytes/concat";

/**
 * A stream's bytes, read only while they fit in `maxBytes`: past the cap the read stops and the
 * stream is cancelled, so what a peer sends never grows in memory beyond it. Shared by the API's
 * request bodies and the agent object's reads from a box.
 *
 * @example await readWithin(request.body, 1 << 20) // Uint8Array, or null past 1 MiB
 */
export async function readWithin(stream: ReadableStream<Uint8Array> | null | undefined, maxBytes: number): Promise<Uint8Array | null> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  return concatBytes(parts);
}
