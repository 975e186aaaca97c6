import { toBase64 } from "../../../core/bytes/base64";
import { attachmentKey } from "../../../core/db/schema";
import { imageRefs, utf8ByteLength } from "../../../core/projection/projection";
import type { ChatPayload, StoredRow } from "../../../core/projection/types";
import { ProviderError } from "./model-call";

/** An attachment's bytes as the store hands them out: the size first, the body on demand. */
export interface StoredImage {
  size: number;
  bytes(): Promise<ArrayBuffer>;
  /** Releases a body that will not be read. */
  discard(): void;
}

/** Where attachment bytes are read from (the ATTACHMENTS bucket in the object). */
export type ImageStore = (attachmentId: string) => Promise<StoredImage | null>;

/** Hydrates one provider request's messages. */
export type Hydrate = (messages: ChatPayload[], rows: readonly StoredRow[]) => Promise<unknown[]>;

export const DEFAULT_MAX_REQUEST_BYTES = 20 * 1024 * 1024;

/**
 * Turns image refs of user rows into Chat Completions `image_url` parts at request
 * time (ATT-004/008): never stored, fresh on every generation. A tool row's image (a browser
 * screenshot) cannot ride in its tool message, which holds text only, so it follows the
 * block of tool results it belongs to as one user message naming the call. With `signedUrl`
 * an image travels as a 15-minute signed URL of the platform's attachment route (ATT-005);
 * without it, as a data URL (ATT-006, and always for Kimi, ATT-007): see
 * core/attachments/signed-url.ts for which. Either way the stored rows and the prompt hash
 * hold the attachment reference only, so replay does not depend on when a URL was signed.
 *
 * Bounded: only user rows inside the projection are hydrated (a row whose message the
 * projection replaced or left out is not); each image is read at most once per
 * generation (make one hydrator per generation); and the request stays under
 * `maxRequestBytes`. Images are taken newest first; an older one (or a tool's) that would
 * pass the cap becomes a short text note. When the newest user row's own images, or the text alone,
 * do not fit, the request fails with `provider.request_too_large` and no model call is
 * made; the next message of the run leaves those images behind as notes.
 *
 * @example
 *   const hydrate = imageHydrator(r2Images(env.ATTACHMENTS), { maxRequestBytes: 20e6 });
 *   await callModel({ ..., messages: await hydrate(plan.messages, session.rows) });
 */
export function imageHydrator(
  store: ImageStore | null,
  options: {
    maxRequestBytes?: number;
    /** A signed URL of the attachment (ATT-005), where the provider can fetch one; absent: data URLs. */
    signedUrl?: (attachmentId: string) => Promise<string>;
  } = {},
): Hydrate {
  const cap = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  /** By attachment id, for this generation only: its data URL, its size when it did not fit, or null when gone. */
  const cache = new Map<string, { url: string } | { size: number } | null>();

  return async (messages, rows) => {
    const base = jsonBytes(messages);
    if (base > cap) throw tooLarge(cap, "The prompt's text alone");
    const projected = projectedImageRows(messages, rows);
    if (projected.length === 0) return messages;

    let used = base;
    const parts = new Map<number, unknown[]>();
    const newest = projected.findLast(({ row }) => row.role === "user")?.index;
    // Newest first: when the cap bites, the older images become notes.
    for (const { index, row } of [...projected].reverse()) {
      const message = messages[index]!;
      const images: unknown[] = [];
      for (const image of imageRefs(row)) {
        let known = cache.get(image.id);
        if (known === undefined || (known && "size" in known && used + dataUrlBytes(image.mime, known.size) <= cap)) {
          const stored = store ? await store(image.id) : null;
          if (stored && options.signedUrl) {
            // The provider fetches the bytes itself: only their existence is read here.
            stored.discard();
            known = { url: await options.signedUrl(image.id) };
          } else if (stored && used + dataUrlBytes(image.mime, stored.size) > cap) {
            stored.discard();
            known = { size: stored.size };
          } else {
            known = stored ? { url: `data:${image.mime};base64,${toBase64(new Uint8Array(await stored.bytes()))}` } : null;
          }
          cache.set(image.id, known);
        }
        const url = known && "url" in known ? known.url : undefined;
        if (known === null) {
          images.push({ type: "text", text: `[image ${image.filename} is no longer available]` });
        } else if (url !== undefined && used + url.length <= cap) {
          used += url.length;
          images.push({ type: "image_url", image_url: { url } });
        } else if (index === newest) {
          throw tooLarge(cap, `The images of the latest message (${image.filename})`);
        } else {
          images.push({ type: "text", text: `[image ${image.filename} left out: the request would pass ${cap} bytes]` });
        }
      }
      if (message.role === "tool") {
        const name = typeof row.metadata.tool_name === "string" ? row.metadata.tool_name : "a tool";
        parts.set(index, [{ type: "text", text: `[image returned by ${name}, call ${message.tool_call_id}]` }, ...images]);
      } else {
        parts.set(index, [...(message.content ? [{ type: "text", text: message.content }] : []), ...images]);
      }
    }
    return withImages(messages, parts);
  };
}

