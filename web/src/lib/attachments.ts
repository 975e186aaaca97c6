/** The images chosen in the run composer, before their message is sent; pure. */

/** What POST /api/attachments takes (it reads the type from the bytes, OP-ATT-5). */
export const ACCEPTED_IMAGES = "image/png,image/jpeg,image/gif,image/webp";
/** A message carries at most this many images (the messages body's `attachments`). */
export const MAX_IMAGES = 8;
/** The API's limit of one upload (POST /api/attachments answers 413 past it). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * An image chosen in the composer: on its way up, stored under its id, or refused with the
 * reason (the console's own check or the API's). `preview` is a local object URL of its bytes.
 */
export type PendingImage = { key: string; filename: string; preview?: string } & (
  | { state: "uploading" }
  | { state: "ready"; id: string }
  | { state: "failed"; error: string }
);

/**
 * Why a file cannot be attached, before any upload: not an accepted image type, or larger
 * than the API takes; null when it may go (its bytes are still checked by the API).
 *
 * @example refusal({ type: "text/plain", size: 10 }) // "not a PNG, JPEG, GIF or WebP image (text/plain)"
 */
export function refusal(file: { type: string; size: number }): string | null {
  if (!ACCEPTED_IMAGES.split(",").includes(file.type)) return `not a PNG, JPEG, GIF or WebP image (${file.type || "unknown type"})`;
  if (file.size > MAX_IMAGE_BYTES) return `larger than 10 MiB (${(file.size / (1024 * 1024)).toFixed(1)} MiB)`;
  if (file.size === 0) return "the file is empty";
  return null;
}

/** The ids to send, in the order the images were chosen. */
export const readyIds = (images: PendingImage[]): string[] => images.flatMap((i) => (i.state === "ready" ? [i.id] : []));

/**
 * Whether the message can go: no image still uploading, and some text or an image
 * (an empty caption is allowed with images, ATT-003).
 *
 * @example sendable("", [{ key: "1", filename: "a.png", state: "ready", id: "…" }]) // true
 */
export function sendable(text: string, images: PendingImage[]): boolean {
  if (images.some((i) => i.state === "uploading")) return false;
  return text.trim().length > 0 || readyIds(images).length > 0;
}

/**
 * The files of a drop or a paste (a DataTransfer's files, or its items of kind file when a
 * browser lists the pasted image only there).
 */
export function transferredFiles(data: { files?: ArrayLike<File> | null; items?: ArrayLike<{ kind: string; getAsFile(): File | null }> | null }): File[] {
  const files = Array.from(data.files ?? []);
  if (files.length > 0) return files;
  return Array.from(data.items ?? []).flatMap((item) => {
    const file = item.kind === "file" ? item.getAsFile() : null;
    return file ? [file] : [];
  });
}

/** How many more images may be chosen (a refused one takes no place). */
export const imagesLeft = (images: PendingImage[]): number => MAX_IMAGES - images.filter((i) => i.state !== "failed").length;
