/** The image types an upload may have (OP-ATT-2). */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;
type ImageType = (typeof IMAGE_TYPES)[number];

/** Bytes the signatures below need: enough of the file's start to tell the four apart. */
export const SNIFF_BYTES = 12;

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) => bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/**
 * The image type a file's first bytes announce (magic numbers), or null for anything
 * else. The declared Content-Type is the client's claim; this is what the bytes are.
 *
 * @example sniffImageType(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) // "image/png"
 */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  return null;
}

export const isImageType = (mime: string): mime is ImageType => (IMAGE_TYPES as readonly string[]).includes(mime);
