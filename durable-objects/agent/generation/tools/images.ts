import type { Database } from "../../../../core/db/client";
import { attachmentKey, attachments } from "../../../../core/db/schema";
import type { AttachmentRef } from "../../../../core/projection/types";
import { decodeToolImage } from "../../../../core/tools/tool-image";
import type { ToolImage } from "../../../../core/tools/types";

/** Keeps a tool's image; the ref for the tool row, or why it could not be kept (for the result text). */
export type ToolImageStore = (image: ToolImage, toolName: string, toolCallId: string) => Promise<{ ref: AttachmentRef } | { reason: string }>;

/**
 * Tool images as attachments of the run's organisation: bytes in the ATTACHMENTS bucket
 * under the uploads' key, a row in `attachments` (so the console can fetch it by id like an
 * upload). No bucket: the image cannot be kept, and the result says so.
 */
export function r2ToolImages(db: Database, bucket: R2Bucket | undefined, organisationId: string): ToolImageStore {
  return async (image, toolName, toolCallId) => {
    if (!bucket) return { reason: "no attachment store is configured" };
    const decoded = decodeToolImage(image, toolName, toolCallId, crypto.randomUUID());
    if (!decoded.ok) return { reason: decoded.reason };
    const { ref, bytes } = decoded;
    await bucket.put(attachmentKey(ref.id), bytes, { httpMetadata: { contentType: ref.mime } });
    await db.insert(attachments).values({
      id: ref.id,
      organisationId,
      filename: ref.filename,
      mime: ref.mime,
      kind: ref.kind,
      sizeBytes: bytes.byteLength,
      storageKey: attachmentKey(ref.id),
    });
    return { ref };
  };
}
