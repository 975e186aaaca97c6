import type { Context } from "hono";
import { readWithin } from "../../core/http/read-within";
import { nestsDeeperThan } from "../../core/validation/depth";
import { unstorableField } from "../../core/validation/storable";
import { ApiError, validationFailed } from "./errors";

const DEFAULT_LIMIT = 1024 * 1024;
/** Nesting a body may have: far beyond any route's fields, well within what the checks after it can walk. */
const MAX_BODY_DEPTH = 64;

/**
 * Reads a JSON body no larger than MAX_BODY_BYTES before it is validated: 413 over the
 * limit (stopping the read there), 415 for another content type, 400 for bad JSON, 422
 * for nesting past MAX_BODY_DEPTH or naming a field with text Postgres cannot store. The
 * text is left in the request's body cache, where the validator that follows
 * (workers/http/contract.ts jsonBody) parses it.
 *
 * @example await readJson(c); const body = await c.req.json();
 */
export async function readJson(c: Context): Promise<void> {
  const limit = Number(c.env?.MAX_BODY_BYTES) || DEFAULT_LIMIT;
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ApiError(415, "request.unsupported_media_type", "Send the body as application/json");
  }
  const declared = Number(c.req.header("content-length"));
  if (declared > limit) throw tooLarge(limit);
  const text = await readLimited(c.req.raw, limit);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, "request.invalid_json", "The body is not valid JSON");
  }
  if (nestsDeeperThan(value, MAX_BODY_DEPTH)) throw validationFailed([{ field: "", message: `must not nest deeper than ${MAX_BODY_DEPTH} levels` }]);
  // Postgres refuses NUL characters and lone surrogates: refuse them here, by field, not as a 500.
  const unstorable = unstorableField(value);
  if (unstorable !== null) {
    throw validationFailed([{ field: unstorable, message: "must not contain NUL characters or unpaired UTF-16 surrogates" }]);
  }
  // Hono's type names the settled value; at run time the cache holds the promise of it.
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
}

async function readLimited(request: Request, limit: number): Promise<string> {
  const bytes = await readWithin(request.body, limit);
  if (!bytes) throw tooLarge(limit);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError(400, "request.invalid_json", "The body is not valid UTF-8");
  }
}

/**
 * Parses a multipart body while counting its bytes as they stream in: past `limit` the
 * read stops and the answer is 413, so an oversized upload is never buffered whole.
 * 400 for a body that is not valid multipart.
 *
 * @example const form = await readLimitedForm(c.req.raw, 10 * 1024 * 1024, "Attachments are limited to 10 MiB");
 */
export async function readLimitedForm(request: Request, limit: number, tooLargeMessage: string): Promise<FormData> {
  if (!request.body) throw new ApiError(400, "request.invalid_multipart", "The body is empty");
  const reader = request.body.getReader();
  let size = 0;
  let exceeded = false;
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        size += value.byteLength;
        if (size > limit) {
          exceeded = true;
          await reader.cancel().catch(() => {});
          return controller.error(new Error("body over the limit"));
        }
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  try {
    return await new Response(counted, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
  } catch {
    if (exceeded) throw new ApiError(413, "request.too_large", tooLargeMessage, { limit_bytes: limit });
    throw new ApiError(400, "request.invalid_multipart", "The body is not valid multipart/form-data");
  }
}

const tooLarge = (limit: number) => new ApiError(413, "request.too_large", `The body is larger than ${limit} bytes`, { limit_bytes: limit });
