/**
 * Standard base64 of bytes and back, with the platform's `btoa`/`atob` (Workers and Node
 * alike). The bytes go to `btoa` in slices: spreading a whole image's bytes into one
 * `String.fromCharCode` call would pass the engine's argument limit.
 *
 * @example toBase64(new TextEncoder().encode("x-access-token:abc")) // "eC1hY2Nlc3MtdG9rZW46YWJj"
 * @example fromBase64("AQI=") // Uint8Array [1, 2]
 */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += SLICE) binary += String.fromCharCode(...bytes.subarray(i, i + SLICE));
  return btoa(binary);
}

/** The bytes of a standard base64 text; throws on text that is not base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const SLICE = 0x8000;
