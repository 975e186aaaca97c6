/** The images chosen in the run composer, before their message is sent; pure. */

/** What POST /api/attachments takes (it reads the type from the bytes, OP-ATT-5). */
export const ACCEPTED_IMAGES = "image/png,image/jpeg,image/gif,image/webp";
/** A message carries at most this many images (the messages body's `attachments`). */
export const MAX_IMAGES = 8;

/** An image chosen in the composer: on its way up, stored under its id, or refused with the API's reason. */
export type PendingImage = { key: string; filename: string } & ({ state: "uploading" } | { state: "ready"; id: string } | { state: "failed"; error: string });

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

/** How many more images may be chosen (a refused one takes no place). */
export const imagesLeft = (images: PendingImage[]): number => MAX_IMAGES - images.filter((i) => i.state !== "failed").length;
