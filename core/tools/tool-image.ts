/**
 * A tool's image (a browser screenshot) as the loop keeps it: an attachment of its own,
 * stored like an uploaded image and referenced from the tool row's metadata.attachments,
 * so the row stays small and the hydrator sends the image to the model (ATT-004).
 */
import type { AttachmentRef } from "../projection/types";
import { SNIFF_BYTES, sniffImageType } from "../validation/image-type";
import type { ToolImage } from "./types";

/** The same limit as an uploaded image. */
export const TOOL_IMAGE_MAX_BYTES = 10 * 1024 * 1024;

export type DecodedToolImage = { ok: true; bytes: Uint8Array; ref: AttachmentRef } | { ok: false; reason: string };

/**
 * The image's bytes and the attachment ref the tool row will carry, when they are an image of
 * an accepted type (by its bytes, not its claim) within the limit; otherwise why not.
 *
 * @example decodeToolImage({ mediaType: "image/png", dataBase64 }, "browser_screenshot", "call_1", id)
 * // { ok: true, bytes, ref: { id, filename: "browser_screenshot-call_1.png", mime: "image/png", kind: "image" } }
 */
export function decodeToolImage(image: ToolImage, toolName: string, toolCallId: string, id: string): DecodedToolImage {
  if (typeof image.dataBase64 !== "string" || image.dataBase64.length > Math.ceil(TOOL_IMAGE_MAX_BYTES / 3) * 4) {
    return { ok: false, reason: `the image is larger than ${TOOL_IMAGE_MAX_BYTES} bytes` };
  }
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(image.dataBase64), (c) => c.charCodeAt(0));
  } catch {
    return { ok: false, reason: "the image is not valid base64" };
  }
  const detected = sniffImageType(bytes.subarray(0, SNIFF_BYTES));
  if (!detected || detected !== image.mediaType) return { ok: false, reason: `the image is not the ${image.mediaType} it claims to be` };
  const extension = detected.slice("image/".length).replace("jpeg", "jpg");
  const filename = `${toolName}-${toolCallId}`.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 120);
  return { ok: true, bytes, ref: { id, filename: `${filename}.${extension}`, mime: detected, kind: "image" } };
}
