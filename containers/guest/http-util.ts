/** Small helpers for node:http responses and request bodies. */
import type { IncomingMessage, ServerResponse } from "node:http";

/** The error shape every route answers with: `{error:{code,message}}`. */
export function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export class BodyTooLarge extends Error {}

/** Reads a whole body, refusing it past `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** How a route refuses a body: its codes, and what it says of one too large. */
export interface JsonRefusals {
  /** The 413's code, e.g. `exec.too_large`. */
  tooLarge: string;
  /** The 413's message, e.g. "exec body is over 1 MiB". */
  tooLargeMessage: string;
  /** The 400's code when the body is not JSON, e.g. `exec.invalid`. */
  invalid: string;
}

/**
 * A route's JSON body of at most `limit` bytes, or null once the refusal is sent: 413 past
 * the limit, 400 "body must be JSON" otherwise.
 *
 * @example
 *   const read = await readJson(req, res, 1 << 20, { tooLarge: "exec.too_large", tooLargeMessage: "exec body is over 1 MiB", invalid: "exec.invalid" });
 *   if (!read) return;
 */
export async function readJson(req: IncomingMessage, res: ServerResponse, limit: number, refusals: JsonRefusals): Promise<{ body: unknown } | null> {
  try {
    return { body: JSON.parse((await readBody(req, limit)).toString("utf8")) as unknown };
  } catch (error) {
    if (error instanceof BodyTooLarge) sendError(res, 413, refusals.tooLarge, refusals.tooLargeMessage);
    else sendError(res, 400, refusals.invalid, "body must be JSON");
    return null;
  }
}
