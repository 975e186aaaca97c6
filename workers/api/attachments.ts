import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { attachmentKey, attachments } from "../../core/db/schema";
import { contentDisposition, uploadFilename } from "../../core/http/content-disposition";
import { IMAGE_TYPES, isImageType, SNIFF_BYTES, sniffImageType } from "../../core/validation/image-type";
import { readLimitedForm } from "../http/body";
import type { AppEnv } from "../http/context";
import { failure, ok, operation, pathId } from "../http/contract";
import { ApiError, notFound, validationFailed } from "../http/errors";
import { Attachment } from "./attachments.schema";

const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Room for the multipart framing around the file. */
const MULTIPART_OVERHEAD = 64 * 1024;
const TOO_LARGE = `Attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes`;

const toAttachment = (row: typeof attachments.$inferSelect) => ({
  id: row.id,
  filename: row.filename,
  mime: row.mime,
  kind: row.kind,
  size: row.sizeBytes,
  created_at: row.createdAt.toISOString(),
});

/** 422 when the bytes are not the image the upload declares (a renamed or disguised file). */
function typeMismatch(filename: string, declared: string, detected: string | null): ApiError {
  const found = detected ? `its bytes are ${detected}` : "its bytes are not an image of an accepted type";
  const message = `The file "${filename}" is declared ${declared} but ${found}`;
  return new ApiError(422, "attachment.type_mismatch", message, {
    filename,
    declared_type: declared,
    detected_type: detected,
    fields: [{ field: "file", message }],
  });
}

/**
 * `POST /api/attachments` (multipart, field `file`): an image of the caller's
 * organisation, referenced later from user messages by id (ATT-001, OP-ATT-1/2/5).
 * The body is counted as it streams (413 at the limit) and the type is read from the
 * file's first bytes, not trusted from the client.
 */
export const attachmentRoutes = new Hono<AppEnv>()
  .post(
    "/",
    operation({
      operationId: "uploadAttachment",
      tag: "Attachments",
      summary: "Upload an image (multipart field file: png, jpeg, gif or webp by its bytes, at most 10 MiB) to attach to a message",
      requestBody: {
        required: true,
        content: {
          "multipart/form-data": {
            schema: { type: "object", properties: { file: { type: "string", format: "binary", description: "The image" } }, required: ["file"] },
          },
        },
      },
      responses: { 201: ok("The stored attachment", Attachment) },
      errors: {
        400: failure("The body is not valid multipart/form-data (request.invalid_multipart)"),
        413: failure("The file is larger than 10 MiB (request.too_large; details.limit_bytes)"),
        415: failure("Not multipart/form-data (request.unsupported_media_type), or not a png, jpeg, gif or webp image (attachment.unsupported_type)"),
        422: failure("No file field, an empty file (validation.failed), or bytes that are not the declared image type (attachment.type_mismatch)"),
        503: failure("No attachment store is configured (attachments.unavailable)"),
      },
    }),
    async (c) => {
      if (!c.env.ATTACHMENTS) throw new ApiError(503, "attachments.unavailable", "No attachment store is configured");
      const limit = MAX_ATTACHMENT_BYTES + MULTIPART_OVERHEAD;
      if (Number(c.req.header("content-length")) > limit) throw new ApiError(413, "request.too_large", TOO_LARGE, { limit_bytes: limit });
      if (!/^multipart\/form-data/i.test(c.req.header("content-type") ?? "")) {
        throw new ApiError(415, "request.unsupported_media_type", "Upload the file as multipart/form-data in the field file");
      }
      const form = await readLimitedForm(c.req.raw, limit, TOO_LARGE);
      const file = form.get("file");
      if (!file || typeof file === "string") throw validationFailed([{ field: "file", message: "attach the file in the multipart field file" }]);
      const upload = file as File;
      const filename = uploadFilename(upload.name, "image");
      if (!isImageType(upload.type)) {
        throw new ApiError(415, "attachment.unsupported_type", `Only images are accepted (${IMAGE_TYPES.join(", ")})`, { mime: upload.type, filename });
      }
      if (upload.size > MAX_ATTACHMENT_BYTES) throw new ApiError(413, "request.too_large", TOO_LARGE, { limit_bytes: MAX_ATTACHMENT_BYTES });
      if (upload.size === 0) throw validationFailed([{ field: "file", message: `the file "${filename}" is empty` }]);
      const bytes = new Uint8Array(await upload.arrayBuffer());
      const detected = sniffImageType(bytes.subarray(0, SNIFF_BYTES));
      if (detected !== upload.type) throw typeMismatch(filename, upload.type, detected);
      const id = crypto.randomUUID();
      await c.env.ATTACHMENTS.put(attachmentKey(id), bytes, { httpMetadata: { contentType: detected } });
      const [row] = await c
        .get("db")
        .insert(attachments)
        .values({
          id,
          organisationId: c.get("organisationId"),
          filename,
          mime: detected,
          kind: "image",
          sizeBytes: bytes.byteLength,
          storageKey: attachmentKey(id),
        })
        .returning();
      return c.json(toAttachment(row!), 201);
    },
  )
  .get(
    "/:id",
    operation({
      operationId: "getAttachment",
      summary: "The bytes of an uploaded image (Content-Disposition names the file)",
      tag: "Attachments",
      responses: {
        200: {
          description: "The image's bytes, with its stored type",
          content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: { type: "string", format: "binary" } }])),
        },
      },
      notFound: "attachment",
    }),
    pathId("attachment"),
    async (c) => {
      const { id } = c.req.valid("param");
      const [row] = await c
        .get("db")
        .select()
        .from(attachments)
        .where(and(eq(attachments.id, id), eq(attachments.organisationId, c.get("organisationId"))))
        .limit(1);
      const object = row && (await c.env.ATTACHMENTS?.get(row.storageKey));
      if (!row || !object) throw notFound("attachment");
      return new Response(object.body, {
        headers: {
          "content-type": row.mime,
          "content-disposition": contentDisposition("inline", row.filename),
          "x-content-type-options": "nosniff",
          "cache-control": "private, max-age=3600",
        },
      });
    },
  );
