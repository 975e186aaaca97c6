import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../core/db/client";
import { attachments } from "../../core/db/schema";
import type { AttachmentRef } from "../../core/projection/types";
import { validationFailed } from "../http/errors";

/** Attachment ids of the caller's organisation as refs for metadata.attachments (ATT-001, OP-ATT-5). */
export async function attachmentRefs(db: Database, organisationId: string, ids: string[], field: string): Promise<AttachmentRef[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(attachments)
    .where(and(inArray(attachments.id, ids), eq(attachments.organisationId, organisationId)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.findIndex((id) => !byId.has(id));
  if (missing !== -1) throw validationFailed([{ field: `${field}.${missing}`, message: "no such attachment" }]);
  return ids.map((id) => {
    const r = byId.get(id)!;
    return { id: r.id, filename: r.filename, mime: r.mime, kind: r.kind };
  });
}
