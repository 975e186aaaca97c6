import { Hono } from "hono";
import { ATTACHMENT_URL_TTL_MS, attachmentUrlKey, verifyAttachmentUrl } from "../../core/attachments/signed-url";
import { attachmentKey } from "../../core/db/schema";
import { IMAGE_TYPES, isImageType } from "../../core/validation/image-type";
import type { AppEnv } from "../http/context";
import { failure, operation, pathId, query } from "../http/contract";
import { ApiError } from "../http/errors";
import { SignedLinkQuery } from "./attachments.schema";

/**
 * `GET /api/attachments/:id/signed?expires=…&signature=…` (ATT-005): an image as a provider
 * fetches it, with no bearer token. The link is the credential: signed by the platform for
 * this attachment, valid 15 minutes. Every refusal is the same 403, so a caller learns
 * nothing of why (forged, altered, expired) nor whether the id exists. The bytes come from
 * the store alone, with the type they were stored with: no database read.
 */
const invalid = () => new ApiError(403, "attachment.link_invalid", "This link is not valid");

export const attachmentLinkRoutes = new Hono<AppEnv>().get(
  "/:id/signed",
  operation({
    operationId: "getSignedAttachment",
    summary: "An image through a signed link, as model providers fetch it (no bearer token; the link expires after 15 minutes)",
    tag: "Attachments",
    public: true,
    query: true,
    responses: {
      200: {
        description: "The image's bytes, with its stored type",
        content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: { type: "string", format: "binary" } }])),
      },
    },
    errors: {
      403: failure("The link is forged, altered or expired (attachment.link_invalid); nothing more is said"),
      404: failure("The id is not an attachment id, or a valid link's image is gone (attachment.not_found)"),
    },
  }),
  pathId("attachment"),
  query(SignedLinkQuery),
  async (c) => {
    const { id } = c.req.valid("param");
    const { expires, signature } = c.req.valid("query");
    const key = await attachmentUrlKey(c.env.SECRETS_KEK).catch(() => null);
    const valid = key !== null && (await verifyAttachmentUrl(key, { attachmentId: id, expires, signature, now: Date.now() }));
    if (!valid) throw invalid();
    const object = await c.env.ATTACHMENTS?.get(attachmentKey(id));
    const type = object?.httpMetadata?.contentType;
    if (!object || !type || !isImageType(type)) {
      object?.body.cancel().catch(() => {});
      throw new ApiError(404, "attachment.not_found", "No such attachment");
    }
    return new Response(object.body, {
      headers: {
        "content-type": type,
        "x-content-type-options": "nosniff",
        "cache-control": `private, max-age=${ATTACHMENT_URL_TTL_MS / 1000}`,
      },
    });
  },
);