/**
 * The request's messages with image parts in place: a user message's replace its content; a
 * tool message's are gathered into one user message after the last tool result of its block,
 * since a user message between the results of one assistant turn would break the exchange.
 */
function withImages(messages: readonly ChatPayload[], parts: ReadonlyMap<number, unknown[]>): unknown[] {
  const out: unknown[] = [];
  let pending: unknown[] = [];
  messages.forEach((message, i) => {
    const own = parts.get(i);
    if (message.role === "tool") {
      out.push(message);
      if (own) pending.push(...own);
    } else {
      out.push(own ? { role: "user", content: own } : message);
    }
    if (pending.length > 0 && messages[i + 1]?.role !== "tool") {
      out.push({ role: "user", content: pending });
      pending = [];
    }
  });
  return out;
}

/** The ATTACHMENTS bucket as an image store. */
export function r2Images(bucket: R2Bucket | undefined): ImageStore | null {
  if (!bucket) return null;
  return async (id) => {
    const object = await bucket.get(attachmentKey(id));
    if (!object) return null;
    return { size: object.size, bytes: () => object.arrayBuffer(), discard: () => void object.body.cancel().catch(() => {}) };
  };
}

/**
 * User and tool rows with images whose own payload is in the request: the projection keeps
 * seq order, so rows and messages are walked together, matching a row to its message by
 * identity. A message with no row of its own (a stub replacing a tool result, a reminder)
 * is passed over without moving past the rows still to match, so a stubbed result's image
 * is not sent either.
 */
function projectedImageRows(messages: readonly ChatPayload[], rows: readonly StoredRow[]): Array<{ index: number; row: StoredRow }> {
  const found: Array<{ index: number; row: StoredRow }> = [];
  // Rows by payload (each row's payload is its own object), made at the first message that is
  // not the next row's: a stub or a left-out row then costs one lookup, not a scan to the end.
  let rowOf: Map<ChatPayload, number> | undefined;
  let r = 0;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    let match: number | undefined = r;
    if (rows[r]?.payload !== message) {
      rowOf ??= new Map(rows.map((row, i) => [row.payload, i]));
      match = rowOf.get(message);
      if (match === undefined || match < r) continue;
    }
    r = match + 1;
    if ((message.role === "user" || message.role === "tool") && imageRefs(rows[match]!).length > 0) found.push({ index, row: rows[match]! });
  }
  return found;
}

/**
 * UTF-8 bytes of each message's JSON, kept while the object lives. Stored payloads are
 * immutable and the projection hands the same objects back every step, so a step measures its
 * new rows only, not the whole prompt again (the provider client serialises it once, to send it).
 */
const messageBytes = new WeakMap<object, number>();

/** UTF-8 bytes of `JSON.stringify(messages)`: the brackets, a comma between two, each message's JSON. */
function jsonBytes(messages: readonly ChatPayload[]): number {
  let bytes = 2 + Math.max(0, messages.length - 1);
  for (const message of messages) {
    let own = messageBytes.get(message);
    if (own === undefined) {
      own = utf8ByteLength(JSON.stringify(message));
      messageBytes.set(message, own);
    }
    bytes += own;
  }
  return bytes;
}

function dataUrlBytes(mime: string, size: number): number {
  return `data:${mime};base64,`.length + Math.ceil(size / 3) * 4;
}

function tooLarge(cap: number, what: string): ProviderError {
  return new ProviderError(`${what} would make the request larger than ${cap} bytes; no model call was made`, null, null, "provider.request_too_large");
}
