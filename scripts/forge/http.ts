/** The forge's HTTP plumbing: GitHub-shaped errors and JSON in and out. */
import type { IncomingMessage, ServerResponse } from "node:http";

const MAX_JSON_BYTES = 1024 * 1024;

/** An answer other than success, in GitHub's error shape `{message, documentation_url}` (and `errors` for a 422). */
export class ForgeError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly errors?: Array<Record<string, string>>,
  ) {
    super(message);
  }
}

/** GitHub's 422 "Validation Failed" with what failed, e.g. `{resource: "PullRequest", code: "custom", message}`. */
export function validationFailed(...errors: Array<Record<string, string>>): ForgeError {
  return new ForgeError(422, "Validation Failed", {}, errors);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ForgeError): void {
  const errors = error.errors ? { errors: error.errors } : {};
  sendJson(res, error.status, { message: error.message, ...errors, documentation_url: "https://docs.github.com/rest" }, error.headers);
}

async function readText(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    size += (part as Buffer).length;
    if (size > MAX_JSON_BYTES) throw new ForgeError(413, "Request body too large");
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts).toString("utf8").trim();
}

/** A form (`application/x-www-form-urlencoded`, as OAuth clients send) or JSON body, as strings. */
export async function readBody(req: IncomingMessage): Promise<Record<string, string>> {
  if (!/^application\/x-www-form-urlencoded/i.test(req.headers["content-type"] ?? "")) {
    const body = await readJson(req);
    return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  }
  return Object.fromEntries(new URLSearchParams(await readText(req)));
}

/** The request's JSON body; an empty body reads as `{}` (GitHub accepts a bodiless POST). */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readText(req);
  if (!text) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ForgeError(400, "Problems parsing JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ForgeError(400, "Body should be a JSON object");
  return body as Record<string, unknown>;
}

/** The bearer credential of `Authorization: Bearer <x>` or `token <x>`, as GitHub accepts both. */
export function bearer(req: IncomingMessage): string | null {
  const match = /^(?:bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  return match?.[1] ?? null;
}
