import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { attachments } from "../../core/db/schema";
import { isUuid } from "../../core/validation/fields";
import { attachmentKey } from "../../durable-objects/agent/hydrate";
import type { AppEnv } from "../context";
import { ApiError, notFound, validationFailed } from "../errors";
import type { RouteDoc } from "../openapi";

/** Images only until other kinds are specified (OP-ATT-2). */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

const Attachment = z.object({
  id: z.uuid(), filename: z.string(), mime: z.string(), kind: z.literal("image"), size: z.int(), created_at: z.iso.datetime(),
});

const toAttachment = (row: typeof attachments.$inferSelect) => ({
  id: row.id, filename: row.filename, mime: row.mime, kind: row.kind, size: row.sizeBytes, created_at: row.createdAt.toISOString(),
});

/**
 * `POST /api/attachments` (multipart, field `file`): an image of the caller's
 * organisation, referenced later from user messages by id (ATT-001, OP-ATT-1/5).
 */
export const attachmentRoutes = new Hono<AppEnv>()
  .post("/", async (c) => {
    if (!c.env.ATTACHMENTS) throw new ApiError(503, "attachments.unavailable", "No attachment store is configured");
    const declared = Number(c.req.header("content-length"));
    if (declared > MAX_ATTACHMENT_BYTES + 64 * 1024) throw new ApiError(413, "request.too_large", `Attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes`);
    if (!/^multipart\/form-data/i.test(c.req.header("content-type") ?? "")) {
      throw new ApiError(415, "request.unsupported_media_type", "Upload the file as multipart/form-data in the field file");
    }
    const form = await c.req.formData().catch(() => null);
    const file = form?.get("file");
    if (!file || typeof file === "string") throw validationFailed([{ field: "file", message: "attach the file in the multipart field file" }]);
    const upload = file as File;
    if (!(IMAGE_TYPES as readonly string[]).includes(upload.type)) {
      throw new ApiError(415, "attachment.unsupported_type", `Only images are accepted (${IMAGE_TYPES.join(", ")})`, { mime: upload.type });
    }
    if (upload.size > MAX_ATTACHMENT_BYTES) throw new ApiError(413, "request.too_large", `Attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes`);
    if (upload.size === 0) throw validationFailed([{ field: "file", message: "the file is empty" }]);
    const id = crypto.randomUUID();
    await c.env.ATTACHMENTS.put(attachmentKey(id), await upload.arrayBuffer(), { httpMetadata: { contentType: upload.type } });
    const [row] = await c.get("db").insert(attachments).values({
      id, organisationId: c.get("organisationId"), filename: (upload.name || "image").slice(0, 255), mime: upload.type,
      kind: "image", sizeBytes: upload.size, storageKey: attachmentKey(id),
    }).returning();
    return c.json(toAttachment(row!), 201);
  })
  .get("/:id", async (c) => {
    const id = c.req.param("id");
    if (!isUuid(id)) throw notFound("attachment");
    const [row] = await c.get("db").select().from(attachments)
      .where(and(eq(attachments.id, id), eq(attachments.organisationId, c.get("organisationId")))).limit(1);
    const object = row && (await c.env.ATTACHMENTS?.get(row.storageKey));
    if (!row || !object) throw notFound("attachment");
    return new Response(object.body, { headers: { "content-type": row.mime, "cache-control": "private, max-age=3600" } });
  });

export const attachmentDocs: RouteDoc[] = [
  { method: "post", path: "/api/attachments", summary: "Upload an image (multipart field file, at most 10 MiB) to attach to a message", tag: "Attachments", response: Attachment, status: 201 },
  { method: "get", path: "/api/attachments/{id}", summary: "The bytes of an uploaded attachment", tag: "Attachments" },
];
