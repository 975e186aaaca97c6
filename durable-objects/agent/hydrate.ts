import type { ChatPayload, StoredRow } from "../../core/projection/types";
import { imageRefs } from "../../core/projection/projection";
import type { Env } from "../../workers/env";

/**
 * Turns image refs of user rows into Chat Completions `image_url` parts at request
 * time (ATT-004/008): never stored, fresh on every request. The store cannot sign URLs
 * here, so images travel as data URLs (ATT-006), which is also what Kimi requires (ATT-007).
 * Rows without images pass through as the same objects.
 */
export async function hydrateAttachments(messages: ChatPayload[], rows: readonly StoredRow[], env: Env, _model: string): Promise<unknown[]> {
  if (!rows.some((r) => r.role === "user" && imageRefs(r).length > 0)) return messages;
  return Promise.all(messages.map(async (message, i) => {
    const row = rows[i]!;
    const images = message.role === "user" ? imageRefs(row) : [];
    if (images.length === 0 || message.role !== "user") return message;
    const parts: unknown[] = message.content ? [{ type: "text", text: message.content }] : [];
    for (const image of images) {
      const object = await env.ATTACHMENTS?.get(attachmentKey(image.id));
      if (!object) {
        parts.push({ type: "text", text: `[image ${image.filename} is no longer available]` });
        continue;
      }
      parts.push({ type: "image_url", image_url: { url: `data:${image.mime};base64,${base64(await object.arrayBuffer())}` } });
    }
    return { role: "user", content: parts };
  }));
}

/** Where an attachment's bytes live in the ATTACHMENTS bucket. */
export const attachmentKey = (id: string) => `attachments/${id}`;

function base64(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
